#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "scheduling/api/json/string_bytes.hpp"

namespace scheduling::api::json {

// The answers of /filter and /prioritize list thousands of node names. They are written
// straight into one string, sized up front for the answer as it nearly always is (no string
// needing an escape), through a cursor: each name is one memcpy, a few fixed bytes around it
// are written in the same room, and strings are escaped exactly as RapidJSON's Writer escapes
// them (the same bytes as the Writer-built answers of /preempt and /bind). Through the
// Writer, or appending piece by piece to a std::string (a call into the library per piece),
// the answer cost more than the scheduling of 5,000 nodes.
class AnswerWriter {
 public:
  explicit AnswerWriter(std::size_t expectedSize) : out_(expectedSize, '\0') {}

  // Room for n more bytes at the cursor: write them there, then advance() past them.
  char* room(std::size_t n) {
    if (out_.size() - used_ < n) [[unlikely]]
      grow(n);
    return out_.data() + used_;
  }
  void advance(char* to) { used_ = static_cast<std::size_t>(to - out_.data()); }

  // Copies `bytes` to `at` (in a room()) and says where they end.
  static char* put(char* at, std::string_view bytes) {
    std::memcpy(at, bytes.data(), bytes.size());
    return at + bytes.size();
  }

  void raw(std::string_view bytes) { advance(put(room(bytes.size()), bytes)); }

  // `s` as a JSON string, after the separator `before` unless it is '\0'. One room for both:
  // lists of thousands of names write each item in one step.
  void string(std::string_view s, char before = '\0') {
    if (!needsEscapes(s)) [[likely]] {
      char* at = room(s.size() + 3);
      if (before != '\0') *at++ = before;
      *at++ = '"';
      at = put(at, s);
      *at++ = '"';
      advance(at);
    } else {
      if (before != '\0') raw({&before, 1});
      escaped(s);
    }
  }

  static constexpr std::size_t kMaxIntegerSize = 20;  // -9223372036854775808
  static char* putInteger(char* at, std::int64_t value) {
    // Extender scores are 0..10: written here, not through to_chars' general loop, they cost
    // a fifth of /prioritize's answer less.
    if (value >= 0 && value < 100) {
      if (value >= 10) *at++ = static_cast<char>('0' + value / 10);
      *at++ = static_cast<char>('0' + value % 10);
      return at;
    }
    return std::to_chars(at, at + kMaxIntegerSize, value).ptr;
  }
  void integer(std::int64_t value) { advance(putInteger(room(kMaxIntegerSize), value)); }

  static bool needsEscapes(std::string_view s) {
    return findStringSpecial(s.data(), s.data() + s.size()) != s.data() + s.size();
  }

  // The answer; the writer is spent.
  std::string take() && {
    out_.resize(used_);
    return std::move(out_);
  }

 private:
  void grow(std::size_t n);
  void escaped(std::string_view s);

  std::string out_;  // [0, used_) written, the rest room
  std::size_t used_ = 0;
};

}  // namespace scheduling::api::json

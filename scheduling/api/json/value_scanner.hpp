#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "scheduling/api/json/input.hpp"

namespace scheduling::api::json {

// Malformed JSON found by the scanner: RapidJSON's message for the same fault and the input
// offset. The decoder turns it into an api::DecodeError.
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(const std::string& message, std::size_t offset)
      : std::runtime_error(message), offset_(offset) {}
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

// Steps over the value of an object member the decoder does not need (a Node's status,
// managedFields, a Pod's containers: most of the bytes of every request) without
// producing events: strings are scanned 16 bytes at a time, containers are tracked with
// one bit per level instead of recursion. It accepts exactly the JSON that RapidJSON's
// Reader accepts, except that numbers are not range-checked and bytes inside strings are
// not checked to be UTF-8 (neither matters for a value nobody reads, and Go's decoder
// skips unknown fields the same way), and reports errors with RapidJSON's messages.
class ValueScanner {
 public:
  // Nesting deeper than this is an error, as in Go's decoder.
  static constexpr int kMaxDepth = 10000;

  // Consumes `: <value>` that follows a member name, leaving `in` after the value. When
  // `capture` is set, the value's text is appended to it. Throws SyntaxError.
  static void skipMemberValue(Input& in, std::string* capture);
};

}  // namespace scheduling::api::json

#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace scheduling::informers {

// Cuts a watch response body into its events. The API server writes one JSON object per
// event, but chunk and read boundaries fall anywhere, and nothing in the protocol promises
// a newline between objects; so the framer follows the JSON itself (braces outside strings)
// to find where each top-level value ends. Bytes between values (whitespace) are dropped.
class JsonStreamFramer {
 public:
  void append(std::string_view bytes) { buffer_.append(bytes); }

  // The next complete value, valid until the next call; empty when none is complete yet.
  std::string_view next();

  // Bytes held for a value not yet complete.
  std::size_t pending() const { return buffer_.size() - consumed_; }

 private:
  std::string buffer_;
  std::size_t consumed_ = 0;  // bytes of buffer_ already returned
  std::size_t scanned_ = 0;   // bytes of the current value already scanned
  int depth_ = 0;
  bool inString_ = false;
  bool escaped_ = false;
};

}  // namespace scheduling::informers

#include "scheduling/informers/json_stream_framer.hpp"

namespace scheduling::informers {

std::string_view JsonStreamFramer::next() {
  // Drop what earlier calls returned, at most once per call and only when worth it, so a
  // burst of small events does not turn into quadratic copying.
  if (consumed_ > 0 && (consumed_ >= buffer_.size() / 2 || consumed_ > (1u << 20))) {
    buffer_.erase(0, consumed_);
    scanned_ -= consumed_;
    consumed_ = 0;
  }
  if (scanned_ < consumed_) scanned_ = consumed_;
  while (depth_ == 0 && scanned_ < buffer_.size() && buffer_[scanned_] != '{' &&
         buffer_[scanned_] != '[') {
    ++scanned_;  // whitespace between values
    consumed_ = scanned_;
  }
  for (; scanned_ < buffer_.size(); ++scanned_) {
    const char c = buffer_[scanned_];
    if (inString_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        inString_ = false;
      }
      continue;
    }
    if (c == '"') {
      inString_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if ((c == '}' || c == ']') && --depth_ == 0) {
      const std::size_t begin = consumed_;
      consumed_ = ++scanned_;
      return std::string_view(buffer_).substr(begin, consumed_ - begin);
    }
  }
  return {};
}

}  // namespace scheduling::informers

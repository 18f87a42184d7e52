#include "scheduling/api/json/answer_writer.hpp"

#include <algorithm>

namespace scheduling::api::json {

void AnswerWriter::grow(std::size_t n) { out_.resize(std::max(2 * out_.size(), used_ + n)); }

void AnswerWriter::escaped(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const char* p = s.data();
  const char* const end = p + s.size();
  raw("\"");
  for (;;) {
    const char* const special = findStringSpecial(p, end);
    raw({p, static_cast<std::size_t>(special - p)});
    if (special == end) break;
    const auto c = static_cast<unsigned char>(*special);
    switch (c) {
      case '"':
        raw("\\\"");
        break;
      case '\\':
        raw("\\\\");
        break;
      case '\b':
        raw("\\b");
        break;
      case '\f':
        raw("\\f");
        break;
      case '\n':
        raw("\\n");
        break;
      case '\r':
        raw("\\r");
        break;
      case '\t':
        raw("\\t");
        break;
      default: {
        const char hex[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        raw({hex, sizeof hex});
      }
    }
    p = special + 1;
  }
  raw("\"");
}

}  // namespace scheduling::api::json

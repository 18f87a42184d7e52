#include "scheduling/api/json/value_scanner.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/error/error.h>

#include <array>
#include <cstdint>
#include <string_view>

#include "scheduling/api/json/string_bytes.hpp"

namespace scheduling::api::json {

namespace {

using rapidjson::ParseErrorCode;

bool isDigit(char c) { return c >= '0' && c <= '9'; }

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Scanner {
 public:
  Scanner(Input& in, std::string* capture)
      : in_(in), p_(in.cur()), end_(in.end()), mark_(p_), capture_(capture) {}

  void skipMemberValue() {
    skipWhitespace();
    if (peek() != ':') fail(rapidjson::kParseErrorObjectMissColon);
    next();
    skipWhitespace();
    mark_ = p_;  // the capture starts at the value
    skipValue();
    if (capture_ != nullptr) capture_->append(mark_, p_);
    in_.seek(p_);
  }

 private:
  enum class Next { Value, Member, AfterValue };

  char peek() const { return *p_; }

  void next() {
    if (++p_ == end_) refill();
  }

  // Moves to the input's next window; the bytes of this one are gone after it.
  void refill() {
    if (capture_ != nullptr) capture_->append(mark_, p_);
    in_.seek(p_);
    p_ = mark_ = in_.cur();
    end_ = in_.end();
  }

  std::size_t offset() const { return in_.offsetOf(p_); }

  [[noreturn]] void fail(ParseErrorCode code) { fail(code, offset()); }
  [[noreturn]] static void fail(ParseErrorCode code, std::size_t offset) {
    throw SyntaxError(rapidjson::GetParseError_En(code), offset);
  }

  void skipWhitespace() {
    while (isJsonSpace(peek())) next();
  }

  void push(bool object) {
    if (depth_ == ValueScanner::kMaxDepth) {
      throw SyntaxError("Nesting deeper than " + std::to_string(ValueScanner::kMaxDepth) + ".",
                        offset());
    }
    const auto bit = std::uint64_t{1} << (depth_ % 64);
    auto& word = objects_[static_cast<std::size_t>(depth_ / 64)];
    // A word is written from its first bit on before any of its bits is read, so the array
    // needs no zeroing up front: most skipped values are scalars or shallow, and clearing
    // 1.25 KB per skipped member cost more than scanning the member.
    if (depth_ % 64 == 0) word = 0;
    word = object ? (word | bit) : (word & ~bit);
    ++depth_;
  }

  bool inObject() const {
    const int top = depth_ - 1;
    return (objects_[static_cast<std::size_t>(top / 64)] >> (top % 64)) & 1;
  }

  // An iterative walk: one value, however deeply nested.
  void skipValue() {
    Next step = Next::Value;
    for (;;) {
      switch (step) {
        case Next::Value:
          step = startValue();
          break;
        case Next::Member:
          if (peek() != '"') fail(rapidjson::kParseErrorObjectMissName);
          skipString();
          skipWhitespace();
          if (peek() != ':') fail(rapidjson::kParseErrorObjectMissColon);
          next();
          skipWhitespace();
          step = Next::Value;
          break;
        case Next::AfterValue:
          if (depth_ == 0) return;
          skipWhitespace();
          if (peek() == ',') {
            next();
            skipWhitespace();
            step = inObject() ? Next::Member : Next::Value;
          } else if (inObject()) {
            if (peek() != '}') fail(rapidjson::kParseErrorObjectMissCommaOrCurlyBracket);
            next();
            --depth_;
          } else {
            if (peek() != ']') fail(rapidjson::kParseErrorArrayMissCommaOrSquareBracket);
            next();
            --depth_;
          }
          break;
      }
    }
  }

  // Consumes a scalar, or opens a container; says what comes next.
  Next startValue() {
    switch (peek()) {
      case '{':
        push(true);
        next();
        skipWhitespace();
        if (peek() == '}') {
          next();
          --depth_;
          return Next::AfterValue;
        }
        return Next::Member;
      case '[':
        push(false);
        next();
        skipWhitespace();
        if (peek() == ']') {
          next();
          --depth_;
          return Next::AfterValue;
        }
        return Next::Value;
      case '"':
        skipString();
        return Next::AfterValue;
      case 't':
        skipLiteral("true");
        return Next::AfterValue;
      case 'f':
        skipLiteral("false");
        return Next::AfterValue;
      case 'n':
        skipLiteral("null");
        return Next::AfterValue;
      default:
        if (peek() == '-' || isDigit(peek())) {
          skipNumber();
          return Next::AfterValue;
        }
        fail(rapidjson::kParseErrorValueInvalid);
    }
  }

  void skipLiteral(std::string_view literal) {
    for (char c : literal) {
      if (peek() != c) fail(rapidjson::kParseErrorValueInvalid);
      next();
    }
  }

  void skipNumber() {
    if (peek() == '-') next();
    if (peek() == '0') {
      next();
    } else if (isDigit(peek())) {
      while (isDigit(peek())) next();
    } else {
      fail(rapidjson::kParseErrorValueInvalid);
    }
    if (peek() == '.') {
      next();
      if (!isDigit(peek())) fail(rapidjson::kParseErrorNumberMissFraction);
      while (isDigit(peek())) next();
    }
    if (peek() == 'e' || peek() == 'E') {
      next();
      if (peek() == '+' || peek() == '-') next();
      if (!isDigit(peek())) fail(rapidjson::kParseErrorNumberMissExponent);
      while (isDigit(peek())) next();
    }
  }

  void skipString() {
    next();  // the opening quote
    for (;;) {
      p_ = findStringSpecial(p_, end_);
      if (p_ == end_) {
        refill();
        continue;
      }
      const char c = peek();
      if (c == '"') {
        next();
        return;
      }
      if (c == '\\') {
        skipEscape();
      } else if (c == '\0') {
        fail(rapidjson::kParseErrorStringMissQuotationMark);
      } else {
        // An unescaped control character; RapidJSON reports it as a bad escape.
        fail(rapidjson::kParseErrorStringEscapeInvalid);
      }
    }
  }

  void skipEscape() {
    const std::size_t escapeOffset = offset();
    next();
    switch (peek()) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        next();
        return;
      case 'u':
        break;
      default:
        fail(rapidjson::kParseErrorStringEscapeInvalid, escapeOffset);
    }
    next();
    const unsigned codepoint = hex4(escapeOffset);
    if (codepoint >= 0xD800 && codepoint <= 0xDBFF) {
      // A high surrogate must be followed by an escaped low one.
      if (peek() != '\\') fail(rapidjson::kParseErrorStringUnicodeSurrogateInvalid, escapeOffset);
      next();
      if (peek() != 'u') fail(rapidjson::kParseErrorStringUnicodeSurrogateInvalid, escapeOffset);
      next();
      const unsigned low = hex4(escapeOffset);
      if (low < 0xDC00 || low > 0xDFFF) {
        fail(rapidjson::kParseErrorStringUnicodeSurrogateInvalid, escapeOffset);
      }
    }
  }

  unsigned hex4(std::size_t escapeOffset) {
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      const int digit = hexValue(peek());
      if (digit < 0) fail(rapidjson::kParseErrorStringUnicodeEscapeInvalidHex, escapeOffset);
      value = value * 16 + static_cast<unsigned>(digit);
      next();
    }
    return value;
  }

  Input& in_;
  const char* p_;
  const char* end_;
  const char* mark_;
  std::string* capture_;
  int depth_ = 0;
  // One bit per open container (1: object); see push() for why it starts uninitialised.
  std::array<std::uint64_t, (ValueScanner::kMaxDepth + 63) / 64> objects_;
};

}  // namespace

void ValueScanner::skipMemberValue(Input& in, std::string* capture) {
  Scanner(in, capture).skipMemberValue();
}

}  // namespace scheduling::api::json

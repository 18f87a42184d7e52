#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// The bytes of JSON strings, looked at many at a time: where the plain run of a string ends
// (the bytes that need no escaping when written and no unescaping when read), and whether
// bytes are UTF-8. The scanner that steps over skipped values, the NodeNames fast path and
// the answers' encoder all ask the first question of every string they meet, so it is asked
// 16 bytes at a time with SSE2, else 8 at a time in a 64-bit word.
namespace scheduling::api::json {

// JSON's whitespace, exactly the four bytes RapidJSON's Reader skips between tokens.
inline bool isJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A plain run: the bytes up to the first '"', '\\' or control character (below 0x20, which
// JSON allows only escaped; '\0' is also the end of the decoder's input). These are exactly
// the bytes RapidJSON's Writer escapes.
struct PlainRun {
  const char* end;  // the first special byte, or the end of the bytes looked at
  bool ascii;       // no byte of the run is 0x80 or above
};

namespace detail {

inline bool isStringSpecial(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

// Eight bytes at a time in a 64-bit word, for targets without SSE2 (and for the tests, which
// hold it to the same answers).
inline PlainRun plainRunWords(const char* p, const char* end) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  std::uint64_t high = 0;
  while (end - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    // The lowest byte in memory as the least significant, so that the tests below are exact
    // at their lowest flagged byte: their borrows only run towards higher bytes.
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    const std::uint64_t quote = w ^ (kOnes * '"');
    const std::uint64_t backslash = w ^ (kOnes * '\\');
    const std::uint64_t special = (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) |
                                   ((w - kOnes * 0x20) & ~w)) &
                                  kHigh;
    if (special != 0) {
      const int bits = std::countr_zero(special) & ~7;  // the flagged byte's first bit
      high |= w & kHigh & ((std::uint64_t{1} << bits) - 1);
      return {p + bits / 8, high == 0};
    }
    high |= w & kHigh;
    p += 8;
  }
  for (; p != end && !isStringSpecial(static_cast<unsigned char>(*p)); ++p) {
    high |= static_cast<unsigned char>(*p) & 0x80u;
  }
  return {p, high == 0};
}

}  // namespace detail

// The plain run of the bytes [p, end). Always inlined: its callers call it once per string,
// in loops over thousands of short ones, where a call and setting up its constants would cost
// as much as the scan.
[[gnu::always_inline]] inline PlainRun plainRun(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1F);
  unsigned high = 0;
  // The special bytes of the 16 at `at` as bits, and their non-ASCII bytes into `high`.
  const auto step = [&](const char* at) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    // max(x, 0x1F) == 0x1F exactly when x <= 0x1F as an unsigned byte.
    const __m128i hits =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                     _mm_cmpeq_epi8(_mm_max_epu8(x, control), control));
    const auto special = static_cast<unsigned>(_mm_movemask_epi8(hits));
    const auto nonAscii = static_cast<unsigned>(_mm_movemask_epi8(x));
    high |= special == 0 ? nonAscii : nonAscii & ((1u << std::countr_zero(special)) - 1);
    return special;
  };
  const char* const begin = p;
  for (; end - p >= 16; p += 16) {
    if (const unsigned special = step(p); special != 0) {
      return {p + std::countr_zero(special), high == 0};
    }
  }
  if (p == end) return {end, high == 0};
  if (end - begin >= 16) {
    // The last bytes in one step that ends at `end`: the bytes it looks at again are plain.
    const char* const last = end - 16;
    const unsigned special = step(last);
    return {special != 0 ? last + std::countr_zero(special) : end, high == 0};
  }
  return detail::plainRunWords(p, end);
#else
  return detail::plainRunWords(p, end);
#endif
}

[[gnu::always_inline]] inline const char* findStringSpecial(const char* p, const char* end) {
  return plainRun(p, end).end;
}

// Whether `s` is UTF-8 as Go's utf8.ValidString has it: no overlong forms, no surrogates, no
// code point above U+10FFFF.
inline bool isValidUtf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    // ASCII runs, eight bytes at a time.
    while (i + 8 <= n) {
      std::uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if ((word & 0x8080808080808080ULL) != 0) break;
      i += 8;
    }
    if (i == n) break;
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    std::uint32_t cp = 0;
    std::uint32_t min = 0;
    if ((b0 & 0xE0) == 0xC0) {
      len = 2, cp = b0 & 0x1Fu, min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
      len = 3, cp = b0 & 0x0Fu, min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
      len = 4, cp = b0 & 0x07u, min = 0x10000;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

}  // namespace scheduling::api::json

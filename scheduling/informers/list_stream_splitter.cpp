#include "scheduling/informers/list_stream_splitter.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "scheduling/api/decode_error.hpp"

namespace scheduling::informers {

namespace {

// List metadata is a resourceVersion, a continue token and a count: far below this.
constexpr std::size_t kMaxEnvelopeBytes = 1u << 20;

// The bytes that change the cutter's state inside an item, outside strings.
constexpr std::array<bool, 256> kStructural = [] {
  std::array<bool, 256> table{};
  for (const char c : std::string_view("\"{}[]")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

#if defined(__SSE2__)
// 64 bytes of an item as bit masks, bit k for byte k: what the cutter looks for.
struct Block {
  std::uint64_t quotes = 0;
  std::uint64_t backslashes = 0;
  std::uint64_t opens = 0;   // '{' and '['
  std::uint64_t closes = 0;  // '}' and ']'
};

[[gnu::always_inline]] inline Block classify(const char* p) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  // Setting bit 0x20 turns '[' into '{' and ']' into '}', and nothing else into either.
  const __m128i bit5 = _mm_set1_epi8(0x20);
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  Block b;
  for (int k = 0; k < 4; ++k) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i folded = _mm_or_si128(x, bit5);
    const auto bits = [k](__m128i equal) {
      return std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(equal))} << (16 * k);
    };
    b.quotes |= bits(_mm_cmpeq_epi8(x, quote));
    b.backslashes |= bits(_mm_cmpeq_epi8(x, backslash));
    b.opens |= bits(_mm_cmpeq_epi8(folded, open));
    b.closes |= bits(_mm_cmpeq_epi8(folded, close));
  }
  return b;
}

// Bit k: the XOR of bits 0..k.
[[gnu::always_inline]] inline std::uint64_t prefixXor(std::uint64_t bits) {
  for (int shift = 1; shift < 64; shift *= 2) bits ^= bits << shift;
  return bits;
}

// Walks a block without backslashes (so every quote opens or closes a string) from the state
// at its start; returns the offset just past the bracket that closes the item, or 0 when the
// item goes on past the block.
[[gnu::always_inline]] inline std::size_t walkBlock(const Block& b, bool& inString, int& depth) {
  // Bit k: byte k is inside a string (or is the quote that opens it).
  const std::uint64_t quoted = prefixXor(b.quotes);
  const std::uint64_t inside = inString ? ~quoted : quoted;
  const std::uint64_t opens = b.opens & ~inside;
  const std::uint64_t closes = b.closes & ~inside;
  inString ^= (quoted >> 63) != 0;  // an odd number of quotes: the top bit of their prefix XOR
  if (std::popcount(closes) < depth) {
    depth += std::popcount(opens) - std::popcount(closes);
    return 0;
  }
  for (std::uint64_t brackets = opens | closes; brackets != 0; brackets &= brackets - 1) {
    const int at = std::countr_zero(brackets);
    if ((opens >> at) & 1) {
      ++depth;
    } else if (--depth == 0) {
      return static_cast<std::size_t>(at) + 1;
    }
  }
  return 0;
}
#endif

}  // namespace

void ListStreamSplitter::compact() {
  // The scanner needs nothing before its position (the item in progress, or the next byte to
  // scan), and the envelope has copied what it needs from there. Erase it only when that is a
  // large share of the buffer, so that many small items do not cost quadratic copying.
  const std::size_t done = scanner_.position() - dropped_;
  if (done == 0 || (done < buffer_.size() / 2 && done < (1u << 20))) return;
  buffer_.erase(0, done);
  dropped_ += done;
}

void ListStreamSplitter::keepEnvelope() {
  const auto copyTo = [this](std::size_t end) {
    if (end <= kept_) return;
    envelope_.append(buffer_, kept_ - dropped_, end - kept_);
    kept_ = end;
  };
  const std::size_t scanned = scanner_.position();
  const auto open = scanner_.arrayOpen();
  const auto close = scanner_.arrayClose();
  if (!open) {
    copyTo(scanned);
  } else {
    copyTo(std::min(scanned, *open + 1));  // up to the '['
    if (close) {
      kept_ = std::max(kept_, *close);  // from the ']' on
      copyTo(scanned);
    }
  }
  if (envelope_.size() > kMaxEnvelopeBytes) {
    throw api::DecodeError("", "more than 1 MiB of the list answer outside its items");
  }
}

// The cutter's hot loop is built twice, and the loader picks the popcnt one on every x86-64
// that has the instruction (all of the last fifteen years): in the baseline build
// std::popcount is a call into libgcc, 2 % of the informers' CPU on a million-pod list. The
// block helpers above are always inlined, so that each build of the loop has its own. Not
// under the sanitizers: the loader runs the resolver that picks the build before
// ThreadSanitizer's runtime is up (every test crashed at start), and those trees are not
// about speed.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SX_SANITIZED
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SX_SANITIZED
#endif
#endif
#if defined(__x86_64__) && !defined(SX_SANITIZED) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define SX_WITH_POPCNT __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef SX_WITH_POPCNT
#define SX_WITH_POPCNT
#endif

SX_WITH_POPCNT std::string_view ListStreamSplitter::cutItem() {
  if (!inItem_) {
    inItem_ = true;
    itemScanned_ = scanner_.position();
    itemDepth_ = 0;
    inString_ = false;
  }
  // The hot loop: nearly all of a list's bytes are inside items, most of them in strings.
  const char* const data = buffer_.data();
  const std::size_t size = buffer_.size();
  std::size_t i = itemScanned_ - dropped_;
  const auto itemEndsAt = [&](std::size_t end) {
    inItem_ = false;
    const std::size_t begin = scanner_.position() - dropped_;
    scanner_.elementEnded(dropped_ + end);
    return std::string_view(data + begin, end - begin);
  };
#if defined(__SSE2__)
  // Bytes before this offset are walked one string or byte at a time (below).
  std::size_t byteWiseUntil = 0;
#endif
  while (i < size) {
#if defined(__SSE2__)
    // 64 bytes at a time, as masks, where no backslash can escape a quote: in or right before
    // the block. Strings in items are short, and finding each one's end with memchr was
    // about a sixth of the decoding thread's time on a list from the API server.
    if (i >= byteWiseUntil && size - i >= 64 && (i == 0 || data[i - 1] != '\\')) {
      const Block block = classify(data + i);
      if (block.backslashes == 0) {
        if (const std::size_t end = walkBlock(block, inString_, itemDepth_); end != 0) {
          return itemEndsAt(i + end);
        }
        i += 64;
        continue;
      }
      byteWiseUntil = i + 64;
    }
#endif
    if (inString_) {
      // To the next quote at memchr's speed. It ends the string unless an odd run of
      // backslashes escapes it; the whole item is in the buffer, and the string's opening
      // quote stops the walk back.
      const void* quote = std::memchr(data + i, '"', size - i);
      if (quote == nullptr) {
        i = size;
        break;
      }
      const auto at = static_cast<std::size_t>(static_cast<const char*>(quote) - data);
      i = at + 1;
      std::size_t backslashes = 0;
      while (data[at - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) inString_ = false;
      continue;
    }
    const char c = data[i++];
    if (!kStructural[static_cast<unsigned char>(c)]) continue;
    if (c == '"') {
      inString_ = true;
    } else if (c == '{' || c == '[') {
      ++itemDepth_;
    } else if (--itemDepth_ == 0) {
      return itemEndsAt(i);
    }
  }
  itemScanned_ = dropped_ + i;
  return {};
}

std::string_view ListStreamSplitter::nextItem() {
  compact();
  auto stop = scanner_.scan(buffer_, dropped_);
  if (stop == api::json::ItemsScanner::Stop::NoArray) {
    stop = scanner_.scan(buffer_, dropped_);  // `"items":null`: the envelope goes on
  }
  keepEnvelope();
  switch (stop) {
    case api::json::ItemsScanner::Stop::Irregular:
      throw *scanner_.irregular();
    case api::json::ItemsScanner::Stop::Element:
      return cutItem();
    case api::json::ItemsScanner::Stop::NoArray:  // not twice: a second "items" is irregular
    case api::json::ItemsScanner::Stop::NeedBytes:
      break;
  }
  return {};
}

}  // namespace scheduling::informers

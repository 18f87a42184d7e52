#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scheduling::framework {

namespace string_words {

inline std::uint64_t load64(const char* p) noexcept {
  std::uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

inline std::uint32_t load32(const char* p) noexcept {
  std::uint32_t word;
  std::memcpy(&word, p, 4);
  return word;
}

// The bytes of a string of 1 to 8 bytes, in one word: loads that may overlap (the length
// disambiguates), instead of a variable-length memcpy, which is a library call.
inline std::uint64_t loadShort(const char* p, std::size_t n) noexcept {
  if (n >= 4) return load32(p) | (static_cast<std::uint64_t>(load32(p + n - 4)) << 32);
  if (n == 0) return 0;
  const auto byte = [p](std::size_t i) {
    return static_cast<std::uint64_t>(static_cast<unsigned char>(p[i]));
  };
  return byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16);
}

}  // namespace string_words

// A 64-bit hash for the short strings the request path looks up for every node sent: node
// names and label values (20 to 60 bytes). It reads eight bytes per step (the last step
// overlapping the one before) and mixes them with one 64×64→128-bit multiply, where
// std::hash<std::string_view> (libstdc++'s murmur2) spent more time per name than the rest
// of the lookup.
inline std::uint64_t hashString(std::string_view s) noexcept {
  __extension__ using Wide = unsigned __int128;
  constexpr std::uint64_t kSeed = 0xa0761d6478bd642fULL;
  constexpr std::uint64_t kMul = 0xe7037ed1a0b428dbULL;
  const auto mix = [](std::uint64_t a, std::uint64_t b) {
    const Wide product = static_cast<Wide>(a) * b;
    return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
  };
  const char* p = s.data();
  std::size_t n = s.size();
  std::uint64_t h = kSeed ^ n;
  if (n <= 8) return mix(h ^ string_words::loadShort(p, n), kMul);
  for (; n > 8; p += 8, n -= 8) h = mix(h ^ string_words::load64(p), kMul);
  return mix(h ^ string_words::load64(s.data() + s.size() - 8), kMul ^ kSeed);
}

// a == b, a word at a time (std::string_view's == calls memcmp).
inline bool equalStrings(std::string_view a, std::string_view b) noexcept {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  if (n <= 8) {
    return string_words::loadShort(a.data(), n) == string_words::loadShort(b.data(), n);
  }
  for (std::size_t i = 0; i + 8 < n; i += 8) {
    if (string_words::load64(a.data() + i) != string_words::load64(b.data() + i)) return false;
  }
  return string_words::load64(a.data() + n - 8) == string_words::load64(b.data() + n - 8);
}

// An append-only set of strings numbered densely in the order they were added: 0, 1, 2...
// The texts sit back to back in one buffer and the lookup table holds numbers and hash tags
// only, so a table of a few thousand node names or label values is a few flat arrays that
// copy with memcpy and are found in one probe sequence, usually one cache line.
class StringTable {
 public:
  static constexpr std::uint32_t kNotFound = std::numeric_limits<std::uint32_t>::max();

  std::uint32_t size() const { return static_cast<std::uint32_t>(offsets_.size() - 1); }
  std::string_view at(std::uint32_t id) const {
    return {text_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]};
  }

  // The number of `s`, or kNotFound.
  std::uint32_t find(std::string_view s) const { return find(s, hashString(s)); }
  // The numbers of `strings`, as find() gives them, into `ids` (as many). A request looks up
  // thousands of node names at once, in the order they were added or close to it: a string
  // numbered after the one before is confirmed by comparing bytes that follow the previous
  // ones. The others, which at 50,000 nodes are each a chain of dependent cache misses (the
  // probe's slot, the string's offset, its bytes), are looked up in batches that grow with
  // a run of them up to sixteen, one stage's misses of the whole batch in flight together.
  // `previous` is the number of the string looked up just before strings[0] (kNotFound:
  // none); the result is the last string's number, the `previous` of the strings after.
  std::uint32_t findAll(std::span<const std::string_view> strings, std::span<std::uint32_t> ids,
                        std::uint32_t previous = kNotFound) const;
  // The number of `s`, added first when absent.
  std::uint32_t intern(std::string_view s);

 private:
  // A slot holds the string's number plus one (0: empty) and the high half of its hash.
  static std::uint32_t idOf(std::uint64_t slot) { return static_cast<std::uint32_t>(slot) - 1; }
  static std::uint32_t tagOf(std::uint64_t hash) { return static_cast<std::uint32_t>(hash >> 32); }
  // The first string in the probe sequence of `hash` that carries its tag and that `accept`
  // takes, or kNotFound at the first empty slot.
  template <typename Accept>
  std::uint32_t probe(std::uint64_t hash, Accept accept) const;
  std::uint32_t find(std::string_view s, std::uint64_t hash) const;
  // The first string whose slot carries the tag of `hash`, without reading any text: nearly
  // always the one hashed, which find() then confirms.
  std::uint32_t candidate(std::uint64_t hash) const;
  static constexpr std::size_t kBatch = 16;
  void findBatch(std::span<const std::string_view> strings, std::span<std::uint32_t> ids) const;
  void insertSlot(std::uint32_t id, std::uint64_t hash);
  void grow();

  std::string text_;
  std::vector<std::uint32_t> offsets_{0};  // string i is text_[offsets_[i], offsets_[i + 1])
  std::vector<std::uint64_t> slots_;       // open addressing, linear probing; size 2^k
};

}  // namespace scheduling::framework

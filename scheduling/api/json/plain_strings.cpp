#include "scheduling/api/json/plain_strings.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "scheduling/api/json/string_bytes.hpp"

namespace scheduling::api::json {

namespace {

const char* skipSpace(const char* p, const char* end) {
  while (p != end && isJsonSpace(*p)) ++p;
  return p;
}

// How many strings a list whose first one spans [first, last) may hold, its end unknown: the
// rest of the bytes at that one's length and a separator each, which is right (to a few) for
// node names that are alike and the last member, as kube-scheduler sends them. Capped, for
// bodies where much follows the list: from there, the vector grows as vectors do. Growing it
// from nothing cost more than a tenth of the decoding.
std::size_t expectedCount(const char* first, const char* last, const char* end) {
  constexpr std::size_t kMostReserved = 1 << 16;
  const auto stride = static_cast<std::size_t>(last - first) + 1;
  return std::min(kMostReserved, static_cast<std::size_t>(end - first) / stride + 1);
}

// The plain string that `p` starts at (its opening quote), moving `p` past it; nothing, and
// `p` unmoved, when the string is not plain or `p` is not at a string.
std::optional<std::string_view> readPlainString(const char*& p, const char* end) {
  if (p == end || *p != '"') return std::nullopt;
  const char* const first = p + 1;
  const PlainRun run = plainRun(first, end);
  if (run.end == end || *run.end != '"') return std::nullopt;
  const std::string_view s(first, static_cast<std::size_t>(run.end - first));
  if (!run.ascii && !isValidUtf8(s)) return std::nullopt;
  p = run.end + 1;
  return s;
}

}  // namespace

PlainStrings readPlainStrings(std::string_view bytes) {
  const char* const begin = bytes.data();
  const char* const end = begin + bytes.size();
  const auto through = [begin](const char* last) {
    return static_cast<std::size_t>(last + 1 - begin);
  };
  const char* p = skipSpace(begin, end);
  if (p == end || *p != ':') return {};
  p = skipSpace(p + 1, end);
  if (end - p >= 4 && std::memcmp(p, "null", 4) == 0) return {through(p + 3), std::nullopt};
  if (p == end || *p != '[') return {};
  p = skipSpace(p + 1, end);
  std::vector<std::string_view> strings;
  if (p != end && *p == ']') return {through(p), std::move(strings)};
  for (;;) {
    const char* const first = p;
    const std::optional<std::string_view> s = readPlainString(p, end);
    if (!s) return {};
    if (strings.empty()) strings.reserve(expectedCount(first, p, end));
    strings.push_back(*s);
    // Nearly always the next string follows at once.
    if (end - p >= 2 && p[0] == ',' && p[1] == '"') {
      ++p;
      continue;
    }
    p = skipSpace(p, end);
    if (p == end) return {};
    if (*p == ']') return {through(p), std::move(strings)};
    if (*p != ',') return {};
    p = skipSpace(p + 1, end);
  }
}

std::size_t readPlainStringMap(std::string_view bytes, void* map,
                               void (*put)(void* map, std::string_view key,
                                           std::string_view value)) {
  const char* const begin = bytes.data();
  const char* const end = begin + bytes.size();
  const char* p = skipSpace(begin, end);
  if (p == end || *p != ':') return 0;
  p = skipSpace(p + 1, end);
  if (p == end || *p != '{') return 0;
  p = skipSpace(p + 1, end);
  if (p != end && *p == '}') return static_cast<std::size_t>(p + 1 - begin);
  for (;;) {
    const std::optional<std::string_view> key = readPlainString(p, end);
    if (!key) return 0;
    // Compact JSON, as API clients send it, has the colon and the value's quote at once.
    if (end - p >= 2 && p[0] == ':' && p[1] == '"') {
      ++p;
    } else {
      p = skipSpace(p, end);
      if (p == end || *p != ':') return 0;
      p = skipSpace(p + 1, end);
    }
    const std::optional<std::string_view> value = readPlainString(p, end);
    if (!value) return 0;
    put(map, *key, *value);
    if (end - p >= 2 && p[0] == ',' && p[1] == '"') {
      ++p;
      continue;
    }
    p = skipSpace(p, end);
    if (p == end) return 0;
    if (*p == '}') return static_cast<std::size_t>(p + 1 - begin);
    if (*p != ',') return 0;
    p = skipSpace(p + 1, end);
  }
}

}  // namespace scheduling::api::json

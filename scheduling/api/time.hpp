#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace scheduling::api {

// A *metav1.Time: absent, or whole seconds since the Unix epoch, the precision the API server
// writes (RFC 3339 without a fraction). Eight bytes for a member of every cached pod, where a
// string took 32 and a std::optional 16.
class OptionalTime {
 public:
  OptionalTime() = default;
  static OptionalTime fromUnixSeconds(std::int64_t seconds) { return OptionalTime(seconds); }

  bool has_value() const { return seconds_ != kAbsent; }
  // Only when has_value().
  std::int64_t unixSeconds() const { return seconds_; }
  bool operator==(const OptionalTime&) const = default;

 private:
  // No RFC 3339 time (years 0000 to 9999) comes near it.
  static constexpr std::int64_t kAbsent = std::numeric_limits<std::int64_t>::min();
  explicit OptionalTime(std::int64_t seconds) : seconds_(seconds) {}

  std::int64_t seconds_ = kAbsent;
};

// What metav1.Time's JSON decoding accepts (Go's time.Parse with time.RFC3339):
// `2024-05-01T10:00:00Z`, with an optional fraction of a second (dropped here) and `Z` or a
// numeric offset such as `+02:00`, every field in range. Seconds since the Unix epoch, or
// nullopt for anything else.
std::optional<std::int64_t> parseRfc3339(std::string_view text);

}  // namespace scheduling::api

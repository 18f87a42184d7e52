#include "scheduling/api/time.hpp"

#include <chrono>
#include <cstddef>

namespace scheduling::api {

namespace {

// The `digits` decimal digits at text[at], if they are all digits.
std::optional<int> number(std::string_view text, std::size_t at, std::size_t digits) {
  if (at + digits > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + digits; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool charAt(std::string_view text, std::size_t at, char c) {
  return at < text.size() && text[at] == c;
}

}  // namespace

std::optional<std::int64_t> parseRfc3339(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS, at fixed places.
  const auto year = number(text, 0, 4);
  const auto month = number(text, 5, 2);
  const auto day = number(text, 8, 2);
  const auto hour = number(text, 11, 2);
  const auto minute = number(text, 14, 2);
  const auto second = number(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || !charAt(text, 4, '-') ||
      !charAt(text, 7, '-') || !charAt(text, 10, 'T') || !charAt(text, 13, ':') ||
      !charAt(text, 16, ':')) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year(*year),
                                         std::chrono::month(static_cast<unsigned>(*month)),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;

  // A fraction of a second: a separator and at least one digit, as Go reads it.
  std::size_t at = 19;
  if (charAt(text, at, '.') || charAt(text, at, ',')) {
    const std::size_t digits = ++at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    if (at == digits) return std::nullopt;
  }

  std::int64_t offset = 0;
  if (charAt(text, at, 'Z')) {
    ++at;
  } else if (charAt(text, at, '+') || charAt(text, at, '-')) {
    const auto offsetHours = number(text, at + 1, 2);
    const auto offsetMinutes = number(text, at + 4, 2);
    if (!offsetHours || !offsetMinutes || !charAt(text, at + 3, ':') || *offsetHours > 23 ||
        *offsetMinutes > 59) {
      return std::nullopt;
    }
    offset = (*offsetHours * 60 + *offsetMinutes) * 60;
    if (text[at] == '-') offset = -offset;
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;

  const std::int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  return days * 86400 + (*hour * 60 + *minute) * 60 + *second - offset;
}

}  // namespace scheduling::api

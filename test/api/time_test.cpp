// RFC 3339 as metav1.Time's JSON reads it (Go's time.Parse with time.RFC3339), in seconds.
#include "scheduling/api/time.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace scheduling::api {
namespace {

struct Case {
  std::string text;
  std::optional<std::int64_t> want;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << '"' << c.text << '"'; }

const std::vector<Case> kCases = {
    {"1970-01-01T00:00:00Z", 0},
    {"2024-05-01T09:58:30Z", 1714557510},
    {"2024-05-01T11:58:30+02:00", 1714557510},
    {"2024-05-01T07:28:30-02:30", 1714557510},
    {"2024-05-01T09:58:30.999999999Z", 1714557510},  // the fraction is dropped
    {"2024-05-01T09:58:30,5Z", 1714557510},
    {"2024-02-29T00:00:00Z", 1709164800},
    {"1969-12-31T23:59:59Z", -1},
    {"0000-01-01T00:00:00Z", -62167219200},
    {"9999-12-31T23:59:59Z", 253402300799},
    // Not RFC 3339, or out of range.
    {"", std::nullopt},
    {"2024-05-01", std::nullopt},
    {"2024-05-01T09:58:30", std::nullopt},
    {"2024-05-01 09:58:30Z", std::nullopt},
    {"2024-05-01t09:58:30Z", std::nullopt},
    {"2024-05-01T09:58:30z", std::nullopt},
    {"2024-05-01T09:58:30.Z", std::nullopt},
    {"2024-05-01T09:58:30+0200", std::nullopt},
    {"2024-05-01T09:58:30+24:00", std::nullopt},
    {"2024-05-01T09:58:30Z ", std::nullopt},
    {"2023-02-29T00:00:00Z", std::nullopt},
    {"2024-13-01T00:00:00Z", std::nullopt},
    {"2024-00-01T00:00:00Z", std::nullopt},
    {"2024-05-00T00:00:00Z", std::nullopt},
    {"2024-05-01T24:00:00Z", std::nullopt},
    {"2024-05-01T09:60:00Z", std::nullopt},
    {"2024-05-01T09:58:60Z", std::nullopt},
    {"+2024-05-01T09:58:30Z", std::nullopt},
    {"2024-5-01T09:58:30Z", std::nullopt},
};

BOOST_AUTO_TEST_SUITE(api_time)

BOOST_DATA_TEST_CASE(ParsesAsMetav1Time, boost::unit_test::data::make(kCases), c) {
  const std::optional<std::int64_t> got = parseRfc3339(c.text);
  BOOST_TEST((got == c.want), "got " << (got ? std::to_string(*got) : "nothing"));
}

BOOST_AUTO_TEST_CASE(AbsentUntilSet) {
  BOOST_TEST(!OptionalTime().has_value());
  BOOST_TEST(OptionalTime::fromUnixSeconds(0).has_value());
  BOOST_TEST(OptionalTime::fromUnixSeconds(-1).unixSeconds() == -1);
  BOOST_TEST((OptionalTime() != OptionalTime::fromUnixSeconds(0)));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api

// The label-map fast path reads a map straight from the bytes only when it is sure: every
// entry, in order, and how far the value went; any doubt reads nothing. That it then agrees
// with the decode event by event is extender_codec_test's part.
#include "scheduling/api/json/plain_strings.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace scheduling::api::json {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

struct MapCase {
  std::string name;
  std::string bytes;  // what follows the member's name
  std::size_t taken;  // 0: left to the decode event by event
  Entries entries;    // what was put, in order, when taken
};

std::ostream& operator<<(std::ostream& os, const MapCase& c) { return os << c.name; }

void putEntry(void* map, std::string_view key, std::string_view value) {
  static_cast<Entries*>(map)->emplace_back(key, value);
}

const MapCase kMapCases[] = {
    {"compact", R"(:{"a":"1","b.io/c":""},"next":1)", 22, {{"a", "1"}, {"b.io/c", ""}}},
    {"empty", R"(:{})", 3, {}},
    {"empty with whitespace", ": \n{ \t}\r", 7, {}},
    {"whitespace around every token",
     " : { \"a\" :\n\"1\" , \"b\"\t:\"2\" } ",
     27,
     {{"a", "1"}, {"b", "2"}}},
    {"a duplicate key, in order", R"(:{"a":"1","a":"2"})", 18, {{"a", "1"}, {"a", "2"}}},
    {"non-ASCII", ":{\"k\xc3\xa9\":\"\xf0\x9f\x98\x80\"}", 15, {{"k\xc3\xa9", "\xf0\x9f\x98\x80"}}},
    {"a value longer than a step",
     R"(:{"k":"0123456789abcdef0123456789abcdef0"})",
     42,
     {{"k", "0123456789abcdef0123456789abcdef0"}}},
    // Left to the decode event by event.
    {"null", ":null", 0, {}},
    {"an array", R"(:["a"])", 0, {}},
    {"an escaped key", R"(:{"a\"b":"1"})", 0, {}},
    {"an escaped value", R"(:{"a":"\u00e9"})", 0, {}},
    {"invalid UTF-8", ":{\"a\":\"\xff\"}", 0, {}},
    {"a raw control character", ":{\"a\":\"\x01\"}", 0, {}},
    {"a number value", R"(:{"a":1})", 0, {}},
    {"a null value", R"(:{"a":null})", 0, {}},
    {"an object value", R"(:{"a":{}})", 0, {}},
    {"no colon", R"({"a":"1"})", 0, {}},
    {"no colon in an entry", R"(:{"a" "1"})", 0, {}},
    {"a trailing comma", R"(:{"a":"1",})", 0, {}},
    {"two commas", R"(:{"a":"1",,"b":"2"})", 0, {}},
    {"a bracket for a brace", R"(:{"a":"1"])", 0, {}},
    {"truncated after a value", R"(:{"a":"1")", 0, {}},
    {"truncated in a key", R"(:{"a)", 0, {}},
    {"truncated after the colon", R"(:{"a":)", 0, {}},
};

BOOST_AUTO_TEST_SUITE(api_plain_strings)

BOOST_DATA_TEST_CASE(ReadsPlainStringMapsOnly, boost::unit_test::data::make(kMapCases), c) {
  Entries entries;
  const std::size_t taken = readPlainStringMap(c.bytes, &entries, &putEntry);
  BOOST_TEST(taken == c.taken);
  if (taken > 0) BOOST_TEST((entries == c.entries));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api::json

#include "scheduling/framework/string_table.hpp"

#include <boost/test/unit_test.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace scheduling::framework {
namespace {

BOOST_AUTO_TEST_SUITE(StringTableTest)

BOOST_AUTO_TEST_CASE(NumbersStringsDenselyInInsertionOrder) {
  StringTable table;
  BOOST_TEST(table.size() == 0U);
  BOOST_TEST(table.find("a") == StringTable::kNotFound);
  BOOST_TEST(table.intern("zone-a") == 0U);
  BOOST_TEST(table.intern("") == 1U);  // the empty string is a value like any other
  BOOST_TEST(table.intern("zone-b") == 2U);
  BOOST_TEST(table.intern("zone-a") == 0U);
  BOOST_TEST(table.size() == 3U);
  BOOST_TEST(table.find("") == 1U);
  BOOST_TEST(table.find("zone-b") == 2U);
  BOOST_TEST(table.find("zone-c") == StringTable::kNotFound);
  BOOST_TEST(table.at(0) == "zone-a");
  BOOST_TEST(table.at(1) == "");
}

// Growth rehashes every string: each must still be found under its number, and strings that
// share long prefixes or differ only past the first eight bytes must stay apart.
BOOST_AUTO_TEST_CASE(FindsEveryStringAcrossGrowth) {
  StringTable table;
  std::vector<std::string> names;
  for (int i = 0; i < 20000; ++i) {
    names.push_back("ip-10-0-" + std::to_string(i / 256) + "-" + std::to_string(i % 256) +
                    ".eu-west-1.compute.internal");
    BOOST_REQUIRE(table.intern(names.back()) == static_cast<std::uint32_t>(i));
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    BOOST_REQUIRE(table.find(names[i]) == i);
    BOOST_REQUIRE(table.at(static_cast<std::uint32_t>(i)) == names[i]);
  }
  BOOST_TEST(table.find("ip-10-0-0-0.eu-west-1.compute.internaL") == StringTable::kNotFound);
  BOOST_TEST(table.find("ip-10-0-0-0") == StringTable::kNotFound);
}

// findAll answers as find does for each string, whatever their order: numbered one after the
// other (checked against the previous one's successor), out of order alone or in runs longer
// than a batch, absent, repeated, and after a `previous` from another call.
BOOST_AUTO_TEST_CASE(FindAllAnswersAsFind) {
  StringTable table;
  std::vector<std::string> names;
  for (int i = 0; i < 100; ++i) {
    names.push_back("node-" + std::to_string(i));
    table.intern(names.back());
  }
  const auto pick = [&names](std::initializer_list<int> positions) {
    std::vector<std::string> out;
    for (const int i : positions) out.push_back(i < 0 ? "absent-" + std::to_string(-i) : names[i]);
    return out;
  };
  std::vector<std::string> descending;
  for (int i = 99; i >= 0; --i) descending.push_back(names[i]);
  std::vector<std::string> scattered;
  for (int i = 0; i < 100; i += 7) scattered.push_back(names[(i * 13) % 100]);
  struct Case {
    const char* what;
    std::vector<std::string> strings;
    std::uint32_t previous;
  };
  const std::vector<Case> cases = {
      {"in order", pick({0, 1, 2, 3, 4, 5}), StringTable::kNotFound},
      {"in order after previous", pick({5, 6, 7}), 4},
      {"a gap", pick({0, 1, 3, 4, 9, 10}), StringTable::kNotFound},
      {"descending, runs past a batch", descending, StringTable::kNotFound},
      {"scattered", scattered, 50},
      {"absent among them", pick({3, -1, 4, -2, -3, 99, 0, -4}), StringTable::kNotFound},
      {"the last then the first", pick({98, 99, 0, 1}), 97},
      {"repeated", pick({7, 7, 7, 8, 8}), StringTable::kNotFound},
      {"nothing", {}, 3},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      const std::vector<std::string_view> views(c.strings.begin(), c.strings.end());
      std::vector<std::uint32_t> ids(views.size(), 12345);
      const std::uint32_t last = table.findAll(views, ids, c.previous);
      for (std::size_t i = 0; i < views.size(); ++i) {
        BOOST_TEST_CONTEXT(views[i]) { BOOST_TEST(ids[i] == table.find(views[i])); }
      }
      BOOST_TEST(last == (views.empty() ? c.previous : ids.back()));
    }
  }
  std::vector<std::uint32_t> ids(2, 0);
  const std::vector<std::string_view> two = {"node-0", "x"};
  StringTable().findAll(two, ids);
  BOOST_TEST(ids[0] == StringTable::kNotFound);
  BOOST_TEST(ids[1] == StringTable::kNotFound);
}

BOOST_AUTO_TEST_CASE(HashDependsOnEveryByteAndTheLength) {
  const std::string base = "node-0000000000000000";
  std::set<std::uint64_t> hashes{hashString(base)};
  for (std::size_t i = 0; i < base.size(); ++i) {
    std::string changed = base;
    changed[i] = 'x';
    hashes.insert(hashString(changed));
  }
  BOOST_TEST(hashes.size() == base.size() + 1);
  BOOST_TEST(hashString("a") != hashString(std::string_view("a\0", 2)));
  BOOST_TEST(hashString("") != hashString(std::string_view("\0", 1)));
}

// Every length around the word sizes, with one byte changed at every position (and bytes
// past 0x7f, which must not sign-extend into the comparison or the hash).
BOOST_AUTO_TEST_CASE(ComparesAndHashesEveryByteOfEveryLength) {
  for (std::size_t n = 0; n <= 40; ++n) {
    std::string a;
    for (std::size_t i = 0; i < n; ++i) a += static_cast<char>('a' + i % 26);
    BOOST_TEST_CONTEXT("length " << n) {
      BOOST_TEST(equalStrings(a, std::string(a)));
      BOOST_TEST(!equalStrings(a, a + "x"));
      for (std::size_t i = 0; i < n; ++i) {
        for (const char other : {'#', '\xe9'}) {
          std::string b = a;
          b[i] = other;
          BOOST_TEST(!equalStrings(a, b), "byte " << i);
          BOOST_TEST(hashString(a) != hashString(b), "byte " << i);
        }
      }
    }
  }
  BOOST_TEST(equalStrings("", ""));
  BOOST_TEST(equalStrings("\xff\xfe", "\xff\xfe"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::framework

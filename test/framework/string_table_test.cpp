#include "scheduling/framework/string_table.hpp"

#include <boost/test/unit_test.hpp>
#include <set>
#include <string>
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

// findNext answers as find does, whatever the string before: the next one, another one,
// nothing found before, or the last.
BOOST_AUTO_TEST_CASE(FindNextAnswersAsFind) {
  StringTable table;
  for (const char* s : {"n0", "n1", "n2", "n3"}) table.intern(s);
  struct Case {
    const char* name;
    std::uint32_t previous;
    std::uint32_t want;
  };
  const std::vector<Case> cases = {
      {"n0", StringTable::kNotFound, 0},
      {"n1", 0, 1},
      {"n3", 1, 3},
      {"n0", 3, 0},
      {"n2", 2, 2},
      {"x", 1, StringTable::kNotFound},
      {"n1", StringTable::kNotFound, 1},
      {"", 3, StringTable::kNotFound},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name << " after " << c.previous) {
      BOOST_TEST(table.findNext(c.name, c.previous) == c.want);
      BOOST_TEST(table.findNext(c.name, c.previous) == table.find(c.name));
    }
  }
  BOOST_TEST(StringTable().findNext("n0", StringTable::kNotFound) == StringTable::kNotFound);
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

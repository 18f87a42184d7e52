// Where the plain run of a JSON string ends, found many bytes at a time, must be where a byte
// by byte look finds it: for every special byte at every position around the 8- and 16-byte
// steps, with and without non-ASCII bytes before or after it.
#include "scheduling/api/json/string_bytes.hpp"

#include <boost/test/unit_test.hpp>
#include <random>
#include <string>

namespace scheduling::api::json {
namespace {

PlainRun bytewise(const std::string& s) {
  std::size_t i = 0;
  bool ascii = true;
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == '"' || c == '\\') break;
    if (c >= 0x80) ascii = false;
  }
  return {s.data() + i, ascii};
}

void checkRuns(const std::string& s) {
  const PlainRun want = bytewise(s);
  const char* end = s.data() + s.size();
  for (const PlainRun got : {plainRun(s.data(), end), detail::plainRunWords(s.data(), end)}) {
    BOOST_TEST_REQUIRE(got.end - s.data() == want.end - s.data());
    BOOST_TEST_REQUIRE(got.ascii == want.ascii);
  }
  BOOST_TEST_REQUIRE(findStringSpecial(s.data(), end) == want.end);
}

BOOST_AUTO_TEST_SUITE(api_string_bytes)

BOOST_AUTO_TEST_CASE(every_special_byte_at_every_position) {
  const std::string specials = std::string("\"\\\x1f\x01\n", 5) + std::string(1, '\0');
  for (std::size_t size = 0; size <= 40; ++size) {
    BOOST_TEST_CONTEXT("size " << size) {
      checkRuns(std::string(size, 'a'));
      checkRuns(std::string(size, '\xe9'));
      for (std::size_t at = 0; at < size; ++at) {
        for (const char special : specials) {
          std::string s(size, 'a');
          s[at] = special;
          checkRuns(s);
          // A non-ASCII byte just before the special one counts; one just after does not.
          if (at > 0) {
            std::string before = s;
            before[at - 1] = '\xc3';
            checkRuns(before);
          }
          if (at + 1 < size) {
            std::string after = s;
            after[at + 1] = '\xff';
            checkRuns(after);
          }
          // 0x20 and 0x7F are plain; 0x1F is not.
          std::string edges = s;
          if (at > 0) edges[at - 1] = '\x7f';
          if (at + 1 < size) edges[at + 1] = ' ';
          checkRuns(edges);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(seeded_random_bytes) {
  std::mt19937 random(11);
  for (int round = 0; round < 20000; ++round) {
    std::string s(random() % 70, ' ');
    for (char& c : s) {
      // Mostly plain bytes, so that runs are long enough to cross several steps.
      const unsigned r = random() % 64;
      c = r == 0 ? static_cast<char>(random() % 256) : static_cast<char>(0x20 + random() % 0x60);
      if (c == '"' || c == '\\') c = 'x';
    }
    if (!s.empty() && random() % 2 == 0) s[random() % s.size()] = "\"\\\x02"[random() % 3];
    checkRuns(s);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api::json

#include "scheduling/cache/chunked_array.hpp"

#include <boost/test/unit_test.hpp>
#include <utility>
#include <vector>

namespace scheduling::cache {
namespace {

namespace tt = boost::test_tools;
using Array = ChunkedArray<int>;
constexpr std::size_t kChunk = Array::kChunkSize;

Array numbered(std::size_t size) {
  std::vector<int> items(size);
  for (std::size_t i = 0; i < size; ++i) items[i] = static_cast<int>(i);
  return Array(std::move(items));
}

std::vector<int> contents(const Array& array) {
  std::vector<int> out;
  array.forEach([&](int item) { out.push_back(item); });
  return out;
}

BOOST_AUTO_TEST_SUITE(chunked_array)

// Sizes around chunk boundaries: every entry is where it was put, and nothing past size().
BOOST_AUTO_TEST_CASE(holds_its_items_in_order) {
  for (const std::size_t size :
       {std::size_t{0}, std::size_t{1}, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 7}) {
    const Array array = numbered(size);
    BOOST_TEST(array.size() == size);
    BOOST_TEST(array.empty() == (size == 0));
    std::vector<int> expected(size);
    for (std::size_t i = 0; i < size; ++i) expected[i] = static_cast<int>(i);
    BOOST_TEST(contents(array) == expected, tt::per_element());
  }
}

// The array a snapshot keeps is untouched by the next one's changes, and the two share
// every chunk no change falls in (the same addresses), which is what makes a publish cost
// the changed chunks rather than the array.
BOOST_AUTO_TEST_CASE(with_copies_only_the_chunks_it_changes) {
  const Array before = numbered(4 * kChunk);
  const std::vector<std::pair<std::size_t, int>> changes = {
      {kChunk + 3, -1}, {kChunk + 9, -2}, {3 * kChunk, -3}, {kChunk + 3, -4}};
  const Array after = before.with(changes);

  BOOST_TEST(after.size() == before.size());
  BOOST_TEST(after[kChunk + 3] == -4);  // the later change of an index wins
  BOOST_TEST(after[kChunk + 9] == -2);
  BOOST_TEST(after[3 * kChunk] == -3);
  BOOST_TEST(after[kChunk + 4] == static_cast<int>(kChunk + 4));
  BOOST_TEST(contents(before) == contents(numbered(4 * kChunk)), tt::per_element());

  BOOST_TEST(&after[0] == &before[0]);
  BOOST_TEST(&after[2 * kChunk + 1] == &before[2 * kChunk + 1]);
  BOOST_TEST(&after[kChunk] != &before[kChunk]);
  BOOST_TEST(&after[3 * kChunk + 5] != &before[3 * kChunk + 5]);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::cache

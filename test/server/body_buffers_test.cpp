#include "server/body_buffers.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

namespace server {
namespace {

BOOST_AUTO_TEST_SUITE(BodyBuffersTest)

// A body given back is handed out again for a request it can hold, without reallocating,
// at exactly the length asked; small bodies are not kept.
BOOST_AUTO_TEST_CASE(ReusesLargeBodies) {
  BodyBuffers buffers(/*keep=*/2, /*minBytes=*/1000);
  std::string first = buffers.take(4000);
  BOOST_TEST(first.size() == 4000u);
  const char* storage = first.data();
  buffers.giveBack(std::move(first));

  std::string again = buffers.take(3000);
  BOOST_TEST(again.size() == 3000u);
  BOOST_TEST(static_cast<const void*>(again.data()) == static_cast<const void*>(storage));

  buffers.giveBack(std::string(500, 'x'));  // below minBytes: freed
  std::string small = buffers.take(400);
  BOOST_TEST(small.size() == 400u);
  BOOST_TEST(static_cast<const void*>(small.data()) != static_cast<const void*>(storage));
}

// Full, the buffers keep the largest bodies, and each request takes the smallest that fits
// and is not more than twice its size.
BOOST_AUTO_TEST_CASE(KeepsTheLargestAndHandsOutTheSmallestThatFits) {
  BodyBuffers buffers(/*keep=*/2, /*minBytes=*/100);
  buffers.giveBack(std::string(1000, 'a'));
  buffers.giveBack(std::string(3000, 'b'));
  buffers.giveBack(std::string(2000, 'c'));  // replaces the 1000-byte one
  std::string taken = buffers.take(1500);
  BOOST_TEST(taken.capacity() >= 2000u);
  BOOST_TEST(taken.capacity() < 3000u);
  BOOST_TEST(taken.size() == 1500u);
  buffers.giveBack(std::move(taken));
  std::string tooSmallForThem = buffers.take(900);  // both spares are over twice its size
  BOOST_TEST(tooSmallForThem.capacity() < 2000u);
  std::string large = buffers.take(2500);
  BOOST_TEST(large.capacity() >= 3000u);
  BOOST_TEST(large.size() == 2500u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace server

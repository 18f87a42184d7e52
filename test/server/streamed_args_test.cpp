// The compute pool decodes a large ExtenderArgs body while the I/O thread reads it: the items
// must be decoded before the body is whole, the arguments must be the whole decode's, and a
// body whose connection drops mid-way must be freed once the pool is done with it.
#include "server/streamed_args.hpp"

#include <boost/asio/thread_pool.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "scheduling/api/json/extender_codec.hpp"
#include "test/testing/extender_args_decodes.hpp"
#include "test/testing/http_client.hpp"

namespace server {
namespace {

// The example /filter request with its Nodes items repeated `copies` times.
std::string manyNodesRequest(int copies, const std::string& lastItem = "") {
  const std::string example = testing::readSourceFile("examples/requests/filter-nodes.json");
  const std::size_t open = example.find("\"items\"");
  const std::size_t begin = example.find('[', open) + 1;
  const std::size_t end = example.rfind(']');
  BOOST_REQUIRE(open != std::string::npos && end > begin);
  const std::string items = example.substr(begin, end - begin);
  std::string body = example.substr(0, begin);
  for (int i = 0; i < copies; ++i) body += (i > 0 ? "," : "") + items;
  if (!lastItem.empty()) body += "," + lastItem;
  return body + example.substr(end);
}

std::size_t itemsOf(const std::string& body) {
  return scheduling::api::json::decodeExtenderArgs(body).nodes->size();
}

// Hands the body to `streamed` as it would arrive in reads of `read` bytes, all but its last
// byte, the way HttpSession does.
void arriveAllButTheLastByte(StreamedArgs& streamed, std::size_t size, std::size_t read) {
  for (std::size_t at = read; at < size; at += read) streamed.arrived(at);
  streamed.arrived(size - 1);
}

// Stops the pool as the session does once the body is whole, then finishes: what differs
// from decoding the body whole, empty when nothing does.
std::string finishDiffersFromTheWholeDecode(StreamedArgs& streamed, const std::string& body) {
  streamed.stop();
  const auto got = testing::decodeArgs([&] { return streamed.finish(body); });
  const auto whole =
      testing::decodeArgs([&] { return scheduling::api::json::decodeExtenderArgs(body); });
  return testing::decodeDifference(got, whole);
}

bool waitFor(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

BOOST_AUTO_TEST_SUITE(streamed_args)

BOOST_AUTO_TEST_CASE(the_pool_decodes_the_items_before_the_body_is_whole) {
  boost::asio::thread_pool pool(2);
  auto body = std::make_shared<std::string>(manyNodesRequest(400));
  auto streamed = std::make_shared<StreamedArgs>(pool, body);
  arriveAllButTheLastByte(*streamed, body->size(), 64 * 1024);
  // The last item ends before the last byte (the body's closing braces follow it).
  const std::size_t items = itemsOf(*body);
  BOOST_TEST_REQUIRE(waitFor([&] { return streamed->streamedNodes() == items; }),
                     streamed->streamedNodes() << " of " << items << " items decoded early");
  BOOST_TEST(finishDiffersFromTheWholeDecode(*streamed, *body) == "");
  pool.join();
}

// Whatever the pool had reached when the body was whole, finish() gives the whole decode:
// the answer, or for a bad item the same error.
BOOST_AUTO_TEST_CASE(finish_gives_the_whole_decode_wherever_the_pool_was) {
  boost::asio::thread_pool pool(2);
  for (const std::string& lastItem : {std::string(), std::string(R"({"metadata":{"name":7}})")}) {
    const std::string text = manyNodesRequest(200, lastItem);
    for (const std::size_t read : {std::size_t{1} << 10, std::size_t{200} << 10}) {
      BOOST_TEST_CONTEXT("last item " << (lastItem.empty() ? "regular" : lastItem) << ", reads of "
                                      << read << " bytes") {
        auto body = std::make_shared<std::string>(text);
        auto streamed = std::make_shared<StreamedArgs>(pool, body);
        arriveAllButTheLastByte(*streamed, body->size(), read);
        BOOST_TEST(finishDiffersFromTheWholeDecode(*streamed, *body) == "");
      }
    }
  }
  pool.join();
}

// A connection dropped mid-body lets go of the body and of the decoding at once; the pool
// may still be decoding it, so the bytes must live until it has stopped, and no longer.
BOOST_AUTO_TEST_CASE(a_body_dropped_mid_way_lives_until_the_pool_lets_go) {
  boost::asio::thread_pool pool(2);
  auto body = std::make_shared<std::string>(manyNodesRequest(400));
  const std::weak_ptr<std::string> watched = body;
  auto streamed = std::make_shared<StreamedArgs>(pool, body);
  streamed->arrived(body->size() / 2);
  body.reset();
  streamed.reset();
  pool.join();
  BOOST_TEST(watched.expired());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace server

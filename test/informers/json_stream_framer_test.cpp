#include "scheduling/informers/json_stream_framer.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(json_stream_framer)

// Whatever the read boundaries, the same events come out: every split point of a stream
// whose strings hold braces, brackets, escaped quotes and backslashes.
BOOST_AUTO_TEST_CASE(events_are_found_whatever_the_read_boundaries) {
  const std::vector<std::string> events = {
      R"({"type":"ADDED","object":{"metadata":{"name":"a}"}}})",
      R"({"type":"MODIFIED","object":{"x":"q\"{[","y":[1,{"z":"\\"}]}})",
      R"({"type":"BOOKMARK","object":{}})",
  };
  std::string stream;
  for (const auto& event : events) stream += event + "\n";
  for (std::size_t split = 0; split <= stream.size(); ++split) {
    scheduling::informers::JsonStreamFramer framer;
    std::vector<std::string> out;
    const auto drain = [&] {
      for (auto text = framer.next(); !text.empty(); text = framer.next()) {
        out.emplace_back(text);
      }
    };
    framer.append(std::string_view(stream).substr(0, split));
    drain();
    framer.append(std::string_view(stream).substr(split));
    drain();
    BOOST_TEST(out == events, "split at " << split);
    BOOST_TEST(framer.pending() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(a_partial_event_stays_pending) {
  scheduling::informers::JsonStreamFramer framer;
  framer.append(R"({"type":"ADDED","object":{"a")");
  BOOST_TEST(framer.next().empty());
  BOOST_TEST(framer.pending() > 0u);
  framer.append(R"(:1}})");
  BOOST_TEST(framer.next() == R"({"type":"ADDED","object":{"a":1}})");
}

BOOST_AUTO_TEST_SUITE_END()

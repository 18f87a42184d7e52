#include "scheduling/informers/list_stream_splitter.hpp"

#include <boost/test/unit_test.hpp>
#include <random>
#include <string>
#include <vector>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/api_server_codec.hpp"

namespace list_stream_splitter_test {

using scheduling::informers::ListStreamSplitter;

// A list whose strings hold braces, brackets, escaped quotes and backslashes, whose metadata
// comes on both sides of the items, and with a top-level member that merely mentions items.
const std::vector<std::string> kItems = {
    R"({"metadata":{"name":"a}","labels":{"k":"v]"}},"spec":{"x":[1,{"y":"\"{"}]}})",
    R"({"metadata":{"name":"b\\"},"status":{}})",
    R"({})",
    // Strings and runs between them longer than the 16 bytes the cutter looks at a step.
    R"({"metadata":{"annotations":{"note":"a long value with \"{quoted}\" [brackets] and a )"
    R"(backslash \\ well past sixteen bytes","k":"\\"}},"spec":{"containers":[{"args":)"
    R"([[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]],"image":"registry.example.com/team/app:v1.2.3"}]}})",
};
const std::string kList = R"({"kind":"PodList","apiVersion":"v1","note":"\"items\":[{}]",)"
                          R"("metadata":{"resourceVersion":"812"},)"
                          "\n\"items\" : [\n  " +
                          kItems[0] + ",\n  " + kItems[1] + " , " + kItems[2] + "," + kItems[3] +
                          R"(],"extra":{"items":[{"z":1}]},"metadata2":null})";

struct Split {
  std::vector<std::string> items;
  std::string envelope;
  bool complete = false;
};

Split splitIn(const std::vector<std::string_view>& reads) {
  ListStreamSplitter splitter;
  Split out;
  for (const auto read : reads) {
    splitter.append(read);
    for (auto item = splitter.nextItem(); !item.empty(); item = splitter.nextItem()) {
      out.items.emplace_back(item);
    }
  }
  out.envelope = splitter.envelope();
  out.complete = splitter.complete();
  return out;
}

// Random items: strings of up to 150 bytes full of brackets, quotes and runs of backslashes
// (escaped), nested objects and arrays, so that the cutter's 64-byte blocks meet every
// state: a string open across a block, an escape at a block's edge, an item ending mid-block.
class RandomItems {
 public:
  explicit RandomItems(unsigned seed) : random_(seed) {}

  std::string item() { return object(0); }

 private:
  int uniform(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }

  std::string string() {
    static constexpr std::string_view kBytes = "ab{}[]\",:\\ x";
    std::string out = "\"";
    for (int n = uniform(4) == 0 ? uniform(150) : uniform(12); n > 0; --n) {
      const char c = kBytes[static_cast<std::size_t>(uniform(static_cast<int>(kBytes.size())))];
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + '"';
  }

  std::string value(int depth) {
    switch (depth < 6 ? uniform(5) : uniform(2)) {
      case 0:
        return string();
      case 1:
        return std::to_string(uniform(100000));
      case 2:
      case 3:
        return object(depth + 1);
      default: {
        std::string out = "[";
        for (int n = uniform(4); n > 0; --n) out += value(depth + 1) + (n > 1 ? "," : "");
        return out + "]";
      }
    }
  }

  std::string object(int depth) {
    std::string out = "{";
    for (int n = uniform(5); n > 0; --n) out += string() + ":" + value(depth) + (n > 1 ? "," : "");
    return out + "}";
  }

  std::mt19937 random_;
};

}  // namespace list_stream_splitter_test

using namespace list_stream_splitter_test;

BOOST_AUTO_TEST_SUITE(list_stream_splitter)

// Whatever the read boundaries, the same items come out and the envelope is the list
// without them, which still decodes to the list's metadata.
BOOST_AUTO_TEST_CASE(items_are_found_whatever_the_read_boundaries) {
  for (std::size_t split = 0; split <= kList.size(); ++split) {
    const std::string_view list(kList);
    const auto out = splitIn({list.substr(0, split), list.substr(split)});
    BOOST_TEST(out.items == kItems, "split at " << split);
    BOOST_TEST(out.complete);
    BOOST_TEST(out.envelope.find("a}") == std::string::npos);
    BOOST_TEST(scheduling::api::json::decodeListMeta(out.envelope).resourceVersion == "812");
  }
}

BOOST_AUTO_TEST_CASE(random_items_are_cut_where_they_end) {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    RandomItems random(seed);
    std::vector<std::string> items;
    std::string list = R"({"metadata":{"resourceVersion":"1"},"items":[)";
    for (int i = 0; i < 30; ++i) {
      items.push_back(random.item());
      list += (i > 0 ? "," : "") + items.back();
    }
    list += "]}";
    // Whole, then in reads of 1 to 200 bytes.
    BOOST_TEST(splitIn({list}).items == items, "seed " << seed << ", whole");
    std::mt19937 cuts(seed);
    std::vector<std::string_view> reads;
    for (std::size_t at = 0; at < list.size();) {
      const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 200)(cuts);
      reads.push_back(std::string_view(list).substr(at, n));
      at += n;
    }
    BOOST_TEST(splitIn(reads).items == items, "seed " << seed << ", in reads");
  }
}

BOOST_AUTO_TEST_CASE(one_byte_at_a_time) {
  std::vector<std::string_view> reads;
  for (std::size_t i = 0; i < kList.size(); ++i)
    reads.push_back(std::string_view(kList).substr(i, 1));
  const auto out = splitIn(reads);
  BOOST_TEST(out.items == kItems);
  BOOST_TEST(out.complete);
}

BOOST_AUTO_TEST_CASE(a_truncated_answer_is_not_complete) {
  const auto out = splitIn({std::string_view(kList).substr(0, kList.size() - 5)});
  BOOST_TEST(out.items == kItems);
  BOOST_TEST(!out.complete);
}

BOOST_AUTO_TEST_CASE(an_empty_or_null_items_list_has_no_items) {
  BOOST_TEST(splitIn({R"({"items":[],"metadata":{"resourceVersion":"1"}})"}).items.empty());
  const auto null = splitIn({R"({"items":null,"metadata":{"resourceVersion":"1"}})"});
  BOOST_TEST(null.items.empty());
  BOOST_TEST(null.complete);
}

BOOST_AUTO_TEST_CASE(an_item_that_is_not_an_object_is_named) {
  ListStreamSplitter splitter;
  splitter.append(R"({"items":[{"a":1}, 7]})");
  BOOST_TEST(!splitter.nextItem().empty());
  try {
    splitter.nextItem();
    BOOST_FAIL("accepted a number as an item");
  } catch (const scheduling::api::DecodeError& e) {
    BOOST_TEST(e.path() == "items[1]");
  }
}

// A list whose items could be read more than one way is refused rather than half read.
BOOST_AUTO_TEST_CASE(an_ambiguous_list_is_refused) {
  for (const std::string list :
       {R"({"items":[{"a":1}],"items":[]})", R"({"\u0069tems":[{"a":1}],"items":[]})",
        R"({"items":{"a":1}})", R"({"items":[{"a":1},]})", R"({"items":[{"a":1} {"b":2}]})",
        R"([{"items":[]}])"}) {
    BOOST_TEST_CONTEXT(list) {
      ListStreamSplitter splitter;
      splitter.append(list);
      BOOST_CHECK_THROW(
          {
            while (!splitter.nextItem().empty()) {
            }
          },
          scheduling::api::DecodeError);
    }
  }
}

// Something that is not a list (an HTML error page, say) cannot make the envelope grow
// without bound.
BOOST_AUTO_TEST_CASE(the_envelope_is_bounded) {
  ListStreamSplitter splitter;
  const std::string junk(64 * 1024, 'x');
  BOOST_CHECK_THROW(
      {
        for (int i = 0; i < 32; ++i) {
          splitter.append(junk);
          splitter.nextItem();
        }
      },
      scheduling::api::DecodeError);
}

BOOST_AUTO_TEST_SUITE_END()

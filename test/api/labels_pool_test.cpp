#include "scheduling/api/labels_pool.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>

namespace scheduling::api {
namespace {

// A set as the decoder builds it: entry by entry, then shrunk.
Labels decoded(const std::string& app, const std::string& hash) {
  Labels labels;
  labels.set("app", app);
  labels.set("pod-template-hash", hash);
  labels.set("tier", "web");
  labels.shrinkToFit();
  return labels;
}

// Where the set keeps the value of `key`: as an address, which Boost.Test compares as one
// (a char pointer it would read as a C string).
const void* bufferOf(const Labels& labels, std::string_view key) {
  return labels.get(key)->data();
}

BOOST_AUTO_TEST_SUITE(LabelsPoolTest)

// Equal sets end up on one buffer (their views point at the same bytes); unequal ones keep
// their own; and a pooled set modified later gets its own buffer, the others unchanged.
BOOST_AUTO_TEST_CASE(EqualSetsShareOneBuffer) {
  LabelsPool pool;
  Labels a = decoded("shop", "5d8f");
  Labels b = decoded("shop", "5d8f");
  Labels c = decoded("shop", "77aa");
  BOOST_TEST(bufferOf(a, "app") != bufferOf(b, "app"));
  pool.share(a);
  pool.share(b);
  pool.share(c);
  BOOST_TEST(bufferOf(a, "app") == bufferOf(b, "app"));
  BOOST_TEST(bufferOf(c, "app") != bufferOf(a, "app"));
  BOOST_TEST((c == decoded("shop", "77aa")));

  b.set("tier", "db");
  BOOST_TEST(*a.get("tier") == "web");
  BOOST_TEST(*b.get("tier") == "db");
  BOOST_TEST((a == decoded("shop", "5d8f")));
}

// A pooled set that only one holder holds is still copied before it changes: the pool may
// hand it to another thread (a pod decoded there) while it is being written.
BOOST_AUTO_TEST_CASE(APooledSetIsNeverWrittenInPlace) {
  LabelsPool pool;
  Labels a;  // not shrunk: room to grow in place
  a.set("app", "shop");
  const void* own = bufferOf(a, "app");
  a.set("tier", "web");
  BOOST_TEST(bufferOf(a, "app") == own);  // written in place while nobody else knows it

  pool.share(a);  // a's storage is the pool's entry now, and a its one holder
  const void* pooled = bufferOf(a, "app");
  a.set("zone", "z1");
  BOOST_TEST(bufferOf(a, "app") != pooled);
  BOOST_TEST(*a.get("zone") == "z1");
}

// The empty set has no buffer to share and is left as it is.
BOOST_AUTO_TEST_CASE(EmptySetStaysEmpty) {
  LabelsPool pool;
  Labels empty;
  pool.share(empty);
  BOOST_TEST(empty.empty());
  BOOST_TEST(pool.size() == 0U);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api

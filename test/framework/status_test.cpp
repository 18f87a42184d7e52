#include "scheduling/framework/status.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace scheduling::framework {
namespace {

constexpr std::string_view kConstantReason = "node(s) didn't match pod affinity rules";

// A status however it was built: what it says must not depend on how its reasons are held.
struct ReasonsCase {
  std::string name;
  Status status;
  std::vector<std::string_view> wantReasons;
  std::string wantMessage;
};
std::ostream& operator<<(std::ostream& out, const ReasonsCase& c) { return out << c.name; }

const std::vector<ReasonsCase> kReasonsCases = {
    {"success has no reasons", Status(), {}, ""},
    {"a static reason is the only reason",
     Status(Code::Unschedulable, StaticReason{kConstantReason}),
     {kConstantReason},
     std::string(kConstantReason)},
    {"an owned reason",
     Status(Code::Unschedulable, std::string("parsing pod: bad")),
     {"parsing pod: bad"},
     "parsing pod: bad"},
    {"owned reasons are joined with a comma",
     Status(Code::Unschedulable, std::vector<std::string>{"a", "b", "c"}),
     {"a", "b", "c"},
     "a, b, c"},
};

BOOST_AUTO_TEST_SUITE(StatusTest)

BOOST_DATA_TEST_CASE(ReasonsAndMessage, boost::unit_test::data::make(kReasonsCases), c) {
  BOOST_TEST(c.status.reasons() == c.wantReasons, boost::test_tools::per_element());
  BOOST_TEST(c.status.message() == c.wantMessage);
}

BOOST_AUTO_TEST_CASE(EqualityComparesTheTextNotHowItIsHeld) {
  const Status viewed(Code::Unschedulable, StaticReason{kConstantReason});
  const Status owned(Code::Unschedulable, std::string(kConstantReason));
  BOOST_TEST((viewed == owned));
  BOOST_TEST(
      !(viewed == Status(Code::UnschedulableAndUnresolvable, StaticReason{kConstantReason})));
  BOOST_TEST(!(viewed == Status(Code::Unschedulable, std::string("other"))));
}

BOOST_AUTO_TEST_CASE(TheReasonSurvivesCopiesAndMoves) {
  Status original(Code::Unschedulable, StaticReason{kConstantReason});
  original.withPlugin("InterPodAffinity");
  const Status copy = original;
  const Status moved = std::move(original);
  for (const Status* s : {&copy, &moved}) {
    BOOST_TEST(s->message() == kConstantReason);
    BOOST_TEST(s->plugin() == "InterPodAffinity");
    BOOST_TEST(s->isRejected());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::framework

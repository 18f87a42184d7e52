#include "scheduling/scheduler/sampling.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>

namespace scheduling {
namespace {

struct Case {
  std::string name;
  std::int32_t percentage;  // the profile's percentageOfNodesToScore (0 = adaptive)
  std::int32_t numAllNodes;
  std::int32_t want;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

// Upstream schedule_one_test.go TestNumFeasibleNodesToFind. Upstream distinguishes a global
// and a per-profile percentage; the extender has one (the profile's), so each case below
// carries the percentage that wins upstream.
const Case kCases[] = {
    {"not set percentageOfNodesToScore and nodes number not more than 50", 0, 10, 10},
    {"set profile percentageOfNodesToScore and nodes number not more than 50", 40, 10, 10},
    {"not set percentageOfNodesToScore and nodes number more than 50", 0, 1000, 420},
    {"set profile percentageOfNodesToScore and nodes number more than 50", 40, 1000, 400},
    {"set global and profile percentageOfNodesToScore and nodes number more than 50", 70, 1000,
     700},
    {"set global percentageOfNodesToScore and nodes number more than 50", 40, 1000, 400},
    {"not set profile percentageOfNodesToScore and nodes number more than 50*125", 0, 6000, 300},
    {"set profile percentageOfNodesToScore and nodes number more than 50*125", 40, 6000, 2400},
    // The worked values of the adaptive formula.
    {"adaptive 99 nodes", 0, 99, 99},
    {"adaptive 100 nodes clamps to the minimum", 0, 100, 100},
    {"adaptive 500 nodes", 0, 500, 230},
    {"adaptive 5000 nodes", 0, 5000, 500},
    {"adaptive 5625 nodes hits the 5% floor", 0, 5625, 281},
    {"adaptive 15000 nodes", 0, 15000, 750},
    {"100 percent keeps every node", 100, 5000, 5000},
    {"a small percentage never goes below 100 nodes", 1, 5000, 100},
};

BOOST_AUTO_TEST_SUITE(sampling)

BOOST_DATA_TEST_CASE(NumFeasibleNodesToFind, boost::unit_test::data::make(kCases), c) {
  BOOST_TEST(numFeasibleNodesToFind(c.percentage, c.numAllNodes) == c.want);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling

// Replays every fuzz target over its seeds (the examples/) and over every input kept in
// test/fuzz/regressions/<target>/, so a past finding stays fixed in the normal suite.
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <vector>

#include "test/fuzz/targets.hpp"

namespace {

namespace fs = std::filesystem;

// Seeds from examples/, per target; regressions/ adds to them.
const std::map<std::string_view, std::vector<std::string>> kSeeds = {
    {"extender_args",
     {"examples/requests/filter-names.json", "examples/requests/filter-nodes.json",
      "examples/requests/prioritize-names.json", "examples/requests/prioritize-nodes.json",
      "test/fuzz/seeds/extender_args_node_names.json"}},
    {"extender_preemption_args", {"examples/requests/preempt-meta.json"}},
    {"cluster_state_list", {"examples/cluster-state.json"}},
    {"configuration", {"examples/config.yaml"}},
    {"watch_stream", {"test/fuzz/seeds/watch_stream.json"}},
};

std::vector<fs::path> inputsOf(std::string_view target) {
  const fs::path root(SX_SOURCE_DIR);
  std::vector<fs::path> inputs;
  for (const auto& seed : kSeeds.at(target)) inputs.push_back(root / seed);
  const fs::path regressions = root / "test/fuzz/regressions" / target;
  if (fs::exists(regressions)) {
    for (const auto& entry : fs::directory_iterator(regressions)) inputs.push_back(entry.path());
  }
  return inputs;
}

std::string contentOf(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

namespace fuzz {
std::ostream& operator<<(std::ostream& out, const Target& t) { return out << t.name; }
}  // namespace fuzz

BOOST_AUTO_TEST_SUITE(fuzz_regressions)

BOOST_DATA_TEST_CASE(replays_seeds_and_findings, boost::unit_test::data::make(fuzz::kTargets),
                     target) {
  const auto inputs = inputsOf(target.name);
  BOOST_TEST(!inputs.empty());
  for (const auto& path : inputs) {
    const std::string bytes = contentOf(path);
    BOOST_TEST_CONTEXT(path.filename().string()) {
      BOOST_TEST(!bytes.empty());
      BOOST_CHECK_NO_THROW(
          target.run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

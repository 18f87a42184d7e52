#include "scheduling/framework/runtime/framework.hpp"

#include <atomic>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <map>
#include <ostream>

#include "test/testing/fake_lister.hpp"
#include "test/testing/status.hpp"
#include "test/testing/wrappers.hpp"

namespace scheduling::framework::runtime {
namespace {

using ::testing::describe;
using ::testing::MakeNode;
using ::testing::MakePod;

// A filter plugin whose answers the test sets. Its Filter rejects a node that holds a pod
// labelled `blocker=<its name>`, so nominated pods added by AddPod can make it fail; AddPod
// and RemovePod count their calls and return `addPodStatus`. What it says of itself to let
// the runtime skip pass 1 (addPodLeavesState, readsNodePods) is set by the test too.
class FakeFilter final : public PreFilterPlugin, public FilterPlugin, public PreFilterExtensions {
 public:
  explicit FakeFilter(std::string name) : name_(std::move(name)) {}

  std::string_view name() const override { return name_; }
  Status preFilter(CycleState&, const PodInfo&, std::span<const NodeInfo* const>) const override {
    ++preFilterCalls;
    return preFilterStatus;
  }
  const PreFilterExtensions* preFilterExtensions() const override { return this; }
  Status addPod(CycleState&, const PodInfo&, const PodInfo&, const NodeInfo&) const override {
    ++addPodCalls;
    return addPodStatus;
  }
  Status removePod(CycleState&, const PodInfo&, const PodInfo&, const NodeInfo&) const override {
    return {};
  }
  bool nominatedPodLeavesStateUnchanged(const CycleState&, const PodInfo&, const PodInfo&,
                                        const NodeInfo&) const override {
    return addPodLeavesState;
  }
  bool filterReadsNodePods() const override { return readsNodePods; }
  Status filter(const CycleState&, const PodInfo&, const NodeInfo& node) const override {
    ++filterCalls;
    for (const auto& pod : node.pods()) {
      const auto blocker = pod->pod().metadata.labels.get("blocker");
      if (blocker.has_value() && *blocker == name_) {
        return Status(Code::Unschedulable, "blocked by " + pod->pod().metadata.name);
      }
    }
    return filterStatus;
  }

  Status preFilterStatus;
  Status filterStatus;
  Status addPodStatus;
  bool addPodLeavesState = false;
  bool readsNodePods = true;
  mutable std::atomic<int> preFilterCalls{0};
  mutable std::atomic<int> filterCalls{0};
  mutable std::atomic<int> addPodCalls{0};

 private:
  std::string name_;
};

// A score plugin with set raw scores per node, an optional PreScore answer and an optional
// normalisation offset (to push scores out of range).
class FakeScore final : public PreScorePlugin, public ScorePlugin, public ScoreExtensions {
 public:
  explicit FakeScore(std::string name) : name_(std::move(name)) {}

  std::string_view name() const override { return name_; }
  Status preScore(CycleState&, const PodInfo&, std::span<const NodeInfo* const>) const override {
    return preScoreStatus;
  }
  Status score(const CycleState&, const PodInfo&, const NodeInfo& node,
               std::int64_t& score) const override {
    score = raw.count(node.name()) != 0 ? raw.at(node.name()) : 0;
    return scoreStatus;
  }
  const ScoreExtensions* scoreExtensions() const override { return this; }
  Status normalizeScore(const CycleState&, const PodInfo&,
                        std::span<NodeScore> scores) const override {
    for (auto& s : scores) s.score += normalizeOffset;
    return {};
  }

  Status preScoreStatus;
  Status scoreStatus;
  std::map<std::string, std::int64_t> raw;
  std::int64_t normalizeOffset = 0;

 private:
  std::string name_;
};

// Plugins built by the test, registered by name so a Configuration can pick them.
struct Plugins {
  std::map<std::string, std::shared_ptr<Plugin>> byName;

  template <typename T>
  T& add(const std::string& name) {
    auto plugin = std::make_shared<T>(name);
    byName[name] = plugin;
    return *plugin;
  }

  Registry registry() const {
    Registry r;
    for (const auto& [name, plugin] : byName) {
      // An init-capture: clang 14 cannot capture a structured binding by name.
      r.add(name, [shared = plugin](const YAML::Node&, const std::string&) { return shared; });
    }
    return r;
  }

  Framework framework(std::vector<std::string> filter,
                      std::vector<config::PluginRef> score = {}) const {
    config::Configuration c;
    c.parallelism = 4;
    for (auto& name : filter) c.filter.push_back({std::move(name), 0});
    c.score = std::move(score);
    return Framework(c, registry());
  }
};

std::shared_ptr<const ::testing::FakeLister> oneNode(std::vector<api::Pod> pods = {}) {
  return ::testing::FakeLister::make({MakeNode().name("node1").obj()}, std::move(pods));
}

const api::Pod kPod = MakePod().name("p").ns("default").uid("p").priority(10).obj();

}  // namespace

BOOST_AUTO_TEST_SUITE(framework_runtime)

struct PreFilterCase {
  std::string name;
  Status a, b;  // PreFilter answers of plugins A and B, run in that order
  std::string want;
  std::string wantPlugin;
  int wantCallsOfB;
};
std::ostream& operator<<(std::ostream& out, const PreFilterCase& c) { return out << c.name; }

const std::vector<PreFilterCase> kPreFilterCases = {
    {"all succeed", {}, {}, "Success", "", 1},
    {"unschedulable keeps running the others",
     Status(Code::Unschedulable, "no"),
     {},
     "Unschedulable: no",
     "A",
     1},
    {"unresolvable stops at once",
     Status(Code::UnschedulableAndUnresolvable, "never"),
     {},
     "UnschedulableAndUnresolvable: never",
     "A",
     0},
    {"unresolvable after unschedulable wins", Status(Code::Unschedulable, "no"),
     Status(Code::UnschedulableAndUnresolvable, "never"), "UnschedulableAndUnresolvable: never",
     "B", 1},
    {"an error is wrapped with the plugin name",
     Status::error("boom"),
     {},
     "Error: running PreFilter plugin \"A\": boom",
     "A",
     0},
    {"skip is not a failure", Status(Code::Skip), {}, "Success", "", 1},
};

BOOST_DATA_TEST_CASE(TestRunPreFilterPlugins, boost::unit_test::data::make(kPreFilterCases), c) {
  Plugins plugins;
  plugins.add<FakeFilter>("A").preFilterStatus = c.a;
  auto& b = plugins.add<FakeFilter>("B");
  b.preFilterStatus = c.b;
  const Framework fw = plugins.framework({"A", "B"});
  const auto lister = oneNode();
  CycleState state(lister);
  const Status s = fw.runPreFilterPlugins(state, ::testing::podInfo(kPod), lister->nodeInfoList());
  BOOST_TEST(describe(s) == c.want);
  BOOST_TEST(s.plugin() == c.wantPlugin);
  BOOST_TEST(b.preFilterCalls.load() == c.wantCallsOfB);
}

BOOST_AUTO_TEST_CASE(prefilter_skip_skips_the_plugins_filter) {
  Plugins plugins;
  auto& a = plugins.add<FakeFilter>("A");
  a.preFilterStatus = Status(Code::Skip);
  a.filterStatus = Status(Code::Unschedulable, "would reject");
  const Framework fw = plugins.framework({"A"});
  const auto lister = oneNode();
  CycleState state(lister);
  const PodInfo pod = ::testing::podInfo(kPod);
  BOOST_TEST(fw.runPreFilterPlugins(state, pod, lister->nodeInfoList()).isSuccess());
  FilterTrace trace;
  BOOST_TEST(fw.runFilterPlugins(state, pod, *lister->nodeInfoList()[0], &trace).isSuccess());
  BOOST_TEST(a.filterCalls.load() == 0);
  BOOST_REQUIRE(trace.size() == 1u);
  BOOST_TEST(trace[0].first == "A");
  BOOST_TEST(describe(trace[0].second) == "Skip");
}

struct FilterCase {
  std::string name;
  Status a, b;  // Filter answers of A and B, in that order
  std::string want;
  std::string wantPlugin;
  int wantCallsOfB;
};
std::ostream& operator<<(std::ostream& out, const FilterCase& c) { return out << c.name; }

const std::vector<FilterCase> kFilterCases = {
    {"all succeed", {}, {}, "Success", "", 1},
    {"the first rejection stops",
     Status(Code::Unschedulable, "full"),
     {},
     "Unschedulable: full",
     "A",
     0},
    {"a rejection keeps its code",
     {},
     Status(Code::UnschedulableAndUnresolvable, "never"),
     "UnschedulableAndUnresolvable: never",
     "B",
     1},
    {"an error is wrapped",
     Status::error("boom"),
     {},
     "Error: running \"A\" filter plugin: boom",
     "A",
     0},
};

BOOST_DATA_TEST_CASE(TestRunFilterPlugins, boost::unit_test::data::make(kFilterCases), c) {
  Plugins plugins;
  plugins.add<FakeFilter>("A").filterStatus = c.a;
  auto& b = plugins.add<FakeFilter>("B");
  b.filterStatus = c.b;
  const Framework fw = plugins.framework({"A", "B"});
  const auto lister = oneNode();
  CycleState state(lister);
  const Status s = fw.runFilterPlugins(state, ::testing::podInfo(kPod), *lister->nodeInfoList()[0]);
  BOOST_TEST(describe(s) == c.want);
  BOOST_TEST(s.plugin() == c.wantPlugin);
  BOOST_TEST(b.filterCalls.load() == c.wantCallsOfB);
}

// After upstream's TestFilterPluginsWithNominatedPods (framework_test.go): pass 1 with the
// nominated pods of equal or higher priority added, pass 2 without them.
struct NominatedCase {
  std::string name;
  std::optional<api::Pod> nominated;  // nominated to node1
  Status addPodStatus;
  std::string want;
  int wantFilterCalls;  // 1: one pass; 2: both
  int wantAddPodCalls;
  // What the plugin says of itself: pass 1 is left out only when it does not read the node's
  // pods and AddPod leaves its state as it is.
  bool readsNodePods = true;
  bool addPodLeavesState = false;
};
std::ostream& operator<<(std::ostream& out, const NominatedCase& c) { return out << c.name; }

api::Pod nominatedPod(std::int32_t priority, const std::string& uid, bool blocks) {
  auto pod = MakePod().name("nominated-" + uid).ns("default").uid(uid).priority(priority);
  if (blocks) pod.label("blocker", "A");
  return pod.nominatedNodeName("node1").obj();
}

const std::vector<NominatedCase> kNominatedCases = {
    {"node has no nominated pod", std::nullopt, {}, "Success", 1, 0},
    {"node has a high-priority nominated pod and all filters succeed",
     nominatedPod(20, "n", false),
     {},
     "Success",
     2,
     1},
    {"node has a high-priority nominated pod and filters fail",
     nominatedPod(20, "n", true),
     {},
     "Unschedulable: blocked by nominated-n",
     1,
     1},
    {"node has an equal-priority nominated pod and filters fail",
     nominatedPod(10, "n", true),
     {},
     "Unschedulable: blocked by nominated-n",
     1,
     1},
    {"node has a low-priority nominated pod and filters would fail",
     nominatedPod(5, "n", true),
     {},
     "Success",
     1,
     0},
    {"the pod itself is nominated to the node", nominatedPod(20, "p", true), {}, "Success", 1, 0},
    {"node has a high-priority nominated pod and pre filters fail", nominatedPod(20, "n", false),
     Status::error("add failed"), "Error: running AddPod on PreFilter plugin \"A\": add failed", 0,
     1},
    {"a nominated pod that changes no state, for a filter that reads no pods: one pass",
     nominatedPod(20, "n", false),
     {},
     "Success",
     1,
     0,
     false,
     true},
    {"a nominated pod that changes the state, for a filter that reads no pods: both passes",
     nominatedPod(20, "n", false),
     {},
     "Success",
     2,
     1,
     false,
     false},
    {"a nominated pod that changes no state, for a filter that reads the pods: pass 1 runs",
     nominatedPod(20, "n", true),
     {},
     "Unschedulable: blocked by nominated-n",
     1,
     1,
     true,
     true},
};

BOOST_DATA_TEST_CASE(TestFilterPluginsWithNominatedPods,
                     boost::unit_test::data::make(kNominatedCases), c) {
  Plugins plugins;
  auto& a = plugins.add<FakeFilter>("A");
  a.addPodStatus = c.addPodStatus;
  a.readsNodePods = c.readsNodePods;
  a.addPodLeavesState = c.addPodLeavesState;
  const Framework fw = plugins.framework({"A"});
  std::vector<api::Pod> pods;
  if (c.nominated) pods.push_back(*c.nominated);
  const auto lister = oneNode(pods);
  CycleState state(lister);
  const PodInfo pod = ::testing::podInfo(kPod);
  BOOST_REQUIRE(fw.runPreFilterPlugins(state, pod, lister->nodeInfoList()).isSuccess());
  const Status s = fw.runFilterPluginsWithNominatedPods(state, pod, *lister->nodeInfoList()[0]);
  BOOST_TEST(describe(s) == c.want);
  BOOST_TEST(a.filterCalls.load() == c.wantFilterCalls);
  BOOST_TEST(a.addPodCalls.load() == c.wantAddPodCalls);
  // The snapshot's node is never modified: pass 1 works on a copy.
  BOOST_TEST(lister->nodeInfoList()[0]->pods().empty());
}

struct ScoreCase {
  std::string name;
  std::vector<config::PluginRef> plugins;  // of "A" and "B"
  Status preScoreOfA;
  std::int64_t normalizeOffsetOfB;
  std::string want;
  std::vector<std::int64_t> wantTotals;  // node1, node2
};
std::ostream& operator<<(std::ostream& out, const ScoreCase& c) { return out << c.name; }

// A scores node1 10 and node2 30; B scores node1 50 and node2 0.
const std::vector<ScoreCase> kScoreCases = {
    {"weights multiply the normalized scores", {{"A", 2}, {"B", 3}}, {}, 0, "Success", {170, 60}},
    {"an unset weight is 1", {{"A", 0}, {"B", 1}}, {}, 0, "Success", {60, 30}},
    {"a skipped plugin contributes nothing",
     {{"A", 2}, {"B", 3}},
     Status(Code::Skip),
     0,
     "Success",
     {150, 0}},
    {"a PreScore error is wrapped",
     {{"A", 1}},
     Status::error("boom"),
     0,
     "Error: running PreScore plugin \"A\": boom",
     {}},
    {"a normalized score above 100 is an error",
     {{"A", 1}, {"B", 1}},
     {},
     51,
     "Error: applying score defaultWeights on Score plugins: plugin \"B\" returns an invalid "
     "score 101, it should in the range of [0, 100] after normalizing",
     {}},
    {"a negative normalized score is an error",
     {{"B", 1}},
     {},
     -1,
     "Error: applying score defaultWeights on Score plugins: plugin \"B\" returns an invalid "
     "score -1, it should in the range of [0, 100] after normalizing",
     {}},
};

BOOST_DATA_TEST_CASE(TestRunScorePlugins, boost::unit_test::data::make(kScoreCases), c) {
  Plugins plugins;
  auto& a = plugins.add<FakeScore>("A");
  a.raw = {{"node1", 10}, {"node2", 30}};
  a.preScoreStatus = c.preScoreOfA;
  auto& b = plugins.add<FakeScore>("B");
  b.raw = {{"node1", 50}, {"node2", 0}};
  b.normalizeOffset = c.normalizeOffsetOfB;
  const Framework fw = plugins.framework({}, c.plugins);
  const auto lister = ::testing::FakeLister::make(
      {MakeNode().name("node1").obj(), MakeNode().name("node2").obj()}, {});
  CycleState state(lister);
  const PodInfo pod = ::testing::podInfo(kPod);
  Status s = fw.runPreScorePlugins(state, pod, lister->nodeInfoList());
  NodePluginScores scores;
  if (s.isSuccess()) s = fw.runScorePlugins(state, pod, lister->nodeInfoList(), scores);
  BOOST_TEST(describe(s) == c.want);
  if (s.isSuccess()) {
    BOOST_REQUIRE(scores.size() == 2u);
    BOOST_TEST(scores.total(0) == c.wantTotals[0]);
    BOOST_TEST(scores.total(1) == c.wantTotals[1]);
  }
}

BOOST_AUTO_TEST_CASE(a_score_error_is_wrapped_with_the_plugin_name) {
  Plugins plugins;
  plugins.add<FakeScore>("A").scoreStatus = Status::error("boom");
  const Framework fw = plugins.framework({}, {{"A", 1}});
  const auto lister = oneNode();
  CycleState state(lister);
  NodePluginScores scores;
  const Status s =
      fw.runScorePlugins(state, ::testing::podInfo(kPod), lister->nodeInfoList(), scores);
  BOOST_TEST(describe(s) == "Error: running Score plugins: plugin \"A\" failed with: boom");
}

struct ConfigCase {
  std::string name;
  std::function<void(config::Configuration&)> edit;
  std::string want;
};
std::ostream& operator<<(std::ostream& out, const ConfigCase& c) { return out << c.name; }

const std::vector<ConfigCase> kConfigCases = {
    {"unknown filter plugin",
     [](auto& c) {
       c.filter = {{"Nope", 0}};
     },
     "plugins.filter[0].name: unknown plugin \"Nope\""},
    {"duplicate score plugin",
     [](auto& c) {
       c.score = {{"S", 1}, {"S", 2}};
     },
     "plugins.score[1].name: duplicate plugin \"S\""},
    {"a score plugin under filter",
     [](auto& c) {
       c.filter = {{"S", 0}};
     },
     "plugins.filter[0].name: plugin \"S\" does not extend filter"},
    {"a filter plugin under score",
     [](auto& c) {
       c.score = {{"F", 1}};
     },
     "plugins.score[0].name: plugin \"F\" does not extend score"},
    {"negative weight",
     [](auto& c) {
       c.score = {{"S", -1}};
     },
     "plugins.score[0].weight: must not be negative"},
    {"percentage out of range", [](auto& c) { c.percentageOfNodesToScore = 101; },
     "percentageOfNodesToScore: not in valid range [0-100]"},
    {"no parallelism", [](auto& c) { c.parallelism = 0; },
     "parallelism: should be an integer value greater than zero"},
    {"args for an unknown plugin",
     [](auto& c) {
       c.pluginConfig = {{"Nope", YAML::Node()}};
     },
     "pluginConfig[0].name: unknown plugin \"Nope\""},
};

BOOST_DATA_TEST_CASE(configuration_errors_name_the_field,
                     boost::unit_test::data::make(kConfigCases), c) {
  Plugins plugins;
  plugins.add<FakeFilter>("F");
  plugins.add<FakeScore>("S");
  config::Configuration configuration;
  c.edit(configuration);
  try {
    Framework fw(configuration, plugins.registry());
    BOOST_FAIL("accepted");
  } catch (const config::ConfigError& e) {
    BOOST_TEST(std::string(e.what()) == c.want);
  }
}

// Counts observations per extension point.
class CountingRecorder final : public MetricsRecorder {
 public:
  class Counter final : public DurationObserver {
   public:
    void observe(double) override { ++count; }
    int count = 0;
  };
  DurationObserver& pluginDuration(std::string_view, std::string_view point) override {
    return counters[std::string(point)];
  }
  std::map<std::string, Counter> counters;
};

// One cycle in ten times its plugins, the first included; an untimed cycle reports nothing.
BOOST_AUTO_TEST_CASE(plugin_durations_are_recorded_for_sampled_cycles) {
  Plugins plugins;
  plugins.add<FakeFilter>("A");
  Framework fw = plugins.framework({"A"});
  CountingRecorder recorder;
  fw.setMetricsRecorder(recorder);
  const auto lister = oneNode();
  const PodInfo pod = ::testing::podInfo(kPod);
  int sampled = 0;
  for (int cycle = 0; cycle < 25; ++cycle) {
    CycleState state(lister);
    const bool record = fw.sampleCycleForMetrics();
    if (cycle == 0) BOOST_TEST(record);
    sampled += record ? 1 : 0;
    state.setRecordPluginMetrics(record);
    BOOST_TEST(fw.runPreFilterPlugins(state, pod, lister->nodeInfoList()).isSuccess());
    BOOST_TEST(fw.runFilterPlugins(state, pod, *lister->nodeInfoList()[0]).isSuccess());
  }
  BOOST_TEST(sampled == 3);
  BOOST_TEST(recorder.counters["PreFilter"].count == 3);
  BOOST_TEST(recorder.counters["Filter"].count == 3);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace scheduling::framework::runtime

// The /filter and /prioritize answers of the scenario's NodeNames request, encoded: the
// answers are what the scheduler gives for args-names.json (computed once, outside the
// timing), so their shapes (how many names, how many failed and with which reasons) are the
// scenario's own. Reported in bytes/s of answer.

#include <benchmark/benchmark.h>

#include <map>
#include <stdexcept>
#include <string>

#include "bench/registrations.hpp"
#include "bench/scenario.hpp"
#include "scheduling/api/json/extender_codec.hpp"
#include "scheduling/scheduler/scheduler.hpp"

namespace bench {

namespace {

// The scenario's answers; their names view Scenario::namesArgs(), which lives as long.
struct Answers {
  scheduling::api::ExtenderFilterResult filter;
  scheduling::api::HostPriorityList priorities;
};

const Answers& answersOf(Scenario& s) {
  static std::map<std::string, Answers> answers;
  auto it = answers.find(s.name());
  if (it == answers.end()) {
    scheduling::Scheduler scheduler(s.framework(), s.cache());
    Answers a;
    a.filter = scheduler.filter(s.namesArgs());
    if (!scheduler.prioritize(s.namesArgs(), a.priorities).isSuccess()) {
      throw std::runtime_error(s.path("args-names.json") + ": prioritize failed");
    }
    it = answers.emplace(s.name(), std::move(a)).first;
  }
  return it->second;
}

template <typename Answer>
void encode(benchmark::State& state, const Answer& answer) {
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string body = scheduling::api::json::encode(answer);
    bytes = body.size();
    benchmark::DoNotOptimize(body.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(bytes));
}

}  // namespace

void registerEncodeBenchmarks(const std::string& scenario) {
  benchmark::RegisterBenchmark(("EncodeFilterResult/" + scenario + "/names").c_str(),
                               [scenario](benchmark::State& state) {
                                 encode(state, answersOf(Scenario::get(scenario)).filter);
                               })
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(("EncodeHostPriorityList/" + scenario).c_str(),
                               [scenario](benchmark::State& state) {
                                 encode(state, answersOf(Scenario::get(scenario)).priorities);
                               })
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace bench

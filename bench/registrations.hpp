#pragma once

#include <string>

// One function per benchmark file: registers that file's benchmarks for one scenario
// (named <benchmark>/<scenario>[/<variant>]).
namespace bench {

void registerDecodeBenchmarks(const std::string& scenario);
void registerEncodeBenchmarks(const std::string& scenario);
void registerCacheBenchmarks(const std::string& scenario);
void registerInterPodAffinityBenchmarks(const std::string& scenario);
void registerPodStateBenchmarks(const std::string& scenario);
void registerSchedulerBenchmarks(const std::string& scenario);

}  // namespace bench

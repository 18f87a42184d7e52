#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

// The fuzz targets: every decoder of untrusted or operator input, fed arbitrary bytes. A
// target returns normally for any input, the decoder's own error (DecodeError, ConfigError)
// included; anything else (a crash, a sanitizer report, another exception) is a finding.
// extender_args also decodes each body as the server does while it arrives, and aborts when
// that gives anything but what decoding it whole gives. libFuzzer drives them from the *_fuzzer.cpp
// mains; fuzz_regression_test replays the seed corpus (examples/) and every input kept in
// test/fuzz/regressions/ in the normal suite.
namespace fuzz {

int extenderArgs(const std::uint8_t* data, std::size_t size);
int extenderPreemptionArgs(const std::uint8_t* data, std::size_t size);
int clusterStateList(const std::uint8_t* data, std::size_t size);
int configuration(const std::uint8_t* data, std::size_t size);
int watchStream(const std::uint8_t* data, std::size_t size);

struct Target {
  std::string_view name;  // also the folder under regressions/
  int (*run)(const std::uint8_t*, std::size_t);
};

inline constexpr Target kTargets[] = {
    {"extender_args", &extenderArgs},
    {"extender_preemption_args", &extenderPreemptionArgs},
    {"cluster_state_list", &clusterStateList},
    {"configuration", &configuration},
    {"watch_stream", &watchStream},
};

}  // namespace fuzz

#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

// In the server, a request's cluster data is rarely in the CPU caches: the previous request's
// body and answer, the kernel's socket buffers and the client went through them in between.
// A cold run reads a buffer larger than the last-level cache before each iteration (not
// timed), so that lookups pay the cache misses they pay in the server.
class CacheEvicter {
 public:
  void evict() {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < buffer_.size(); i += 64) sum += buffer_[i]++;
    benchmark::DoNotOptimize(sum);
  }

 private:
  std::vector<std::uint8_t> buffer_ = std::vector<std::uint8_t>(64 << 20, 1);
};

inline void evictIfCold(benchmark::State& state, bool cold) {
  if (!cold) return;
  static CacheEvicter evicter;
  state.PauseTiming();
  evicter.evict();
  state.ResumeTiming();
}

}  // namespace bench

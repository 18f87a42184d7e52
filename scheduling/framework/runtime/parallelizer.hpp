#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace scheduling::framework::runtime {

// parallelize.Parallelizer: runs `pieces` units of work on up to `parallelism` workers, in
// chunks of about sqrt(pieces) (chunkSizeFor). The calling thread is one of the workers, so
// a cycle that parallelises from inside the pool never waits on a queue it blocks.
//
// Upstream's workers are goroutines; here they are threads, so there are never more of them
// than CPUs: on a 2-CPU machine 16 threads only add wake-ups and context switches (perf on
// S3 /prioritize: ~6% of samples in the scheduler's switch path). Chunking still follows
// `parallelism`, and which pieces run does not depend on the number of workers.
class Parallelizer {
 public:
  // Starts min(parallelism, CPUs) - 1 helper threads (the caller is the last worker);
  // `cpus` defaults to std::thread::hardware_concurrency().
  explicit Parallelizer(int parallelism, int cpus = 0);
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  int parallelism() const { return parallelism_; }
  // The threads that run pieces of one until() call at most: the helpers and the caller.
  int workers() const { return static_cast<int>(threads_.size()) + 1; }

  // Calls fn(i) for i in [0, pieces). When `stop` becomes true, pieces not yet started are
  // skipped (workqueue.ParallelizeUntil with a cancelled context). The caller runs the first
  // chunk alone and wakes the helpers only if the rest, at that pace, would take longer than
  // kWorthWaking.
  void until(int pieces, const std::function<void(int)>& fn,
             const std::atomic<bool>* stop = nullptr);

  // Waking a sleeping helper is a futex system call, an inter-processor interrupt on a virtual
  // machine: on a 2-vCPU VM it cost the caller 10-15 us (29% of until()'s samples in
  // FilterRequest/s2/names), and the helper starts later still. Work shorter than this is
  // done sooner by the caller alone: S2's Score (1,000 nodes, ~15 us) and, with nominated
  // pods filtered once, S2's Filter (~50 us).
  static constexpr std::chrono::microseconds kWorthWaking{100};

  // max(1, min(floor(sqrt(n)), n / parallelism + 1)).
  static int chunkSizeFor(int pieces, int parallelism);

 private:
  void workerLoop();

  int parallelism_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace scheduling::framework::runtime

#pragma once

#include <atomic>
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
class Parallelizer {
 public:
  // Starts parallelism - 1 helper threads (the caller is the last worker).
  explicit Parallelizer(int parallelism);
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  int parallelism() const { return parallelism_; }

  // Calls fn(i) for i in [0, pieces). When `stop` becomes true, pieces not yet started are
  // skipped (workqueue.ParallelizeUntil with a cancelled context).
  void until(int pieces, const std::function<void(int)>& fn,
             const std::atomic<bool>* stop = nullptr);

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

#include "scheduling/framework/runtime/parallelizer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

namespace scheduling::framework::runtime {

Parallelizer::Parallelizer(int parallelism, int cpus) : parallelism_(std::max(1, parallelism)) {
  if (cpus <= 0) cpus = static_cast<int>(std::thread::hardware_concurrency());
  const int workers = std::min(parallelism_, std::max(1, cpus));
  threads_.reserve(static_cast<std::size_t>(workers - 1));
  for (int i = 1; i < workers; ++i) threads_.emplace_back([this] { workerLoop(); });
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void Parallelizer::workerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping with nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

int Parallelizer::chunkSizeFor(int pieces, int parallelism) {
  int size = static_cast<int>(std::sqrt(static_cast<double>(pieces)));
  size = std::min(size, pieces / std::max(1, parallelism) + 1);
  return std::max(1, size);
}

namespace {

// Runs fn(i) for i in [begin, end); false when `stop` was set before all of them ran.
bool runPieces(const std::function<void(int)>& fn, const std::atomic<bool>* stop, int begin,
               int end) {
  for (int i = begin; i < end; ++i) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return false;
    fn(i);
  }
  return true;
}

// One until() call that woke helpers: chunks are claimed from an atomic cursor by the caller and by
// any helper that picks the job up; the caller waits only for chunks that others claimed.
struct Job {
  const std::function<void(int)>* fn;
  const std::atomic<bool>* stop;
  int pieces;
  int chunk;
  std::atomic<int> nextChunk{0};
  std::mutex mutex;
  std::condition_variable done;
  int running = 0;  // helpers inside run()

  // Returns after claiming no more chunks, or once `stop` is set.
  void run() {
    for (;;) {
      const int begin = nextChunk.fetch_add(1) * chunk;
      if (begin >= pieces || !runPieces(*fn, stop, begin, std::min(pieces, begin + chunk))) return;
    }
  }
};

}  // namespace

void Parallelizer::until(int pieces, const std::function<void(int)>& fn,
                         const std::atomic<bool>* stop) {
  if (pieces <= 0) return;
  const int chunk = chunkSizeFor(pieces, parallelism_);
  const int chunks = (pieces + chunk - 1) / chunk;
  const int helpers = std::min(workers(), chunks) - 1;
  if (helpers <= 0) {
    runPieces(fn, stop, 0, pieces);
    return;
  }

  // The first chunk alone, timed: helpers are woken only for the work that is left when it
  // is worth their wake-up (see kWorthWaking). Until then no Job is shared, so a call done
  // alone allocates nothing.
  const auto began = std::chrono::steady_clock::now();
  if (!runPieces(fn, stop, 0, chunk)) return;
  const auto firstChunk = std::chrono::steady_clock::now() - began;
  if (firstChunk * (pieces - chunk) / chunk < kWorthWaking) {
    runPieces(fn, stop, chunk, pieces);
    return;
  }

  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->stop = stop;
  job->pieces = pieces;
  job->chunk = chunk;
  job->nextChunk.store(1);  // the first chunk is done
  {
    std::lock_guard lock(mutex_);
    for (int h = 0; h < helpers; ++h) {
      tasks_.emplace_back([job] {
        {
          std::lock_guard jobLock(job->mutex);
          ++job->running;
        }
        job->run();
        {
          std::lock_guard jobLock(job->mutex);
          --job->running;
        }
        job->done.notify_all();
      });
    }
  }
  wake_.notify_all();
  job->run();
  // Exhaust the cursor so helpers that start late find nothing to claim, then wait for the
  // ones already working: `fn` and `stop` live on this stack frame.
  job->nextChunk.store(chunks);
  std::unique_lock lock(job->mutex);
  job->done.wait(lock, [&] { return job->running == 0; });
}

}  // namespace scheduling::framework::runtime

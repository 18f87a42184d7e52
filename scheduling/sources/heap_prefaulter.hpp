#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace scheduling::sources {

// While it lives, the pages the main malloc arena grows into are faulted in by a thread of
// its own, ahead of the thread that allocates from it.
//
// Why: a cluster-state load allocates about a gigabyte at 50,000 nodes (the pods, mostly),
// and a page's first touch is dear, dearest in a VM whose host backs guest memory lazily
// (about 2.5 ms per MiB measured on the benchmark machine, against 0.1 ms to touch it again).
// Taken by the decoding thread, which sets the load's pace, those faults were a fifth of its
// time; on the other core they overlap with it. The arena is made to grow in large steps
// (M_TOP_PAD), so that the pages exist, mapped and unused, before malloc hands them out, and
// the prefaulting thread populates them with MADV_POPULATE_WRITE, which never changes a byte:
// it is safe while malloc writes the same pages.
//
// Only the main arena grows that way (the others are mmap'd heaps mapped in step with use),
// so only allocations made on the process's main thread gain. Where the kernel lacks
// MADV_POPULATE_WRITE (before 5.14), malloc is not glibc's brk heap (the sanitizers) or no
// thread can be started, nothing is prefaulted and the load runs as it would without it.
//
// The step follows the input: a whole step is resident as soon as the heap grows into it, so
// a fixed step sized for the largest clusters would make a small one's load peak far above
// what it keeps (S2: 272 MiB while loading, 40 MiB when ready).
class HeapPrefaulter {
 public:
  // For a load whose input is `inputBytes` long (the cluster-state file, as JSON).
  explicit HeapPrefaulter(std::size_t inputBytes);
  // Stops the thread, gives back the pages prefaulted and not used (malloc_trim) and leaves
  // malloc's thresholds as kMmapThreshold and kTrimThreshold.
  ~HeapPrefaulter();

  HeapPrefaulter(const HeapPrefaulter&) = delete;
  HeapPrefaulter& operator=(const HeapPrefaulter&) = delete;

  // How far ahead of its use the arena grows for an input of `inputBytes`: a sixteenth of
  // it, within [kMinTopPad, kMaxTopPad]. A load keeps 0.22 to 0.28 bytes per byte of JSON
  // (S2 to S5), so at most the last step's worth of pages is resident and unused: the peak
  // stays within about 1.1× of what the load keeps (S2 42 MiB for 40 when ready), and the
  // load is as quick as with the largest step throughout. At S5 the decoder allocates
  // ~150 MiB/s and the prefaulting thread populates 400 MiB/s or more, so the largest step
  // is ahead within a second; from about 4 GiB of JSON up (S5), the step is that largest.
  static constexpr std::size_t kInputBytesPerPadByte = 16;
  static constexpr int kMinTopPad = 128 << 10;  // mallopt(3)'s default
  static constexpr int kMaxTopPad = 256 << 20;
  static constexpr int topPadFor(std::size_t inputBytes) {
    return static_cast<int>(std::clamp(inputBytes / kInputBytesPerPadByte,
                                       std::size_t{kMinTopPad}, std::size_t{kMaxTopPad}));
  }
  // Setting M_TOP_PAD stops glibc's dynamic mmap threshold, which would otherwise rise with
  // the largest block freed, up to 32 MiB, and keep request-sized buffers in the heap. Its
  // ceiling is set for good instead, so that a request's buffers never cost an mmap and the
  // first touches of fresh pages on every request.
  static constexpr int kMmapThreshold = 32 << 20;
  static constexpr int kTrimThreshold = 2 * kMmapThreshold;

 private:
  // Populates the heap from `from` (page-aligned) up to the break, as it moves.
  void populate(std::stop_token stop, std::uintptr_t from);

  std::jthread thread_;
};

}  // namespace scheduling::sources

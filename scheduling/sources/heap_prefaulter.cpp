#include "scheduling/sources/heap_prefaulter.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <system_error>

namespace scheduling::sources {

namespace {

// Populated a slice at a time, so that a slice the allocating thread has already touched
// costs the prefaulting thread little, and a stop is noticed soon.
constexpr std::uintptr_t kSlice = 2 << 20;

// Nothing new to populate: how long to wait before looking at the break again.
constexpr auto kIdle = std::chrono::milliseconds(2);

std::uintptr_t pageAligned(std::uintptr_t address) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  return (address + page - 1) & ~(page - 1);
}

// The program break, from the kernel: malloc moves it on another thread, and glibc's own
// copy of it (sbrk(0)) is that thread's to write.
std::uintptr_t programBreak() { return static_cast<std::uintptr_t>(syscall(SYS_brk, 0)); }

}  // namespace

HeapPrefaulter::HeapPrefaulter(std::size_t inputBytes) {
  mallopt(M_TOP_PAD, topPadFor(inputBytes));
  // The break as it is now, before this thread allocates again: from here on it is growth.
  const std::uintptr_t from = pageAligned(programBreak());
  try {
    thread_ = std::jthread([this, from](std::stop_token stop) { populate(stop, from); });
  } catch (const std::system_error&) {
    // No thread to be had (a pids limit): malloc faults its pages in itself, as it would
    // without a prefaulter. Throwing would leave the load's filing thread waiting forever.
  }
}

HeapPrefaulter::~HeapPrefaulter() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  mallopt(M_TOP_PAD, kMinTopPad);
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  malloc_trim(0);
}

void HeapPrefaulter::populate(std::stop_token stop, std::uintptr_t from) {
  std::mutex mutex;
  std::condition_variable_any wake;  // only a stop wakes it
  while (!stop.stop_requested()) {
    const std::uintptr_t to = programBreak();
    if (to <= from) {
      from = std::min(from, pageAligned(to));  // the heap was trimmed: follow it down
      std::unique_lock lock(mutex);
      wake.wait_for(lock, stop, kIdle, [] { return false; });
      continue;
    }
    const std::size_t length = std::min(kSlice, to - from);
    if (madvise(reinterpret_cast<void*>(from), length, MADV_POPULATE_WRITE) != 0) {
      // EINVAL: a kernel without MADV_POPULATE_WRITE; EFAULT, EINTR: a page that cannot be
      // had, or the process is dying. Malloc faults its pages in itself from here on.
      if (errno != ENOMEM) return;
      // The heap shrank between reading the break and populating, or memory is short: what
      // is left of this stretch is malloc's to fault in; wait for the next from the break.
      from = pageAligned(programBreak());
      continue;
    }
    from = pageAligned(from + length);
  }
}

}  // namespace scheduling::sources

#include "scheduling/sources/heap_prefaulter.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "test/testing/burst_cluster.hpp"

namespace scheduling::sources {
namespace {

// The sanitizers bring their own malloc, which never moves the program break: there is no
// heap for the prefaulter to grow then, and nothing for these tests to see.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kGlibcMalloc = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kGlibcMalloc = false;
#else
constexpr bool kGlibcMalloc = true;
#endif
#else
constexpr bool kGlibcMalloc = true;
#endif

std::uintptr_t programBreak() { return static_cast<std::uintptr_t>(syscall(SYS_brk, 0)); }

const std::uintptr_t kPage = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));

// Whether every page of [begin, end) is resident; the range is within one heap.
bool resident(std::uintptr_t begin, std::uintptr_t end) {
  begin = (begin + kPage - 1) & ~(kPage - 1);
  if (end <= begin) return true;
  std::vector<unsigned char> pages((end - begin + kPage - 1) / kPage);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, pages.data()) != 0) return false;
  for (unsigned char page : pages) {
    if ((page & 1) == 0) return false;
  }
  return true;
}

// Blocks small enough for any mmap threshold, so they come from the heap this test's thread
// (Boost.Test's main thread, whose arena is the main one) allocates from.
constexpr std::size_t kBlock = 64 << 10;
constexpr std::size_t kBlocks = 256;

struct Blocks {
  std::vector<void*> all;
  std::uintptr_t highest = 0;  // the end of the highest block

  void* allocate() {
    void* block = std::malloc(kBlock);
    BOOST_REQUIRE(block != nullptr);
    all.push_back(block);
    highest = std::max(highest, reinterpret_cast<std::uintptr_t>(block) + kBlock);
    return block;
  }

  // Allocates until the heap grows: until then blocks may come from memory freed earlier in
  // the process, which a prefaulter has nothing to do with.
  void growHeap() {
    const std::uintptr_t before = programBreak();
    while (programBreak() == before && all.size() < 16 * kBlocks) allocate();
    BOOST_REQUIRE_NE(programBreak(), before);
  }

  ~Blocks() {
    for (void* block : all) std::free(block);
  }
};

// An input whose load grows the heap in the largest steps.
constexpr std::size_t kLargeInput = std::size_t{8} << 30;

BOOST_AUTO_TEST_SUITE(HeapPrefaulterTest)

// The step is a sixteenth of the input, never below malloc's default nor above 256 MiB.
BOOST_AUTO_TEST_CASE(TheStepFollowsTheInputsSize) {
  const struct {
    std::size_t inputBytes;
    int pad;
  } cases[] = {
      {0, 128 << 10},
      {1 << 20, 128 << 10},                            // a small file: malloc's default
      {std::size_t{144} << 20, 9 << 20},               // S2
      {std::size_t{4} << 30, 256 << 20},               // at the largest step
      {kLargeInput, 256 << 20},                        // beyond it
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("input of " << c.inputBytes << " bytes") {
      BOOST_TEST(HeapPrefaulter::topPadFor(c.inputBytes) == c.pad);
    }
  }
}

BOOST_AUTO_TEST_CASE(ThePagesTheHeapGrowsIntoAreFaultedInBeforeTheyAreTouched) {
  if (!kGlibcMalloc) return;
  Blocks blocks;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> fresh;
  {
    HeapPrefaulter prefaulter(kLargeInput);
    blocks.growHeap();
    for (std::size_t i = 0; i < kBlocks; ++i) {
      const auto at = reinterpret_cast<std::uintptr_t>(blocks.allocate());
      // From the growth: malloc wrote the header just before the block, in its first page,
      // and nothing has touched the rest, so only the prefaulter can have made it resident.
      fresh.emplace_back(at + kPage, at + kBlock);
    }
    BOOST_TEST(testing::eventually([&] {
      for (const auto& [begin, end] : fresh) {
        if (!resident(begin, end)) return false;
      }
      return true;
    }));
  }
}

BOOST_AUTO_TEST_CASE(ThePagesPrefaultedAndNotUsedAreGivenBackWhenItEnds) {
  if (!kGlibcMalloc) return;
  Blocks blocks;
  {
    HeapPrefaulter prefaulter(kLargeInput);
    blocks.growHeap();
    // The heap grew a whole pad past its use.
    BOOST_TEST(programBreak() - blocks.highest >=
               std::uintptr_t{HeapPrefaulter::topPadFor(kLargeInput)});
  }
  // The pad went back: what is left past the last block is malloc's ordinary slack.
  BOOST_TEST(programBreak() - blocks.highest < std::uintptr_t{HeapPrefaulter::kTrimThreshold});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::sources

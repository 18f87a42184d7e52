#pragma once

#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "scheduling/cache/cache.hpp"
#include "scheduling/framework/runtime/batch_channel.hpp"

namespace scheduling::informers {

// The pods of one list, decoded and filed in the cache on two threads of their own while the
// reflector reads the next ones. Reading the answer and cutting out its items, decoding an
// item into a pod made ready for the cache, and filing that pod are each a sizeable part of a
// million-pod list's CPU (perf, S5: about 30, 45 and 25 %): on the informers' one thread
// they add up, on three they overlap. A pod is decoded and made ready (Cache::preparePod) on
// one thread, so that what preparing drops is freed where it was allocated: freed on another
// thread, each free waits on that thread's malloc arena. For the same reason the item texts
// travel back to back in one buffer per batch. Pods are filed in list order, and at most a few
// batches wait at each step, so a list of any size holds a few thousand pods at a time.
class PodFiling {
 public:
  explicit PodFiling(cache::Cache& cache);
  // Files what was added and waits for it: a list cut short still leaves its pods filed.
  ~PodFiling();
  PodFiling(const PodFiling&) = delete;
  PodFiling& operator=(const PodFiling&) = delete;

  // Queues the text of the list's item `index` (the index names it in a decoding error).
  // Rethrows what the decoding or filing thread failed with: api::DecodeError for an item
  // that is not a pod.
  void add(std::string_view itemText, std::size_t index);

  // Files what is queued and waits for it. Returns whether a pod added got a node
  // (Cache::upsertPod's answer); rethrows as add() does. Once only.
  bool finish();

 private:
  // Item texts back to back, and where each ends; the first is item `firstIndex` of the list.
  struct ItemTexts {
    std::string bytes;
    std::vector<std::size_t> ends;
    std::size_t firstIndex = 0;
  };
  using TextChannel = framework::runtime::BatchChannel<std::string_view, ItemTexts>;
  using PodChannel = framework::runtime::BatchChannel<framework::PodInfoPtr>;

  void decode();  // the decoding thread's loop
  void file();    // the filing thread's loop
  void join();
  void rethrowFailure();  // after both threads have ended

  cache::Cache& cache_;
  TextChannel texts_;
  PodChannel pods_;
  ItemTexts batch_;
  // Written by the filing thread, read once it has been joined. A decoding failure reaches
  // it through pods_, after the pods decoded before it.
  bool placed_ = false;
  std::exception_ptr failure_;
  std::thread decoder_;
  std::thread filer_;
};

}  // namespace scheduling::informers

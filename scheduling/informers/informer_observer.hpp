#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace scheduling::informers {

// What a full list did.
struct ListSummary {
  std::size_t items = 0;
  std::size_t pages = 0;
  std::size_t deleted = 0;  // objects held before that the list no longer had
  double seconds = 0;
  bool first = false;  // the informer's first list (a relist otherwise)
};

// What the informers report to the process around them: metrics and logs live in the
// server, which implements this; the informers only say what happened.
class InformerObserver {
 public:
  virtual ~InformerObserver() = default;

  // A watch event was applied (`type`: ADDED, MODIFIED, DELETED, BOOKMARK, ERROR).
  virtual void watchEvent(std::string_view resource, std::string_view type) = 0;

  // The informer starts over: with a new watch, or with a full list when `relist`.
  // `reason` is one of a small fixed set (a metric label); `detail` says what happened.
  virtual void watchRestart(std::string_view resource, std::string_view reason, bool relist,
                            const std::string& detail) = 0;

  // A full list completed.
  virtual void listed(std::string_view resource, const ListSummary& summary) = 0;
};

}  // namespace scheduling::informers

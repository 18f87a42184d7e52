#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "scheduling/informers/informer_observer.hpp"
#include "server/metrics.hpp"

namespace server {

// Turns what the informers report into metrics and log lines: lists and restarts are logged
// with their reason (they are what an operator looks for when the cache seems stale); a
// watch the server ended as asked is routine and logged only at -v 2. Until an informer's
// first list completes, it also keeps why the last attempt failed, for /readyz to say: a
// service account without the rights the extender needs is then named, with the permission
// the API server refused, in the probe's answer that `kubectl describe pod` shows.
class InformerReporter final : public scheduling::informers::InformerObserver {
 public:
  explicit InformerReporter(Metrics& metrics) : metrics_(metrics) {}

  // "pods: LIST 403 Forbidden: ..." for each informer whose first list has not completed
  // and has failed, joined by "; "; empty when none has. Thread-safe.
  std::string unsyncedReason() const;

  void watchEvent(std::string_view resource, std::string_view type) override;
  void watchRestart(std::string_view resource, std::string_view reason, bool relist,
                    const std::string& detail) override;
  void listed(std::string_view resource,
              const scheduling::informers::ListSummary& summary) override;

 private:
  Metrics& metrics_;
  mutable std::mutex mutex_;
  // Informers that have not listed yet, by resource, with their last failure.
  std::map<std::string, std::string, std::less<>> firstListFailures_;
  // Informers that have listed once: their later failures are the watch's, logged only.
  std::set<std::string, std::less<>> listedOnce_;
};

}  // namespace server

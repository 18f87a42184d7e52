#include "server/informer_reporter.hpp"

#include "server/logging.hpp"

namespace server {

void InformerReporter::watchEvent(std::string_view resource, std::string_view type) {
  metrics_.countWatchEvent(resource, type);
}

void InformerReporter::watchRestart(std::string_view resource, std::string_view reason, bool relist,
                                    const std::string& detail) {
  metrics_.countWatchRestart(resource, reason);
  {
    const std::lock_guard lock(mutex_);
    if (!listedOnce_.contains(resource))
      firstListFailures_.insert_or_assign(std::string(resource), detail);
  }
  if (reason == "closed" || reason == "idle") {
    SX_LOG_V(2) << resource << " watch "
                << (reason == "closed" ? "ended by the API server" : detail) << "; watching again";
    return;
  }
  SX_LOG_WARNING << resource << (relist ? " informer relisting" : " watch reconnecting")
                 << " (reason " << reason << "): " << detail;
}

void InformerReporter::listed(std::string_view resource,
                              const scheduling::informers::ListSummary& summary) {
  {
    const std::lock_guard lock(mutex_);
    listedOnce_.emplace(resource);
    if (const auto it = firstListFailures_.find(resource); it != firstListFailures_.end()) {
      firstListFailures_.erase(it);
    }
  }
  SX_LOG_INFO << (summary.first ? "listed " : "relisted ") << summary.items << " " << resource
              << " in " << summary.pages << (summary.pages == 1 ? " page" : " pages") << " ("
              << summary.seconds << "s)"
              << (summary.first ? ""
                                : "; deleted " + std::to_string(summary.deleted) +
                                      " that the watch had missed");
}

std::string InformerReporter::unsyncedReason() const {
  const std::lock_guard lock(mutex_);
  std::string reason;
  for (const auto& [resource, failure] : firstListFailures_) {
    reason += (reason.empty() ? "" : "; ") + resource + ": " + failure;
  }
  return reason;
}

}  // namespace server

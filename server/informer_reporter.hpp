#pragma once

#include "scheduling/informers/informer_observer.hpp"
#include "server/metrics.hpp"

namespace server {

// Turns what the informers report into metrics and log lines: lists and restarts are logged
// with their reason (they are what an operator looks for when the cache seems stale); a
// watch the server ended as asked is routine and logged only at -v 2.
class InformerReporter final : public scheduling::informers::InformerObserver {
 public:
  explicit InformerReporter(Metrics& metrics) : metrics_(metrics) {}

  void watchEvent(std::string_view resource, std::string_view type) override;
  void watchRestart(std::string_view resource, std::string_view reason, bool relist,
                    const std::string& detail) override;
  void listed(std::string_view resource,
              const scheduling::informers::ListSummary& summary) override;

 private:
  Metrics& metrics_;
};

}  // namespace server

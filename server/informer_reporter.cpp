#include "server/informer_reporter.hpp"

#include "server/logging.hpp"

namespace server {

void InformerReporter::watchEvent(std::string_view resource, std::string_view type) {
  metrics_.countWatchEvent(resource, type);
}

void InformerReporter::watchRestart(std::string_view resource, std::string_view reason, bool relist,
                                    const std::string& detail) {
  metrics_.countWatchRestart(resource, reason);
  if (reason == "closed") {
    SX_LOG_V(2) << resource << " watch ended by the API server; watching again";
    return;
  }
  SX_LOG_WARNING << resource << (relist ? " informer relisting" : " watch reconnecting")
                 << " (reason " << reason << "): " << detail;
}

void InformerReporter::listed(std::string_view resource, std::size_t items, std::size_t pages,
                              double seconds, bool first) {
  SX_LOG_INFO << (first ? "listed " : "relisted ") << items << " " << resource << " in " << pages
              << (pages == 1 ? " page" : " pages") << " (" << seconds << "s)";
}

}  // namespace server

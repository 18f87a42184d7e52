#include "server/binding_reporter.hpp"

#include "server/logging.hpp"

namespace server {

void BindingReporter::bindingDone(const scheduling::api::ExtenderBindingArgs& args,
                                  scheduling::binding::BindResult result, const std::string& error,
                                  std::chrono::duration<double> took) {
  metrics_.countBinding(scheduling::binding::resultName(result));
  if (error.empty()) {
    SX_LOG_V(2) << "bound " << args.podNamespace << "/" << args.podName << " to " << args.node
                << " in " << took.count() * 1000 << "ms";
    return;
  }
  SX_LOG_WARNING << error << " (after " << took.count() * 1000 << "ms)";
}

void BindingReporter::assumptionsExpired(const std::vector<std::string>& pods) {
  metrics_.countExpiredAssumptions(pods.size());
  for (const auto& pod : pods) {
    SX_LOG_WARNING << "assumed pod " << pod
                   << " dropped: the watch has not shown it bound within --assumed-pod-ttl "
                      "(a lagging or broken watch, or the pod was deleted unseen)";
  }
}

}  // namespace server

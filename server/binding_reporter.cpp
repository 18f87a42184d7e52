#include "server/binding_reporter.hpp"

#include "server/logging.hpp"

namespace server {

void BindingReporter::bindingDone(const scheduling::api::ExtenderBindingArgs& args,
                                  const scheduling::binding::BindOutcome& outcome,
                                  std::chrono::duration<double> took) {
  metrics_.countBinding(scheduling::binding::resultName(outcome.result));
  if (outcome.refusal) {
    metrics_.countBindRefusal(scheduling::binding::reasonName(*outcome.refusal));
    SX_LOG_WARNING << "refused: " << outcome.error;
    return;
  }
  if (outcome.error.empty()) {
    SX_LOG_V(2) << "bound " << args.podNamespace << "/" << args.podName << " to " << args.node
                << " in " << took.count() * 1000 << "ms";
    return;
  }
  SX_LOG_WARNING << outcome.error << " (after " << took.count() * 1000 << "ms)";
}

}  // namespace server

#pragma once

#include "scheduling/binding/binder.hpp"
#include "server/metrics.hpp"

namespace server {

// Turns what the binder reports into metrics and log lines: a refused or failed binding is a
// warning (kube-scheduler retries the pod; a refusal also names why it was asked for a
// placement it should not make), a successful binding a line at -v 2.
class BindingReporter final : public scheduling::binding::BindingObserver {
 public:
  explicit BindingReporter(Metrics& metrics) : metrics_(metrics) {}

  void bindingDone(const scheduling::api::ExtenderBindingArgs& args,
                   const scheduling::binding::BindOutcome& outcome,
                   std::chrono::duration<double> took) override;

 private:
  Metrics& metrics_;
};

}  // namespace server

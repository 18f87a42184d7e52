#pragma once

#include "scheduling/binding/binder.hpp"
#include "server/metrics.hpp"

namespace server {

// Turns what the binder reports into metrics and log lines: a failed binding and an expired
// assumption are warnings (kube-scheduler retries the pod; an expiry means the watch lags or
// missed the pod), a successful binding a line at -v 2.
class BindingReporter final : public scheduling::binding::BindingObserver {
 public:
  explicit BindingReporter(Metrics& metrics) : metrics_(metrics) {}

  void bindingDone(const scheduling::api::ExtenderBindingArgs& args,
                   scheduling::binding::BindResult result, const std::string& error,
                   std::chrono::duration<double> took) override;
  void assumptionsExpired(const std::vector<std::string>& pods) override;

 private:
  Metrics& metrics_;
};

}  // namespace server

#include "scheduling/framework/status.hpp"

namespace scheduling::framework {

std::string_view codeName(Code code) {
  switch (code) {
    case Code::Success:
      return "Success";
    case Code::Error:
      return "Error";
    case Code::Unschedulable:
      return "Unschedulable";
    case Code::UnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::Wait:
      return "Wait";
    case Code::Skip:
      return "Skip";
    case Code::Pending:
      return "Pending";
  }
  return "Unknown";
}

std::vector<std::string_view> Status::reasons() const {
  if (!staticReason_.empty()) return {staticReason_};
  return {reasons_.begin(), reasons_.end()};
}

std::string Status::message() const {
  if (!staticReason_.empty()) return std::string(staticReason_);
  std::string joined;
  for (const auto& reason : reasons_) {
    if (!joined.empty()) joined += ", ";
    joined += reason;
  }
  return joined;
}

}  // namespace scheduling::framework

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

std::string Status::message() const {
  std::string joined;
  for (const auto& reason : reasons_) {
    if (!joined.empty()) joined += ", ";
    joined += reason;
  }
  return joined;
}

}  // namespace scheduling::framework

#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scheduling::framework {

// Status codes with upstream's values (framework/interface.go).
enum class Code {
  Success = 0,
  Error = 1,
  Unschedulable = 2,
  UnschedulableAndUnresolvable = 3,
  Wait = 4,
  Skip = 5,
  Pending = 6,
};

std::string_view codeName(Code code);

// The result of a plugin at one extension point. A default-constructed Status is Success,
// as a nil *Status is upstream. Plugins return statuses, never throw.
class Status {
 public:
  Status() = default;
  explicit Status(Code code, std::vector<std::string> reasons = {})
      : code_(code), reasons_(std::move(reasons)) {}
  Status(Code code, std::string reason) : code_(code), reasons_{std::move(reason)} {}

  static Status success() { return {}; }
  static Status error(std::string message) { return Status(Code::Error, std::move(message)); }

  Code code() const { return code_; }
  const std::vector<std::string>& reasons() const { return reasons_; }
  // The plugin that produced a rejection (set by the runtime, as Status.plugin upstream).
  const std::string& plugin() const { return plugin_; }
  Status& withPlugin(std::string plugin) {
    plugin_ = std::move(plugin);
    return *this;
  }

  bool isSuccess() const { return code_ == Code::Success; }
  bool isSkip() const { return code_ == Code::Skip; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending.
  bool isRejected() const {
    return code_ == Code::Unschedulable || code_ == Code::UnschedulableAndUnresolvable ||
           code_ == Code::Pending;
  }
  // The reasons joined with ", ", as Status.Message().
  std::string message() const;

  bool operator==(const Status& other) const {
    return code_ == other.code_ && reasons_ == other.reasons_;
  }

 private:
  Code code_ = Code::Success;
  std::vector<std::string> reasons_;
  std::string plugin_;
};

}  // namespace scheduling::framework

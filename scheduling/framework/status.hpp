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

// A reason text with static storage duration, such as a plugin's constexpr reason: a Status
// views it rather than copies it (an empty text is no reason). A filter rejects up to thousands of
// nodes per request, and a vector and a string per rejection were a tenth of /filter's work.
struct StaticReason {
  std::string_view text;
};

// The result of a plugin at one extension point. A default-constructed Status is Success,
// as a nil *Status is upstream. Plugins return statuses, never throw.
class Status {
 public:
  Status() = default;
  explicit Status(Code code, std::vector<std::string> reasons = {})
      : code_(code), reasons_(std::move(reasons)) {}
  Status(Code code, std::string reason) : code_(code), reasons_{std::move(reason)} {}
  Status(Code code, StaticReason reason) : code_(code), staticReason_(reason.text) {}

  static Status success() { return {}; }
  static Status error(std::string message) { return Status(Code::Error, std::move(message)); }

  Code code() const { return code_; }
  std::vector<std::string_view> reasons() const;
  // The plugin that produced a rejection (set by the runtime, as Status.plugin upstream).
  // Plugin names live as long as their plugins, which outlive the cycles they run in.
  std::string_view plugin() const { return plugin_; }
  Status& withPlugin(std::string_view plugin) {
    plugin_ = plugin;
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
  // The message when it is one StaticReason, which outlives the Status; empty otherwise.
  std::string_view staticMessage() const { return staticReason_; }

  bool operator==(const Status& other) const {
    return code_ == other.code_ && reasons() == other.reasons();
  }

 private:
  Code code_ = Code::Success;
  std::string_view staticReason_;     // when set, the only reason
  std::vector<std::string> reasons_;  // otherwise
  std::string_view plugin_;
};

}  // namespace scheduling::framework

#pragma once

#include <stdexcept>
#include <string>

namespace scheduling::api {

// The one error type of every decoder: what was wrong and where, as a JSON path such as
// `Pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]`.
// The HTTP layer turns it into a 400 in one place; start-up turns it into a fatal message.
class DecodeError : public std::runtime_error {
 public:
  DecodeError(std::string path, const std::string& message)
      : std::runtime_error(path.empty() ? message : path + ": " + message),
        path_(std::move(path)) {}

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace scheduling::api

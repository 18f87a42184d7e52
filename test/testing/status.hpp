#pragma once

#include <string>

#include "scheduling/framework/status.hpp"

namespace testing {

// "Code: reason, reason" — what tests compare, so that a mismatch prints readably.
inline std::string describe(const scheduling::framework::Status& status) {
  std::string out(scheduling::framework::codeName(status.code()));
  if (!status.reasons().empty()) out += ": " + status.message();
  return out;
}

}  // namespace testing

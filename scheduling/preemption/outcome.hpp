#pragma once

#include <cstdint>
#include <string_view>

namespace scheduling::preemption {

// What /preempt made of a candidate node: kept as kube-scheduler sent it, kept with victims
// of the extender's choosing added, or dropped.
enum class Outcome : std::uint8_t { Kept, Extended, Rejected };

// The metric label: "kept", "extended", "rejected".
constexpr std::string_view outcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::Kept:
      return "kept";
    case Outcome::Extended:
      return "extended";
    case Outcome::Rejected:
      break;
  }
  return "rejected";
}

}  // namespace scheduling::preemption

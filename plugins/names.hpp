#pragma once

#include <string_view>

// Plugin name constants, as pkg/scheduler/framework/plugins/names/names.go. The names are
// what configuration files and `/explain` answers use.
namespace plugins::names {

inline constexpr std::string_view kInterPodAffinity = "InterPodAffinity";
inline constexpr std::string_view kPodState = "PodState";

}  // namespace plugins::names

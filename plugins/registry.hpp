#pragma once

#include "scheduling/framework/runtime/registry.hpp"

namespace plugins {

// The in-tree registry (plugins/registry.go upstream): every plugin this extender ships, by
// name, listed explicitly in registry.cpp. No self-registering statics.
scheduling::framework::runtime::Registry inTreeRegistry();

}  // namespace plugins

#pragma once

#include <string>

#include "scheduling/api/labels.hpp"

namespace scheduling::api {

// core/v1 Node, reduced to what the plugins read: its name and labels (topology).
struct Node {
  std::string name;
  Labels labels;
};

}  // namespace scheduling::api

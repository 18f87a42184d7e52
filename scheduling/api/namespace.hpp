#pragma once

#include <string>

#include "scheduling/api/labels.hpp"

namespace scheduling::api {

// core/v1 Namespace, reduced to its name and labels (for namespaceSelector).
struct Namespace {
  std::string name;
  Labels labels;
};

}  // namespace scheduling::api

#pragma once

#include <string>

namespace scheduling::sources {

// Converts a YAML document (what `kubectl get ... -o yaml` prints) to the equivalent JSON
// text, so that YAML cluster-state files go through the one JSON decoder. Plain scalars
// that read as decimal integers, booleans or null (YAML 1.2 core spellings) take that type;
// every other scalar, and every quoted one, is a string: Kubernetes objects hold no floats. Holds
// the whole document: meant for hand-written and small files, while large dumps should stay JSON,
// which is streamed. Throws std::runtime_error naming the line and column of a syntax error or of a member
// name that is not a scalar.
std::string yamlToJson(const std::string& yamlText);

}  // namespace scheduling::sources

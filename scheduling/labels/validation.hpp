#pragma once

#include <string>
#include <string_view>
#include <vector>

// The label key and value checks of k8s.io/apimachinery/pkg/api/validate/content (kube.go,
// dns.go; util/validation re-exports them), returning upstream's messages word for word
// because they reach users in "parsing pod: ..." statuses.
namespace scheduling::labels {

// content.IsLabelKey (validation.IsQualifiedName): an optional DNS-1123 subdomain prefix and
// '/', then a name of at most 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends.
// Returns one message per problem, none when valid.
std::vector<std::string> isQualifiedName(std::string_view value);

// content.IsLabelValue (validation.IsValidLabelValue): empty, or a name as above.
std::vector<std::string> isValidLabelValue(std::string_view value);

// Go's strconv.Quote (what fmt's %q and %#v print for a string): printable UTF-8 kept,
// control characters and invalid bytes escaped.
std::string goQuote(std::string_view value);

}  // namespace scheduling::labels

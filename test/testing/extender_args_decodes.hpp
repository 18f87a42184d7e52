#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/extender_types.hpp"

// Comparing two decodes of one ExtenderArgs body (the fast paths against the event-by-event
// decode, the whole body against the streamed one), for the codec's tests and its fuzz
// target alike. Header-only: the fuzz targets link no test library.
namespace testing {

// What a decode of a body gave: the arguments, or the DecodeError's message.
struct DecodedArgs {
  std::optional<scheduling::api::ExtenderArgs> args;
  std::string error;
};

template <typename Decode>
DecodedArgs decodeArgs(Decode&& decode) {
  try {
    return {std::forward<Decode>(decode)(), {}};
  } catch (const scheduling::api::DecodeError& e) {
    return {std::nullopt, e.what()};
  }
}

// What differs between two decodes of one body, empty when nothing does: the same error, or
// the same arguments with each Node's raw bytes at the same place.
inline std::string decodeDifference(const DecodedArgs& a, const DecodedArgs& b) {
  if (a.error != b.error || a.args.has_value() != b.args.has_value()) {
    return "outcomes differ: \"" + (a.args ? std::string("decoded") : a.error) + "\" vs \"" +
           (b.args ? std::string("decoded") : b.error) + "\"";
  }
  if (!a.args) return {};
  const scheduling::api::ExtenderArgs& x = *a.args;
  const scheduling::api::ExtenderArgs& y = *b.args;
  if (!(x.pod == y.pod)) return "Pod differs";
  if (x.nodeNames != y.nodeNames) return "NodeNames differ";
  if (x.nodes.has_value() != y.nodes.has_value()) return "Nodes present in one only";
  if (!x.nodes) return {};
  if (x.nodes->size() != y.nodes->size()) return "Nodes.items counts differ";
  for (std::size_t i = 0; i < x.nodes->size(); ++i) {
    const auto& m = (*x.nodes)[i];
    const auto& n = (*y.nodes)[i];
    if (m.name != n.name || !(m.labels == n.labels) || m.raw.data() != n.raw.data() ||
        m.raw.size() != n.raw.size()) {
      return "Nodes.items[" + std::to_string(i) + "] differ";
    }
  }
  return {};
}

}  // namespace testing

#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/extender_types.hpp"

// JSON codecs of the extender wire types. Decoders throw api::DecodeError naming the JSON
// path; keys match case-insensitively (as Go's encoding/json does) and `null` stands for an
// absent list, map or object anywhere. Encoders write PascalCase keys.
namespace scheduling::api::json {

// `body` must outlive the result: SentNode::raw and NodeNames point into it.
ExtenderArgs decodeExtenderArgs(std::string_view body);
// decodeExtenderArgs without its fast paths (NodeNames and label maps read whole from the
// body, see plain_strings.hpp): every value decoded event by event, into the same arguments
// or the same error, slower. The tests and the fuzz target hold the fast paths to it.
ExtenderArgs decodeExtenderArgsEventByEvent(std::string_view body);
ExtenderPreemptionArgs decodeExtenderPreemptionArgs(std::string_view body);
// PodName, PodNamespace and Node are required object names: a binding that names no pod or no
// node is bad input, not an API server refusal. PodUID may be absent.
ExtenderBindingArgs decodeExtenderBindingArgs(std::string_view body);

// Decodes the item of ExtenderArgs.Nodes.items that `text` starts with (at its '{') as
// decodeExtenderArgs decodes each item, and stops after it: what follows is not read. Empty
// when `text` may end before the item does. Its DecodeError only tells that the item cannot
// be decoded apart (the path in it is relative to the item): the caller decodes the whole
// body for the error to answer. SentNode::raw points into `text`.
std::optional<SentNode> decodeSentNode(std::string_view text);

std::string encode(const ExtenderFilterResult& result);
// The /filter answer with its Node objects (result.nodes) left for the caller to send from
// where they are: `text` is encode(result) with an empty items array, `itemsAt` where in
// `text` the objects go, and `runs` what goes there, joined by commas. A run is one object,
// or several that were consecutive items of the request's NodeList (with the request's own
// separators between them), so that the feasible nodes of a request cost a few hundred
// slices rather than one per node. The same bytes as encode(result) once whitespace between
// items is ignored.
struct FilterAnswerParts {
  std::string text;
  std::size_t itemsAt = 0;
  std::vector<std::string_view> runs;
};
FilterAnswerParts encodeEchoing(const ExtenderFilterResult& result);
std::string encode(const HostPriorityList& priorities);
std::string encode(const ExtenderPreemptionResult& result);
std::string encode(const ExtenderBindingResult& result);

}  // namespace scheduling::api::json

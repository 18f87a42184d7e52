#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "scheduling/api/extender_types.hpp"
#include "scheduling/api/json/items_scanner.hpp"

namespace scheduling::api::json {

// Decodes an ExtenderArgs body while it arrives: each item of Nodes.items as soon as it is
// complete, so that most of a 50 MB NodeList is decoded during the transfer, and the rest of
// the body (the pod, a few KB) once it is whole. The result is always decodeExtenderArgs(body)'s:
// unless the body is one where decoding the items apart certainly gives that (see
// ItemsScanner) and every item decoded, finish() decodes the whole body the ordinary way,
// which also gives the ordinary errors.
class ExtenderArgsStreamDecoder {
 public:
  // The body's first bytes, at the start of the buffer that will hold all of it, which must
  // neither move nor change: decodes the items completed since the last call. Never throws.
  void receive(std::string_view received);

  // The whole body, in the same buffer. SentNode::raw points into it. Throws
  // api::DecodeError as decodeExtenderArgs does.
  ExtenderArgs finish(std::string_view body);

  // The items decoded so far; 0 once it has given up on decoding them apart.
  std::size_t decodedNodes() const { return nodes_.size(); }

  // After finish(): the items it took from the decoding done while the body arrived; 0 when
  // it decoded the whole body (for logs and tests).
  std::size_t streamedNodes() const { return streamedNodes_; }

 private:
  static constexpr std::string_view kItemsPath[] = {"Nodes", "items"};

  void decodeItems(std::string_view received, bool whole);
  void abandon();

  ItemsScanner scanner_{kItemsPath, KeyMatch::IgnoreCase};
  std::vector<SentNode> nodes_;
  const char* body_ = nullptr;
  std::size_t largestItem_ = 0;
  std::size_t wanted_ = 0;  // bytes of the next item to wait for (decodeItems)
  std::size_t streamedNodes_ = 0;
  bool abandoned_ = false;  // finish() decodes the whole body
};

}  // namespace scheduling::api::json

#include "scheduling/api/json/extender_args_stream.hpp"

#include <algorithm>
#include <functional>
#include <new>
#include <string>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/extender_codec.hpp"

namespace scheduling::api::json {

namespace {

// The names that NodeNames views in `rest`, the body with the bytes between the items' '[' at
// `open` and their ']' at `close` left out, viewed instead in the body, which outlives the
// arguments (rest does not). Names kept by the arguments themselves stay as they are.
void viewTheBody(ExtenderArgs& args, std::string_view rest, std::string_view body, std::size_t open,
                 std::size_t close) {
  if (!args.nodeNames) return;
  const std::less<const char*> before;
  for (std::string_view& name : *args.nodeNames) {
    if (before(name.data(), rest.data()) || !before(name.data(), rest.data() + rest.size())) {
      continue;
    }
    const auto at = static_cast<std::size_t>(name.data() - rest.data());
    name = body.substr(at < open ? at : close + (at - open - 1), name.size());
  }
}

}  // namespace

void ExtenderArgsStreamDecoder::abandon() {
  abandoned_ = true;
  nodes_ = {};
}

void ExtenderArgsStreamDecoder::receive(std::string_view received) {
  if (abandoned_) return;
  if (body_ == nullptr) body_ = received.data();
  if (received.data() != body_) return abandon();
  try {
    decodeItems(received, false);
  } catch (const std::bad_alloc&) {
    // On the I/O thread nothing may escape; the whole decode will meet it again and answer.
    abandon();
  }
}

void ExtenderArgsStreamDecoder::decodeItems(std::string_view received, bool whole) {
  for (;;) {
    switch (scanner_.scan(received)) {
      case ItemsScanner::Stop::NeedBytes:
        return;
      // Nothing to decode apart: finish() decodes the whole body. kube-scheduler sends
      // `"Nodes":null` before its NodeNames, which scanning on would step through only for
      // finish() to read them again (a tenth of a 50,000-name /filter).
      case ItemsScanner::Stop::Irregular:
      case ItemsScanner::Stop::NoArray:
        return abandon();
      case ItemsScanner::Stop::Element:
        break;
    }
    const std::string_view rest = received.substr(scanner_.position());
    // Decoding the start of an item that has not all arrived is work thrown away, so wait
    // for as many bytes as the largest item so far, or twice what did not suffice: each
    // item is then decoded a few times at most, however small the reads.
    if (!whole && rest.size() < wanted_) return;
    std::optional<SentNode> node;
    try {
      node = decodeSentNode(rest);
    } catch (const DecodeError&) {
      return abandon();
    }
    if (!node) {
      if (whole) return abandon();
      wanted_ = 2 * rest.size();
      return;
    }
    largestItem_ = std::max(largestItem_, node->raw.size());
    wanted_ = largestItem_;
    scanner_.elementEnded(scanner_.position() + node->raw.size());
    nodes_.push_back(std::move(*node));
  }
}

ExtenderArgs ExtenderArgsStreamDecoder::finish(std::string_view body) {
  if (body_ != nullptr && body.data() != body_) abandon();
  if (!abandoned_) decodeItems(body, true);
  if (abandoned_ || !scanner_.arrayClose()) return decodeExtenderArgs(body);
  // The body with its items left out, `"items":[]`: the pod, and whatever else was sent.
  const std::size_t open = *scanner_.arrayOpen();
  const std::size_t close = *scanner_.arrayClose();
  std::string rest;
  rest.reserve(open + 1 + body.size() - close);
  rest.append(body.substr(0, open + 1)).append(body.substr(close));
  ExtenderArgs args;
  try {
    args = decodeExtenderArgs(rest);
  } catch (const DecodeError&) {
    abandon();
    return decodeExtenderArgs(body);
  }
  viewTheBody(args, rest, body, open, close);
  streamedNodes_ = nodes_.size();
  args.nodes = std::move(nodes_);
  return args;
}

}  // namespace scheduling::api::json

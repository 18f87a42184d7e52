#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "scheduling/api/json/items_scanner.hpp"

namespace scheduling::informers {

// Cuts a LIST answer into its items as the bytes arrive, so that a list of any size is
// decoded while holding one item at a time, even from a server that ignores `limit` and
// answers 150k pods at once. What is not an item (kind, apiVersion, metadata with the
// resourceVersion and the continue token) is kept as the envelope: the answer with
// `"items":[]`, decoded once the answer is complete.
//
// api::json::ItemsScanner finds the items array and walks between the items; this class
// holds the bytes, finds where each item ends, and keeps the envelope. Malformed JSON inside
// an item or in the envelope is left for their decoders to report.
//
//   {"kind":"PodList",...,"items":[ {item} , {item} ... ] ,...}
//    └──── envelope ────────────┘ └─ emitted one by one ─┘└ envelope ┘
class ListStreamSplitter {
 public:
  void append(std::string_view bytes) { buffer_.append(bytes); }

  // The next complete item, valid until the next call; empty when none is complete yet.
  // Throws api::DecodeError when the answer is not a list of objects (an element of "items"
  // that is not an object, "items" twice, an HTML error page).
  std::string_view nextItem();

  // Items returned so far: the index of the next one, for error paths.
  std::size_t itemsSeen() const { return scanner_.elements(); }

  // The answer without its items; whole once complete() is true. Throws api::DecodeError
  // when it grows past what any list metadata needs (the answer is not a list).
  const std::string& envelope() const { return envelope_; }

  // Whether the top-level value has ended.
  bool complete() const { return scanner_.complete(); }

 private:
  static constexpr std::string_view kItemsPath[] = {"items"};

  std::string_view cutItem();
  void keepEnvelope();
  void compact();

  api::json::ItemsScanner scanner_{kItemsPath, api::json::KeyMatch::Exact};
  std::string buffer_;
  std::size_t dropped_ = 0;  // bytes erased from the front of buffer_: its first byte's offset
  std::size_t kept_ = 0;     // the envelope holds the answer's bytes before this offset
  std::string envelope_;
  // The item being cut: how far it has been looked at, and what was open there.
  bool inItem_ = false;
  std::size_t itemScanned_ = 0;
  int itemDepth_ = 0;
  bool inString_ = false;
};

}  // namespace scheduling::informers

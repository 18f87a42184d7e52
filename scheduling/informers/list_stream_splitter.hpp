#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace scheduling::informers {

// Cuts a LIST answer into its items as the bytes arrive, so that a list of any size is
// decoded while holding one item at a time, even from a server that ignores `limit` and
// answers 150k pods at once. What is not an item (kind, apiVersion, metadata with the
// resourceVersion and the continue token) is kept as the envelope: the answer with
// `"items":[]`, decoded once the answer is complete.
//
// It follows the JSON only as far as it must: strings (with escapes), nesting, the key of
// each top-level member, and the elements of the top-level "items" array. Anything else
// malformed is left for the decoder of the item or envelope to report.
//
//   {"kind":"PodList",...,"items":[ {item} , {item} ... ] ,...}
//    └──── envelope ────────────┘ └─ emitted one by one ─┘└ envelope ┘
class ListStreamSplitter {
 public:
  void append(std::string_view bytes) { buffer_.append(bytes); }

  // The next complete item, valid until the next call; empty when none is complete yet.
  // Throws api::DecodeError when an element of "items" is not an object.
  std::string_view nextItem();

  // Items returned so far: the index of the next one, for error paths.
  std::size_t itemsSeen() const { return itemsSeen_; }

  // The answer without its items; whole once complete() is true. Throws api::DecodeError
  // when it grows past what any list metadata needs (the answer is not a list).
  const std::string& envelope() const { return envelope_; }

  // Whether the top-level value has ended.
  bool complete() const { return started_ && depth_ == 0; }

 private:
  enum class Place {
    Envelope,      // outside the items array
    BetweenItems,  // inside it, between elements
    InItem,        // inside an element
  };

  std::string_view scanItem();
  void compact();
  void keep(char c);
  void scanEnvelope(char c);

  std::string buffer_;
  std::size_t scanned_ = 0;    // bytes of buffer_ already looked at
  std::size_t itemBegin_ = 0;  // where the item being read starts in buffer_
  std::size_t itemsSeen_ = 0;
  std::string envelope_;
  Place place_ = Place::Envelope;
  int depth_ = 0;
  bool started_ = false;
  bool inString_ = false;
  bool escaped_ = false;  // in an envelope string (items are walked back for escapes)
  // Top-level member keys, to recognise "items".
  bool expectKey_ = false;
  bool readingKey_ = false;
  std::string key_;
};

}  // namespace scheduling::informers

#include "scheduling/informers/list_stream_splitter.hpp"

#include <array>
#include <cstring>

#include "scheduling/api/decode_error.hpp"

namespace scheduling::informers {

namespace {

// List metadata is a resourceVersion, a continue token and a count: far below this.
constexpr std::size_t kMaxEnvelopeBytes = 1u << 20;
// Top-level keys longer than "items" cannot be it; no need to keep more of them.
constexpr std::size_t kMaxKeyBytes = 8;

// Depths: the list object is 1, its items array 2, an item 3.
constexpr int kItemsDepth = 2;

// The bytes that change the scanner's state inside an item, outside strings.
constexpr std::array<bool, 256> kStructural = [] {
  std::array<bool, 256> table{};
  for (const char c : std::string_view("\"{}[]")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

}  // namespace

void ListStreamSplitter::compact() {
  // Everything before the item in progress (or before the scan position, between items)
  // has been handed out or copied into the envelope. Erase it only when that is a large
  // share of the buffer, so that many small items do not cost quadratic copying.
  const std::size_t done = place_ == Place::InItem ? itemBegin_ : scanned_;
  if (done == 0 || (done < buffer_.size() / 2 && done < (1u << 20))) return;
  buffer_.erase(0, done);
  scanned_ -= done;
  if (place_ == Place::InItem) itemBegin_ -= done;
}

void ListStreamSplitter::keep(char c) {
  if (envelope_.size() == kMaxEnvelopeBytes) {
    throw api::DecodeError("", "more than 1 MiB of the list answer outside its items");
  }
  envelope_.push_back(c);
}

void ListStreamSplitter::scanEnvelope(char c) {
  keep(c);
  if (inString_) {
    if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      inString_ = false;
      readingKey_ = false;
      return;
    }
    // An escaped key keeps its backslash here, so it never reads as "items": the API
    // server writes that key plainly.
    if (readingKey_ && key_.size() <= kMaxKeyBytes) key_.push_back(c);
    return;
  }
  switch (c) {
    case '"':
      inString_ = true;
      if (depth_ == 1 && expectKey_) {
        readingKey_ = true;
        key_.clear();
      }
      break;
    case ':':
      if (depth_ == 1) expectKey_ = false;
      break;
    case ',':
      if (depth_ == 1) expectKey_ = true;
      break;
    case '{':
    case '[':
      started_ = true;
      ++depth_;
      if (depth_ == 1) {
        expectKey_ = true;
      } else if (depth_ == kItemsDepth && c == '[' && key_ == "items") {
        place_ = Place::BetweenItems;
      }
      break;
    case '}':
    case ']':
      --depth_;
      break;
    default:
      break;
  }
}

std::string_view ListStreamSplitter::scanItem() {
  // The hot loop: nearly all of a list's bytes are inside items, most of them in strings.
  const char* const data = buffer_.data();
  const std::size_t size = buffer_.size();
  while (scanned_ < size) {
    if (inString_) {
      // To the next quote at memchr's speed. It ends the string unless an odd run of
      // backslashes escapes it; the whole item is in the buffer, and the string's opening
      // quote stops the walk back.
      const void* quote = std::memchr(data + scanned_, '"', size - scanned_);
      if (quote == nullptr) {
        scanned_ = size;
        break;
      }
      const auto at = static_cast<std::size_t>(static_cast<const char*>(quote) - data);
      scanned_ = at + 1;
      std::size_t backslashes = 0;
      while (data[at - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) inString_ = false;
      continue;
    }
    const char c = data[scanned_++];
    if (!kStructural[static_cast<unsigned char>(c)]) continue;
    if (c == '"') {
      inString_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (--depth_ == kItemsDepth) {
      place_ = Place::BetweenItems;
      ++itemsSeen_;
      return std::string_view(data + itemBegin_, scanned_ - itemBegin_);
    }
  }
  return {};
}

std::string_view ListStreamSplitter::nextItem() {
  compact();
  const char* const data = buffer_.data();
  const std::size_t size = buffer_.size();
  while (scanned_ < size) {
    switch (place_) {
      case Place::Envelope:
        scanEnvelope(data[scanned_++]);
        break;
      case Place::BetweenItems: {
        const char c = data[scanned_++];
        if (c == '{') {
          place_ = Place::InItem;
          itemBegin_ = scanned_ - 1;
          ++depth_;
        } else if (c == ']') {
          place_ = Place::Envelope;
          --depth_;
          keep(c);
        } else if (c != ',' && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
          throw api::DecodeError("items[" + std::to_string(itemsSeen_) + "]", "expected an object");
        }
        break;
      }
      case Place::InItem:
        if (const auto item = scanItem(); !item.empty()) return item;
        break;
    }
  }
  return {};
}

}  // namespace scheduling::informers

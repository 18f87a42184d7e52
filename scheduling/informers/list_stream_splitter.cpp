#include "scheduling/informers/list_stream_splitter.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "scheduling/api/decode_error.hpp"

namespace scheduling::informers {

namespace {

// List metadata is a resourceVersion, a continue token and a count: far below this.
constexpr std::size_t kMaxEnvelopeBytes = 1u << 20;

// The bytes that change the cutter's state inside an item, outside strings.
constexpr std::array<bool, 256> kStructural = [] {
  std::array<bool, 256> table{};
  for (const char c : std::string_view("\"{}[]")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

}  // namespace

void ListStreamSplitter::compact() {
  // The scanner needs nothing before its position (the item in progress, or the next byte to
  // scan), and the envelope has copied what it needs from there. Erase it only when that is a
  // large share of the buffer, so that many small items do not cost quadratic copying.
  const std::size_t done = scanner_.position() - dropped_;
  if (done == 0 || (done < buffer_.size() / 2 && done < (1u << 20))) return;
  buffer_.erase(0, done);
  dropped_ += done;
}

void ListStreamSplitter::keepEnvelope() {
  const auto copyTo = [this](std::size_t end) {
    if (end <= kept_) return;
    envelope_.append(buffer_, kept_ - dropped_, end - kept_);
    kept_ = end;
  };
  const std::size_t scanned = scanner_.position();
  const auto open = scanner_.arrayOpen();
  const auto close = scanner_.arrayClose();
  if (!open) {
    copyTo(scanned);
  } else {
    copyTo(std::min(scanned, *open + 1));  // up to the '['
    if (close) {
      kept_ = std::max(kept_, *close);  // from the ']' on
      copyTo(scanned);
    }
  }
  if (envelope_.size() > kMaxEnvelopeBytes) {
    throw api::DecodeError("", "more than 1 MiB of the list answer outside its items");
  }
}

std::string_view ListStreamSplitter::cutItem() {
  if (!inItem_) {
    inItem_ = true;
    itemScanned_ = scanner_.position();
    itemDepth_ = 0;
    inString_ = false;
  }
  // The hot loop: nearly all of a list's bytes are inside items, most of them in strings.
  const char* const data = buffer_.data();
  const std::size_t size = buffer_.size();
  std::size_t i = itemScanned_ - dropped_;
  while (i < size) {
    if (inString_) {
      // To the next quote at memchr's speed. It ends the string unless an odd run of
      // backslashes escapes it; the whole item is in the buffer, and the string's opening
      // quote stops the walk back.
      const void* quote = std::memchr(data + i, '"', size - i);
      if (quote == nullptr) {
        i = size;
        break;
      }
      const auto at = static_cast<std::size_t>(static_cast<const char*>(quote) - data);
      i = at + 1;
      std::size_t backslashes = 0;
      while (data[at - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) inString_ = false;
      continue;
    }
    const char c = data[i++];
    if (!kStructural[static_cast<unsigned char>(c)]) continue;
    if (c == '"') {
      inString_ = true;
    } else if (c == '{' || c == '[') {
      ++itemDepth_;
    } else if (--itemDepth_ == 0) {
      inItem_ = false;
      const std::size_t begin = scanner_.position() - dropped_;
      scanner_.elementEnded(dropped_ + i);
      return std::string_view(data + begin, i - begin);
    }
  }
  itemScanned_ = dropped_ + i;
  return {};
}

std::string_view ListStreamSplitter::nextItem() {
  compact();
  const auto stop = scanner_.scan(buffer_, dropped_);
  keepEnvelope();
  switch (stop) {
    case api::json::ItemsScanner::Stop::Irregular:
      throw *scanner_.irregular();
    case api::json::ItemsScanner::Stop::Element:
      return cutItem();
    case api::json::ItemsScanner::Stop::NeedBytes:
      break;
  }
  return {};
}

}  // namespace scheduling::informers

#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/decode_error.hpp"

namespace scheduling::api::json {

// How the member names of a path compare with a document's keys.
enum class KeyMatch {
  Exact,       // the API server's answers: it writes `items` and nothing else
  IgnoreCase,  // kube-scheduler's requests: keys match as Go's encoding/json matches them
};

// Follows a JSON document whose bytes arrive in pieces to the array at a path of member
// names (`items` of a List answer, `Nodes.items` of ExtenderArgs), and walks the separators
// between the array's elements. Where an element ends is the caller's business: it is told
// where each one starts and says where it ended, so the elements themselves (nearly all the
// bytes) are never looked at here.
//
//   {"kind":"NodeList",...,"items":[ {element} , {element} ] ,...}
//    └──── scanned byte by byte ───┘ └caller┘   └caller┘   └ scanned ┘
//
// It reads only what it must: strings, nesting, the keys of the objects on the path and the
// array's separators; other malformed JSON is left to the decoders of the elements and of the
// rest. What it does report is certain, so that decoding the elements apart from the rest
// gives what decoding the whole document would: it stops at the first thing that could make
// them differ (irregular()): a top-level value that is not an object, a second member
// matching a name of the path (Go's decoder keeps the last), a member name with an escape
// beside one of the path (an escape could spell a duplicate), a path value that is neither the
// object or array it must be nor null, an element that is not an object, and anything but
// whitespace around the array's commas. A null anywhere on the path means no array.
class ItemsScanner {
 public:
  enum class Stop {
    NeedBytes,  // everything held is scanned; or the document has ended (complete())
    Element,    // position() is the '{' of an element: call elementEnded() once it is known
    Irregular,  // see irregular(); scanning is over
    // A null on the path: there is no array. Returned once, right after the null's first
    // byte; scanning on reads what lies around it (and can still find it irregular).
    NoArray,
  };

  // `path` and the names in it must outlive the scanner.
  ItemsScanner(std::span<const std::string_view> path, KeyMatch match);

  // Scans on from position() through `held`: the document's bytes from offset `heldFrom` on,
  // which must include position().
  Stop scan(std::string_view held, std::size_t heldFrom = 0);

  // The element that starts at position() ends before offset `end`; scanning resumes there.
  void elementEnded(std::size_t end);

  // The offset of the next byte to scan.
  std::size_t position() const { return position_; }
  // Elements ended so far: the index of the next one.
  std::size_t elements() const { return elements_; }
  // Offsets of the array's '[' and of its ']', once seen.
  std::optional<std::size_t> arrayOpen() const { return arrayOpen_; }
  std::optional<std::size_t> arrayClose() const { return arrayClose_; }
  // Whether the top-level value has ended.
  bool complete() const { return state_ == State::Done; }
  // Why the document is not one this scanner can be certain about; null while it is.
  const DecodeError* irregular() const { return irregular_ ? &*irregular_ : nullptr; }

 private:
  enum class State {
    BeforeDocument,  // before the top-level '{'
    Members,         // in the objects around the array, or in values beside the path
    PathValue,       // before the value of the member on the path just read
    ArrayStart,      // after '['
    AfterElement,    // after an element
    AfterComma,      // after the comma that follows an element
    Done,            // after the top-level value
  };

  // Each byte of its state; false once the document is irregular.
  bool scanMembers(char c);
  void readKey(char c);
  bool endKey();
  bool startPathValue(char c);
  bool fail(std::string path, const std::string& message);
  std::string pathTo(std::size_t level) const;
  // The path of element i, as error paths spell them (`Nodes.items[3]`).
  std::string elementPath(std::size_t i) const;

  std::span<const std::string_view> path_;
  KeyMatch match_;
  State state_ = State::BeforeDocument;
  std::size_t position_ = 0;
  std::size_t elements_ = 0;
  std::optional<std::size_t> arrayOpen_;
  std::optional<std::size_t> arrayClose_;
  std::optional<DecodeError> irregular_;

  // Open objects and arrays. The object holding the member on the path that comes next,
  // path_[level_], is at depth level_ + 1: its member names are the ones read.
  std::size_t depth_ = 0;
  std::size_t level_ = 0;
  std::vector<std::size_t> matches_;  // members matching path_[l] seen, per level l
  bool inString_ = false;
  bool escaped_ = false;    // the previous byte of the string was an escaping backslash
  bool expectKey_ = false;  // at the member-name depth, after '{' or ','
  bool readingKey_ = false;
  bool keyRead_ = false;  // a member name was read, its ':' not yet
  std::string key_;       // as much of the member name as a path name could need
};

}  // namespace scheduling::api::json

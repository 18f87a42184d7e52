#pragma once

#include <rapidjson/rapidjson.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/json/input.hpp"
#include "scheduling/api/json/schema.hpp"

namespace scheduling::api::json {

// Decodes one JSON value into C++ objects as the schema tables say, as a handler of
// RapidJSON's SAX Reader: no document tree is built, members outside the tables are stepped
// over by the ValueScanner (the Reader only sees a stand-in `null`), and every value that is
// read lands in its C++ place directly. So a request costs what the framework keeps, plus
// one pass over the bytes. A member whose schema has a fast path (Schema::take: NodeNames, label
// maps) is read whole from the bytes ahead when it can be, behind the same stand-in.
//
// Semantics follow Go's encoding/json decoding into the upstream structs: member names match
// ignoring case, unknown members are ignored, `null` leaves a member absent (or empty),
// arrays are replaced, maps merged, a later duplicate member wins. Unlike Go, a value of the
// wrong JSON type is an error naming its path (Go fails the same way, with less precise
// text), and strings that are kept must be valid UTF-8 (Go would replace bad bytes).
class Decoder {
 public:
  // Whether members whose schema has a fast path (Schema::take) may be decoded by it, or
  // every value event by event: the tests and the fuzz target hold the fast paths to that.
  enum class FastPaths { On, Off };

  // `source` prefixes every error path (a file name; empty for a request body), `rootPath`
  // is the path of the value decoded (empty for a whole document).
  Decoder(Input& in, std::string source, std::string rootPath = {},
          FastPaths fastPaths = FastPaths::On);

  // Decodes the input's one JSON value as the `root` member of `owner`. Throws
  // api::DecodeError.
  void decode(const Field& root, void* owner);
  // Decodes the JSON value the input starts with, and stops after it whatever follows.
  void decodeFirst(const Field& root, void* owner);

  // For Schema::finish hooks: the path of the object being finished, and an error about
  // one of its members.
  std::string objectPath() const;
  [[noreturn]] void failMember(std::string_view member, std::string_view message) const;

  // RapidJSON's Handler concept. Numbers arrive as text (kParseNumbersAsStringsFlag), so
  // only RawNumber sees them.
  bool Null();
  bool Bool(bool);
  bool Int(int) { return mismatch(); }
  bool Uint(unsigned) { return mismatch(); }
  bool Int64(std::int64_t) { return mismatch(); }
  bool Uint64(std::uint64_t) { return mismatch(); }
  bool Double(double) { return mismatch(); }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool copy);
  bool String(const char* text, rapidjson::SizeType length, bool copy);
  bool StartObject();
  bool Key(const char* text, rapidjson::SizeType length, bool copy);
  bool EndObject(rapidjson::SizeType memberCount);
  bool StartArray();
  bool EndArray(rapidjson::SizeType elementCount);

 private:
  // An open object or array, and how its path reads.
  struct Frame {
    const Schema* schema = nullptr;
    void* target = nullptr;
    std::size_t begin = 0;  // input offset of '{', for Schema::raw
    std::size_t count = 0;  // elements so far (arrays)
    // The path element naming this value in its parent.
    enum class Via { Root, Member, Index, Key } via = Via::Root;
    std::string_view member;
    std::size_t index = 0;
    std::string key;
  };

  // The value about to be read: its schema, and its place once it proves well-typed.
  const Schema* slotSchema() const;
  void* slotTarget();
  void slotNull();
  void endValue();
  void appendSlotPath(std::string& path) const;
  void push(const Schema* schema, void* target);
  std::string slotPath() const;

  template <unsigned ParseFlags>
  void parse(const Field& root, void* owner);
  Route routeMember(const Frame& object, std::string_view key) const;
  void skipUnknownMembersAhead(const Frame& object);
  bool takeWhole(const Route& route);
  void checkUtf8(std::string_view text) const;
  // A Time member's string: parsed, or a mismatch.
  bool time(std::string_view text);
  [[noreturn]] bool mismatch() const;
  [[noreturn]] void fail(std::string path, std::string_view message) const;

  Input& in_;
  std::string source_;
  std::string rootPath_;
  FastPaths fastPaths_;
  const Field* rootField_ = nullptr;
  void* rootOwner_ = nullptr;

  std::vector<Frame> frames_;  // frames_[0, depth_) are open; the rest keep their buffers
  std::size_t depth_ = 0;
  const Field* member_ = nullptr;  // the member whose value comes next, in an Object frame
  void* memberOwner_ = nullptr;
  std::string key_;       // the key whose value comes next, in a Map frame
  bool standIn_ = false;  // the next Null is the stand-in of a skipped value
};

}  // namespace scheduling::api::json

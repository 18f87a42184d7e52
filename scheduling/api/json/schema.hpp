#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "scheduling/api/boxed_optional.hpp"

// The decoders are driven by static tables, one per JSON object shape: which members the
// framework reads and where each one goes in the C++ object. A member that is not in the
// table is never decoded: the decoder steps over its value without looking inside.
namespace scheduling::api::json {

class Decoder;
struct Schema;

// A member of a JSON object and its place in the C++ object that receives the object.
struct Field {
  std::string_view name;  // as upstream spells it; matched ignoring ASCII case
  const Schema* schema;
  void* (*access)(void* owner);  // the member, created first when optional
  void (*reset)(void* owner);    // JSON null: back to absent or empty
};

// Where a member goes: the field and the C++ object it belongs to.
struct Route {
  const Field* field = nullptr;  // nullptr: skip the value
  void* owner = nullptr;
};

enum class SchemaType : std::uint8_t {
  Object,   // JSON object with known members (fields or route)
  Array,    // JSON array of `element`
  Map,      // JSON object with data keys (case-sensitive), each value an `element`
  String,   // std::string
  Int32,    // std::int32_t
  Int64,    // std::int64_t
  Time,     // api::OptionalTime, from an RFC 3339 string
  Capture,  // any JSON value, kept as its text in a std::string
};

struct Schema {
  SchemaType type;
  std::string_view expected;  // what a value must be, for type errors: "an object", ...

  // Object.
  std::span<const Field> fields = {};
  Route (*route)(void* target, std::string_view key) = nullptr;  // replaces `fields` when set
  void (*finish)(Decoder& decoder, void* target) = nullptr;      // after the last member
  void (*raw)(void* target, std::string_view bytes) = nullptr;   // the object's exact bytes

  // Array and Map.
  const Schema* element = nullptr;
  void* (*add)(void* container, std::string_view key) = nullptr;  // a new element to fill
  void (*clear)(void* container) = nullptr;                       // arrays are replaced
  // Map or Array of strings: stores one entry directly (no element to fill; `key` is the
  // Map's).
  void (*put)(void* container, std::string_view key, std::string_view value) = nullptr;

  // Any type, a fast path: decodes a member's whole value at once from the bytes that follow
  // its name (`: <value>`) into the Field's access(), and says how many bytes that took. It takes
  // only values it is certain of: 0 leaves the bytes as they are for the ordinary decode, event by
  // event, which then gives what it gives today, errors included. Whatever it takes, the ordinary
  // decode would have decoded to the same. One that gives up part-way may leave in the target only
  // what the ordinary decode then writes again (a map's first entries, put again in order).
  std::size_t (*take)(std::string_view bytes, void* target) = nullptr;
  // Whether what `take` decodes views the bytes it is given: then it is given only a request
  // body (Input::restOfBody), which outlives the decoded value. One that copies is also given
  // a file's read window (Input::bufferedAhead), and gives up where the value crosses its end.
  bool takeViews = false;
};

// Matches JSON member names as encoding/json does for Go struct fields (ASCII letters only;
// Go's extra Unicode folds such as the Kelvin sign are not worth supporting).
bool equalsIgnoreCase(std::string_view a, std::string_view b);
const Field* findField(std::span<const Field> fields, std::string_view key);

namespace schema {

template <typename T>
struct MemberPointer;
template <typename C, typename M>
struct MemberPointer<M C::*> {
  using Owner = C;
  using Type = M;
};

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsOptional<BoxedOptional<T>> : std::true_type {};

template <auto M>
void* member(void* owner) {
  using Traits = MemberPointer<decltype(M)>;
  auto& m = static_cast<typename Traits::Owner*>(owner)->*M;
  if constexpr (IsOptional<typename Traits::Type>::value) {
    if (!m) m.emplace();
    return &*m;
  } else {
    return &m;
  }
}

template <auto M>
void resetMember(void* owner) {
  using Traits = MemberPointer<decltype(M)>;
  static_cast<typename Traits::Owner*>(owner)->*M = typename Traits::Type{};
}

// A member whose value is the owner itself, e.g. NodeList.items when the C++ side holds
// only the item vector.
inline void* self(void* owner) { return owner; }

template <typename T>
void resetSelf(void* owner) {
  *static_cast<T*>(owner) = T{};
}

template <auto M>
constexpr Field field(std::string_view name, const Schema& schema) {
  return Field{name, &schema, &member<M>, &resetMember<M>};
}

template <typename T>
void* append(void* container, std::string_view) {
  return &static_cast<std::vector<T>*>(container)->emplace_back();
}

template <typename T>
void clearVector(void* container) {
  static_cast<std::vector<T>*>(container)->clear();
}

template <typename T>
constexpr Schema arrayOf(const Schema& element) {
  return Schema{.type = SchemaType::Array,
                .expected = "an array",
                .element = &element,
                .add = &append<T>,
                .clear = &clearVector<T>};
}

inline constexpr Schema kString{.type = SchemaType::String, .expected = "a string"};
inline constexpr Schema kInt32{.type = SchemaType::Int32, .expected = "a 32-bit integer"};
inline constexpr Schema kInt64{.type = SchemaType::Int64, .expected = "a 64-bit integer"};
inline constexpr Schema kTime{.type = SchemaType::Time, .expected = "an RFC 3339 time"};
inline constexpr Schema kCapture{.type = SchemaType::Capture, .expected = "a value"};
inline constexpr Schema kStrings = arrayOf<std::string>(kString);

}  // namespace schema

}  // namespace scheduling::api::json

#include "scheduling/api/json/decoder.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <system_error>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/reader_string_copy.hpp"
#include "scheduling/api/json/string_bytes.hpp"
#include "scheduling/api/json/value_scanner.hpp"
#include "scheduling/api/time.hpp"

namespace scheduling::api::json {

namespace {

constexpr std::string_view kStandIn = ":null";

char foldAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c; }

}  // namespace

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (foldAscii(a[i]) != foldAscii(b[i])) return false;
  }
  return true;
}

const Field* findField(std::span<const Field> fields, std::string_view key) {
  for (const Field& f : fields) {
    if (equalsIgnoreCase(f.name, key)) return &f;
  }
  return nullptr;
}

Decoder::Decoder(Input& in, std::string source, std::string rootPath, FastPaths fastPaths)
    : in_(in), source_(std::move(source)), rootPath_(std::move(rootPath)), fastPaths_(fastPaths) {}

void Decoder::decode(const Field& root, void* owner) {
  parse<rapidjson::kParseNumbersAsStringsFlag>(root, owner);
}

void Decoder::decodeFirst(const Field& root, void* owner) {
  parse<rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseStopWhenDoneFlag>(root, owner);
}

template <unsigned ParseFlags>
void Decoder::parse(const Field& root, void* owner) {
  rootField_ = &root;
  rootOwner_ = owner;
  depth_ = 0;
  standIn_ = false;
  rapidjson::Reader reader;
  rapidjson::ParseResult result;
  std::string syntaxMessage;
  try {
    result = reader.Parse<ParseFlags>(in_, *this);
    if (result.IsError()) syntaxMessage = rapidjson::GetParseError_En(result.Code());
  } catch (const SyntaxError& e) {
    result = rapidjson::ParseResult(rapidjson::kParseErrorTermination, e.offset());
    syntaxMessage = e.what();
  }
  // A failed read truncates the input; report the cause, not the truncated JSON.
  if (in_.readError() != 0) {
    fail({}, "read error at offset " + std::to_string(in_.Tell()) + ": " +
                 std::strerror(in_.readError()));
  }
  if (result.IsError()) {
    fail({}, "invalid JSON at offset " + std::to_string(result.Offset()) + ": " + syntaxMessage);
  }
}

std::string Decoder::objectPath() const {
  std::string path = rootPath_;
  for (std::size_t i = 0; i < depth_; ++i) {
    const Frame& f = frames_[i];
    switch (f.via) {
      case Frame::Via::Root:
        break;
      case Frame::Via::Member:
        if (!path.empty()) path += '.';
        path += f.member;
        break;
      case Frame::Via::Index:
        path += '[';
        path += std::to_string(f.index);
        path += ']';
        break;
      case Frame::Via::Key:
        path += '[';
        path += f.key;
        path += ']';
        break;
    }
  }
  return path;
}

void Decoder::failMember(std::string_view member, std::string_view message) const {
  std::string path = objectPath();
  if (!path.empty()) path += '.';
  path += member;
  fail(std::move(path), message);
}

void Decoder::fail(std::string path, std::string_view message) const {
  std::string full = source_;
  if (!full.empty() && !path.empty()) full += ": ";
  full += path;
  if (full.empty()) {
    // An error about the whole document.
    throw DecodeError({}, std::string(message));
  }
  throw DecodeError(std::move(full), std::string(message));
}

// --- the value about to be read ---

const Schema* Decoder::slotSchema() const {
  if (depth_ == 0) return rootField_->schema;
  const Frame& top = frames_[depth_ - 1];
  return top.schema->type == SchemaType::Object ? member_->schema : top.schema->element;
}

void* Decoder::slotTarget() {
  if (depth_ == 0) return rootField_->access(rootOwner_);
  Frame& top = frames_[depth_ - 1];
  switch (top.schema->type) {
    case SchemaType::Object:
      return member_->access(memberOwner_);
    case SchemaType::Map:
      return top.schema->add(top.target, key_);
    default:
      return top.schema->add(top.target, {});
  }
}

void Decoder::slotNull() {
  if (depth_ == 0) {
    rootField_->reset(rootOwner_);
    return;
  }
  Frame& top = frames_[depth_ - 1];
  switch (top.schema->type) {
    case SchemaType::Object:
      member_->reset(memberOwner_);
      break;
    case SchemaType::Map:
      // encoding/json stores the zero value under the key.
      if (top.schema->put != nullptr) {
        top.schema->put(top.target, key_, {});
      } else {
        top.schema->add(top.target, key_);
      }
      break;
    default:
      top.schema->add(top.target, {});
      break;
  }
}

void Decoder::endValue() {
  if (depth_ > 0) ++frames_[depth_ - 1].count;
}

void Decoder::appendSlotPath(std::string& path) const {
  if (depth_ == 0) return;
  const Frame& top = frames_[depth_ - 1];
  switch (top.schema->type) {
    case SchemaType::Object:
      if (!path.empty()) path += '.';
      path += member_->name;
      break;
    case SchemaType::Map:
      path += '[';
      path += key_;
      path += ']';
      break;
    default:
      path += '[';
      path += std::to_string(top.count);
      path += ']';
      break;
  }
}

std::string Decoder::slotPath() const {
  std::string path = objectPath();
  appendSlotPath(path);
  return path;
}

void Decoder::push(const Schema* schema, void* target) {
  Frame::Via via = Frame::Via::Root;
  std::string_view member;
  std::size_t index = 0;
  if (depth_ > 0) {
    const Frame& top = frames_[depth_ - 1];
    switch (top.schema->type) {
      case SchemaType::Object:
        via = Frame::Via::Member;
        member = member_->name;
        break;
      case SchemaType::Map:
        via = Frame::Via::Key;
        break;
      default:
        via = Frame::Via::Index;
        index = top.count;
        break;
    }
  }
  if (depth_ == frames_.size()) frames_.emplace_back();
  Frame& f = frames_[depth_];
  f.schema = schema;
  f.target = target;
  f.begin = in_.Tell() - 1;
  f.count = 0;
  f.via = via;
  f.member = member;
  f.index = index;
  if (via == Frame::Via::Key) f.key = key_;
  ++depth_;
}

// Where a member of the open object goes (Schema::route, else its fields), as Key() reads it.
Route Decoder::routeMember(const Frame& object, std::string_view key) const {
  return object.schema->route != nullptr
             ? object.schema->route(object.target, key)
             : Route{findField(object.schema->fields, key), object.target};
}

void Decoder::skipUnknownMembersAhead(const Frame& object) {
  if (fastPaths_ == FastPaths::Off) return;
  // Most members of a listed Pod or Node are unknown here (containers, volumes, conditions...),
  // and each cost the reader a key event, a stand-in and a null event around the scan of its
  // value. The ones that follow at once, written compactly with a plain name (`,"name"`), are
  // stepped over here instead: the reader sees one member where there were several, which it
  // would have let the scanner step over in the same way, errors and offsets included. The
  // first member it must see, or anything else, is left for it from its comma on.
  for (;;) {
    const std::string_view ahead = in_.bufferedAhead();
    if (ahead.size() < 2 || ahead[0] != ',' || ahead[1] != '"') return;
    const char* const name = ahead.data() + 2;
    const char* const end = ahead.data() + ahead.size();
    const char* const close = findStringSpecial(name, end);
    if (close == end || *close != '"') return;
    if (routeMember(object, {name, static_cast<std::size_t>(close - name)}).field != nullptr) {
      return;
    }
    in_.seek(close + 1);
    ValueScanner::skipMemberValue(in_, nullptr);
  }
}

// A member whose schema has a fast path, given the bytes from here on (the rest of a request
// body when its value may view them, else the bytes buffered), which it takes whole or leaves
// untouched. What it takes, RapidJSON sees as the stand-in of a skipped value.
bool Decoder::takeWhole(const Route& route) {
  const Schema& schema = *route.field->schema;
  if (schema.take == nullptr || fastPaths_ == FastPaths::Off) return false;
  const std::string_view rest = schema.takeViews ? in_.restOfBody() : in_.bufferedAhead();
  if (rest.empty()) return false;
  const std::size_t taken = schema.take(rest, route.field->access(route.owner));
  if (taken == 0) return false;
  in_.seek(in_.cur() + taken);
  return true;
}

void Decoder::checkUtf8(std::string_view text) const {
  if (!isValidUtf8(text)) fail(slotPath(), "invalid UTF-8 in string");
}

bool Decoder::mismatch() const {
  std::string path = slotPath();
  std::string message = "expected " + std::string(slotSchema()->expected);
  if (path.empty()) message += " at the top level";
  fail(std::move(path), message);
}

// --- RapidJSON events ---

bool Decoder::Null() {
  if (standIn_) {
    standIn_ = false;
    return true;
  }
  slotNull();
  endValue();
  return true;
}

bool Decoder::Bool(bool) { return mismatch(); }

bool Decoder::RawNumber(const char* text, rapidjson::SizeType length, bool) {
  const Schema* schema = slotSchema();
  if (schema->type != SchemaType::Int32 && schema->type != SchemaType::Int64) return mismatch();
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text, text + length, value);
  const bool int32 = schema->type == SchemaType::Int32;
  const bool outOfRange =
      ec == std::errc::result_out_of_range || (int32 && ec == std::errc() &&
                                               (value < std::numeric_limits<std::int32_t>::min() ||
                                                value > std::numeric_limits<std::int32_t>::max()));
  if (outOfRange) {
    fail(slotPath(),
         "expected " + std::string(schema->expected) + ", got " + std::string(text, length));
  }
  if (ec != std::errc() || end != text + length) return mismatch();  // 1.5, 1e3
  if (int32) {
    *static_cast<std::int32_t*>(slotTarget()) = static_cast<std::int32_t>(value);
  } else {
    *static_cast<std::int64_t*>(slotTarget()) = value;
  }
  endValue();
  return true;
}

bool Decoder::String(const char* text, rapidjson::SizeType length, bool) {
  const Schema* schema = slotSchema();
  if (schema->type == SchemaType::Time) return time(std::string_view(text, length));
  if (schema->type != SchemaType::String) return mismatch();
  const std::string_view value(text, length);
  checkUtf8(value);
  const Frame* top = depth_ > 0 ? &frames_[depth_ - 1] : nullptr;
  if (top != nullptr && top->schema->put != nullptr) {
    top->schema->put(top->target, key_, value);
  } else {
    static_cast<std::string*>(slotTarget())->assign(value);
  }
  endValue();
  return true;
}

bool Decoder::time(std::string_view text) {
  const std::optional<std::int64_t> seconds = parseRfc3339(text);
  if (!seconds) return mismatch();
  *static_cast<OptionalTime*>(slotTarget()) = OptionalTime::fromUnixSeconds(*seconds);
  endValue();
  return true;
}

bool Decoder::StartObject() {
  const Schema* schema = slotSchema();
  if (schema->type != SchemaType::Object && schema->type != SchemaType::Map) return mismatch();
  push(schema, slotTarget());
  return true;
}

bool Decoder::Key(const char* text, rapidjson::SizeType length, bool) {
  const Frame& top = frames_[depth_ - 1];
  const std::string_view key(text, length);
  if (top.schema->type == SchemaType::Map) {
    key_.assign(key);
    checkUtf8(key);
    return true;
  }
  const Route route = routeMember(top, key);
  if (route.field == nullptr || route.field->schema->type == SchemaType::Capture) {
    std::string* capture = route.field != nullptr
                               ? static_cast<std::string*>(route.field->access(route.owner))
                               : nullptr;
    ValueScanner::skipMemberValue(in_, capture);
    skipUnknownMembersAhead(top);
    in_.substitute(kStandIn);
    standIn_ = true;
    return true;
  }
  if (takeWhole(route)) {
    skipUnknownMembersAhead(top);
    in_.substitute(kStandIn);
    standIn_ = true;
    return true;
  }
  member_ = route.field;
  memberOwner_ = route.owner;
  return true;
}

bool Decoder::EndObject(rapidjson::SizeType) {
  Frame& f = frames_[depth_ - 1];
  if (f.schema->raw != nullptr && !in_.body().empty()) {
    f.schema->raw(f.target, in_.body().substr(f.begin, in_.Tell() - f.begin));
  }
  if (f.schema->finish != nullptr) f.schema->finish(*this, f.target);
  --depth_;
  endValue();
  return true;
}

bool Decoder::StartArray() {
  const Schema* schema = slotSchema();
  if (schema->type != SchemaType::Array) return mismatch();
  void* target = slotTarget();
  schema->clear(target);
  push(schema, target);
  return true;
}

bool Decoder::EndArray(rapidjson::SizeType) {
  --depth_;
  endValue();
  return true;
}

}  // namespace scheduling::api::json

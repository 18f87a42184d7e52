#include "scheduling/api/json/items_scanner.hpp"

#include "scheduling/api/json/schema.hpp"
#include "scheduling/api/json/string_bytes.hpp"

namespace scheduling::api::json {

ItemsScanner::ItemsScanner(std::span<const std::string_view> path, KeyMatch match)
    : path_(path), match_(match), matches_(path.size(), 0) {}

std::string ItemsScanner::pathTo(std::size_t level) const {
  std::string path;
  for (std::size_t l = 0; l < level; ++l) {
    if (l > 0) path += '.';
    path += path_[l];
  }
  return path;
}

std::string ItemsScanner::elementPath(std::size_t i) const {
  return pathTo(path_.size()) + "[" + std::to_string(i) + "]";
}

bool ItemsScanner::fail(std::string path, const std::string& message) {
  irregular_.emplace(std::move(path), message);
  return false;
}

void ItemsScanner::elementEnded(std::size_t end) {
  position_ = end;
  ++elements_;
  state_ = State::AfterElement;
}

void ItemsScanner::readKey(char c) {
  // One byte more than the name looked for is enough to tell a longer key apart.
  if (key_.size() <= path_[level_].size()) key_.push_back(c);
}

bool ItemsScanner::endKey() {
  keyRead_ = false;
  const std::string_view name = path_[level_];
  const bool match = match_ == KeyMatch::Exact ? key_ == name : equalsIgnoreCase(key_, name);
  if (!match) return true;
  if (++matches_[level_] > 1) return fail(pathTo(level_ + 1), "given more than once");
  state_ = State::PathValue;
  return true;
}

bool ItemsScanner::startPathValue(char c) {
  const bool last = level_ + 1 == path_.size();
  if (c == '{' && !last) {
    ++depth_;
    ++level_;
    expectKey_ = true;
    state_ = State::Members;
  } else if (c == '[' && last) {
    ++depth_;
    arrayOpen_ = position_;
    state_ = State::ArrayStart;
  } else {
    return fail(pathTo(level_ + 1), last ? "expected an array" : "expected an object");
  }
  return true;
}

bool ItemsScanner::scanMembers(char c) {
  if (inString_) {
    if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      if (readingKey_) {
        return fail(pathTo(level_), "a member name with an escape where \"" +
                                        std::string(path_[level_]) + "\" is looked for");
      }
      escaped_ = true;
    } else if (c == '"') {
      inString_ = false;
      keyRead_ = readingKey_;
      readingKey_ = false;
    } else if (readingKey_) {
      readKey(c);
    }
    return true;
  }
  const bool namesHere = depth_ == level_ + 1;  // in the object whose member names are read
  switch (c) {
    case '"':
      inString_ = true;
      if (namesHere && expectKey_) {
        readingKey_ = true;
        key_.clear();
      }
      expectKey_ = false;
      break;
    case ':':
      if (namesHere && keyRead_) return endKey();
      break;
    case ',':
      if (namesHere) expectKey_ = true;
      break;
    case '{':
    case '[':
      ++depth_;
      break;
    case '}':
    case ']':
      if (namesHere) {
        if (level_ == 0) {
          state_ = State::Done;
          depth_ = 0;
          break;
        }
        --level_;  // an object on the path ended: back to the names of its parent
      }
      --depth_;
      break;
    default:
      break;
  }
  return true;
}

ItemsScanner::Stop ItemsScanner::scan(std::string_view held, std::size_t heldFrom) {
  if (irregular_) return Stop::Irregular;
  const std::size_t end = heldFrom + held.size();
  for (; position_ < end && state_ != State::Done; ++position_) {
    const char c = held[position_ - heldFrom];
    switch (state_) {
      case State::BeforeDocument:
        if (isJsonSpace(c)) break;
        if (c != '{') {
          fail({}, "expected an object at the top level");
          return Stop::Irregular;
        }
        depth_ = 1;
        expectKey_ = true;
        state_ = State::Members;
        break;
      case State::Members:
        if (inString_ && !escaped_ && !readingKey_) {
          // Inside a string that is not a member name: nothing up to its next '"' or '\\'
          // matters. Most of a body is such strings (NodeNames: every node's name), and
          // stepping over them a byte at a time was a third of a 50,000-name /filter.
          const char* from = held.data() + (position_ - heldFrom);
          const char* to = findStringSpecial(from, held.data() + held.size());
          position_ += static_cast<std::size_t>(to - from);
          if (position_ == end) return Stop::NeedBytes;
        }
        if (!scanMembers(held[position_ - heldFrom])) return Stop::Irregular;
        break;
      case State::PathValue:
        if (isJsonSpace(c)) break;
        if (c == 'n') {
          // null: no array (the rest of the literal passes as member bytes).
          state_ = State::Members;
          ++position_;
          return Stop::NoArray;
        }
        if (!startPathValue(c)) return Stop::Irregular;
        break;
      case State::ArrayStart:
      case State::AfterComma:
        if (isJsonSpace(c)) break;
        if (c == '{') return Stop::Element;
        if (c == ']' && state_ == State::ArrayStart) {
          arrayClose_ = position_;
          --depth_;
          state_ = State::Members;
          break;
        }
        fail(elementPath(elements_), "expected an object");
        return Stop::Irregular;
      case State::AfterElement:
        if (isJsonSpace(c)) break;
        if (c == ',') {
          state_ = State::AfterComma;
        } else if (c == ']') {
          arrayClose_ = position_;
          --depth_;
          state_ = State::Members;
        } else {
          fail(elementPath(elements_ - 1), "expected ',' or ']' after it");
          return Stop::Irregular;
        }
        break;
      case State::Done:
        break;
    }
  }
  return Stop::NeedBytes;
}

}  // namespace scheduling::api::json

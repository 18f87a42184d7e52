#include "scheduling/sources/yaml_to_json.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <stdexcept>

namespace scheduling::sources {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// " at line L, column C", both counted from 1 as editors do.
std::string at(const YAML::Mark& mark) {
  return " at line " + std::to_string(mark.line + 1) + ", column " +
         std::to_string(mark.column + 1);
}

bool isInteger(const std::string& text, long long& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

// Plain scalars are typed as yamlToJson says; a quoted scalar (tag "!") is always a string.
void writeScalar(Writer& w, const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() != "!") {
    long long integer = 0;
    if (text == "null" || text == "Null" || text == "NULL" || text == "~" || text.empty()) {
      w.Null();
      return;
    }
    if (text == "true" || text == "True" || text == "TRUE") {
      w.Bool(true);
      return;
    }
    if (text == "false" || text == "False" || text == "FALSE") {
      w.Bool(false);
      return;
    }
    if (isInteger(text, integer)) {
      w.Int64(integer);
      return;
    }
  }
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void write(Writer& w, const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      w.StartObject();
      for (const auto& entry : node) {
        // YAML allows any value as a key (`? [a]: b`); JSON and Kubernetes objects do not.
        if (!entry.first.IsScalar()) {
          throw std::runtime_error("a member name that is not a string" + at(entry.first.Mark()));
        }
        const std::string& key = entry.first.Scalar();
        w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
        write(w, entry.second);
      }
      w.EndObject();
      return;
    case YAML::NodeType::Sequence:
      w.StartArray();
      for (const auto& item : node) write(w, item);
      w.EndArray();
      return;
    case YAML::NodeType::Scalar:
      writeScalar(w, node);
      return;
    default:
      w.Null();
  }
}

}  // namespace

std::string yamlToJson(const std::string& yamlText) {
  YAML::Node root;
  try {
    root = YAML::Load(yamlText);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("not valid YAML: " + e.msg + at(e.mark));
  }
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  write(w, root);
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace scheduling::sources

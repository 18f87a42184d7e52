#include "server/explain_json.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace server {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void key(Writer& w, std::string_view name) {
  w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}

void string(Writer& w, std::string_view value) {
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void writeVerdict(Writer& w, const scheduling::PluginVerdict& verdict) {
  w.StartObject();
  key(w, "plugin");
  string(w, verdict.plugin);
  key(w, "code");
  string(w, scheduling::framework::codeName(verdict.status.code()));
  key(w, "reasons");
  w.StartArray();
  for (const auto& reason : verdict.status.reasons()) string(w, reason);
  w.EndArray();
  w.EndObject();
}

void writeScore(Writer& w, const scheduling::PluginScore& score) {
  w.StartObject();
  key(w, "plugin");
  string(w, score.plugin);
  key(w, "raw");
  w.Int64(score.raw);
  key(w, "normalized");
  w.Int64(score.normalized);
  key(w, "weight");
  w.Int64(score.weight);
  w.EndObject();
}

void writeNode(Writer& w, const scheduling::NodeExplanation& node) {
  w.StartObject();
  key(w, "name");
  string(w, node.name);
  key(w, "feasible");
  w.Bool(node.feasible);
  key(w, "filter");
  w.StartArray();
  for (const auto& verdict : node.filter) writeVerdict(w, verdict);
  w.EndArray();
  if (node.feasible) {
    key(w, "scores");
    w.StartArray();
    for (const auto& score : node.scores) writeScore(w, score);
    w.EndArray();
    key(w, "total");
    w.Int64(node.total);
    key(w, "score");
    w.Int64(node.score);
  }
  w.EndObject();
}

}  // namespace

std::string encodeExplanation(const scheduling::Explanation& explanation) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  key(w, "pod");
  string(w, explanation.pod);
  key(w, "numAllNodes");
  w.Int64(explanation.numAllNodes);
  key(w, "numFeasibleNodesToFind");
  w.Int64(explanation.numFeasibleNodesToFind);
  key(w, "nodes");
  w.StartArray();
  for (const auto& node : explanation.nodes) writeNode(w, node);
  w.EndArray();
  if (!explanation.error.empty()) {
    key(w, "error");
    string(w, explanation.error);
  }
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace server

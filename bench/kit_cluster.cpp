#include "bench/kit_cluster.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <stdexcept>
#include <string_view>

#include "scheduling/informers/list_stream_splitter.hpp"

namespace bench {
namespace {

std::string stringAt(const rapidjson::Value& object, const char* key) {
  const auto it = object.FindMember(key);
  return it != object.MemberEnd() && it->value.IsString()
             ? std::string(it->value.GetString(), it->value.GetStringLength())
             : std::string();
}

const rapidjson::Value* objectAt(const rapidjson::Value& object, const char* key) {
  const auto it = object.FindMember(key);
  return it != object.MemberEnd() && it->value.IsObject() ? &it->value : nullptr;
}

// The members of `object` but those named, as raw JSON members without braces.
std::string bulkOf(const rapidjson::Value* object, std::initializer_list<std::string_view> read) {
  if (object == nullptr) return {};
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  for (const auto& member : object->GetObject()) {
    const std::string_view key(member.name.GetString(), member.name.GetStringLength());
    if (std::find(read.begin(), read.end(), key) != read.end()) continue;
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    member.value.Accept(writer);
  }
  writer.EndObject();
  const std::string_view text(buffer.GetString(), buffer.GetSize());
  return std::string(text.substr(1, text.size() - 2));
}

testing::ApiObject objectOf(const rapidjson::Value& item) {
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* metadata = objectAt(item, "metadata");
  if (metadata == nullptr) metadata = &kEmpty;
  testing::ApiObject object;
  object.name = stringAt(*metadata, "name");
  object.ns = stringAt(*metadata, "namespace");
  object.terminating = metadata->HasMember("deletionTimestamp");
  if (const auto* labels = objectAt(*metadata, "labels")) {
    for (const auto& label : labels->GetObject()) {
      if (label.value.IsString())
        object.labels.emplace(label.name.GetString(), label.value.GetString());
    }
  }
  if (const auto* spec = objectAt(item, "spec")) {
    object.nodeName = stringAt(*spec, "nodeName");
    if (auto name = stringAt(*spec, "schedulerName"); !name.empty()) object.schedulerName = name;
    if (const auto* affinity = objectAt(*spec, "affinity")) {
      rapidjson::StringBuffer buffer;
      rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
      affinity->Accept(writer);
      object.affinityJson.assign(buffer.GetString(), buffer.GetSize());
    }
  }
  if (const auto* status = objectAt(item, "status")) {
    if (auto phase = stringAt(*status, "phase"); !phase.empty()) object.phase = phase;
    object.nominatedNodeName = stringAt(*status, "nominatedNodeName");
  }
  // The rest, served as it is: the extender steps over it as it would over a real object's.
  // The double sets uid and resourceVersion itself.
  object.metadataBulk = bulkOf(
      metadata, {"name", "namespace", "uid", "resourceVersion", "labels", "deletionTimestamp"});
  object.specBulk = bulkOf(objectAt(item, "spec"), {"nodeName", "schedulerName", "affinity"});
  object.statusBulk = bulkOf(objectAt(item, "status"), {"phase", "nominatedNodeName"});
  return object;
}

}  // namespace

KitCluster readKitCluster(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  KitCluster cluster;
  scheduling::informers::ListStreamSplitter splitter;
  std::string chunk(4u << 20, '\0');
  rapidjson::Document item;
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    splitter.append(std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())));
    for (auto text = splitter.nextItem(); !text.empty(); text = splitter.nextItem()) {
      if (item.Parse(text.data(), text.size()).HasParseError() || !item.IsObject()) {
        throw std::runtime_error(path + ": items[" + std::to_string(splitter.itemsSeen() - 1) +
                                 "] is not a JSON object");
      }
      const std::string kind = stringAt(item, "kind");
      if (kind == "Pod") {
        cluster.pods.push_back(objectOf(item));
      } else if (kind == "Node") {
        cluster.nodes.push_back(objectOf(item));
      } else if (kind == "Namespace") {
        cluster.namespaces.push_back(objectOf(item));
      }
    }
  }
  if (!splitter.complete()) {
    throw std::runtime_error(path + ": the file ends inside the List, after " +
                             std::to_string(splitter.itemsSeen()) +
                             " items (truncated? gen_cluster.py may not have finished)");
  }
  return cluster;
}

}  // namespace bench

#include "test/fuzz/targets.hpp"

#include <cstdio>
#include <memory>
#include <string>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/api_server_codec.hpp"
#include "scheduling/api/json/extender_codec.hpp"
#include "scheduling/api/json/list_reader.hpp"
#include "scheduling/config/configuration.hpp"
#include "scheduling/informers/json_stream_framer.hpp"
#include "scheduling/informers/list_stream_splitter.hpp"

namespace fuzz {
namespace {

std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace

int extenderArgs(const std::uint8_t* data, std::size_t size) {
  try {
    const auto args = scheduling::api::json::decodeExtenderArgs(asText(data, size));
    // Echo what was decoded, as /filter does, so the raw Node slices are exercised too.
    scheduling::api::ExtenderFilterResult result;
    if (args.nodes) {
      result.nodes.emplace();
      for (const auto& node : *args.nodes) result.nodes->push_back(node.raw);
    } else {
      result.nodeNames = args.nodeNames.value_or(std::vector<std::string>{});
    }
    scheduling::api::json::encode(result);
  } catch (const scheduling::api::DecodeError&) {
  }
  return 0;
}

int extenderPreemptionArgs(const std::uint8_t* data, std::size_t size) {
  try {
    scheduling::api::json::decodeExtenderPreemptionArgs(asText(data, size));
  } catch (const scheduling::api::DecodeError&) {
  }
  return 0;
}

int clusterStateList(const std::uint8_t* data, std::size_t size) {
  std::string copy(asText(data, size));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(fmemopen(copy.data(), copy.size(), "rb"),
                                                       &std::fclose);
  if (!file) return 0;  // fmemopen refuses empty buffers
  scheduling::api::json::ListVisitor visitor;
  visitor.node = [](scheduling::api::Node&&) {};
  visitor.pod = [](scheduling::api::Pod&&) {};
  visitor.ns = [](scheduling::api::Namespace&&) {};
  try {
    scheduling::api::json::readList(file.get(), "fuzz", visitor);
  } catch (const scheduling::api::DecodeError&) {
  }
  return 0;
}

int configuration(const std::uint8_t* data, std::size_t size) {
  try {
    scheduling::config::parseConfiguration(std::string(asText(data, size)), "fuzz");
  } catch (const scheduling::config::ConfigError&) {
  }
  return 0;
}

// A watch or list answer as the informers read it, in two reads split in the middle as a
// network read might: cut into events, each decoded as a pod event; and cut into list items,
// each decoded as a node, with the list's metadata at the end.
int watchStream(const std::uint8_t* data, std::size_t size) {
  namespace json = scheduling::api::json;
  const std::string_view text = asText(data, size);
  const std::string_view reads[] = {text.substr(0, size / 2), text.substr(size / 2)};
  scheduling::informers::JsonStreamFramer framer;
  for (const auto read : reads) {
    framer.append(read);
    for (auto event = framer.next(); !event.empty(); event = framer.next()) {
      try {
        json::decodeWatchEvent<scheduling::api::Pod>(event);
      } catch (const scheduling::api::DecodeError&) {
      }
    }
  }
  try {
    scheduling::informers::ListStreamSplitter splitter;
    for (const auto read : reads) {
      splitter.append(read);
      for (auto item = splitter.nextItem(); !item.empty(); item = splitter.nextItem()) {
        try {
          json::decodeListItem<scheduling::api::Node>(item, splitter.itemsSeen() - 1);
        } catch (const scheduling::api::DecodeError&) {
        }
      }
    }
    if (splitter.complete()) json::decodeListMeta(splitter.envelope());
  } catch (const scheduling::api::DecodeError&) {
  }
  return 0;
}

}  // namespace fuzz

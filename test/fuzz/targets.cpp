#include "test/fuzz/targets.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "plugins/registry.hpp"
#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/api_server_codec.hpp"
#include "scheduling/api/json/extender_args_stream.hpp"
#include "scheduling/api/json/extender_codec.hpp"
#include "scheduling/api/json/list_reader.hpp"
#include "scheduling/config/configuration.hpp"
#include "scheduling/framework/runtime/framework.hpp"
#include "scheduling/informers/json_stream_framer.hpp"
#include "scheduling/informers/list_stream_splitter.hpp"
#include "test/testing/extender_args_decodes.hpp"

namespace fuzz {
namespace {

std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace

// Decoding the body whole, event by event without the NodeNames fast path, and as it arrives
// in three reads, must give the same arguments (every Node's raw bytes at the same place) or
// the same error: a difference aborts.
int extenderArgs(const std::uint8_t* data, std::size_t size) {
  namespace api = scheduling::api;
  const std::string_view body = asText(data, size);
  const testing::DecodedArgs whole =
      testing::decodeArgs([body] { return api::json::decodeExtenderArgs(body); });
  const testing::DecodedArgs eventByEvent =
      testing::decodeArgs([body] { return api::json::decodeExtenderArgsEventByEvent(body); });
  api::json::ExtenderArgsStreamDecoder stream;
  stream.receive(body.substr(0, size / 3));
  stream.receive(body.substr(0, 2 * size / 3));
  const testing::DecodedArgs streamed = testing::decodeArgs([&] { return stream.finish(body); });
  for (const auto& [other, how] :
       {std::pair{&eventByEvent, "event by event"}, std::pair{&streamed, "as it arrived"}}) {
    if (const std::string differs = testing::decodeDifference(whole, *other); !differs.empty()) {
      std::fprintf(stderr, "extender_args: decoded whole and %s: %s\n", how, differs.c_str());
      std::abort();
    }
  }
  if (!whole.args) return 0;

  // Echo what was decoded, as /filter does, so the raw Node slices are exercised too.
  api::ExtenderFilterResult result;
  if (whole.args->nodes) {
    result.nodes.emplace();
    for (const auto& node : *whole.args->nodes) result.nodes->push_back(node.raw);
  } else {
    result.nodeNames.emplace();
    if (whole.args->nodeNames) {
      result.nodeNames->assign(whole.args->nodeNames->begin(), whole.args->nodeNames->end());
    }
  }
  api::json::encode(result);
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
  visitor.pdb = [](scheduling::api::PodDisruptionBudget&&) {};
  try {
    scheduling::api::json::readList(file.get(), "fuzz", visitor);
  } catch (const scheduling::api::DecodeError&) {
  }
  return 0;
}

int configuration(const std::uint8_t* data, std::size_t size) {
  try {
    // As --config is read: the file, then each plugin's args by the plugin itself.
    const auto configuration =
        scheduling::config::parseConfiguration(std::string(asText(data, size)), "fuzz");
    scheduling::framework::runtime::Framework(configuration, plugins::inTreeRegistry());
  } catch (const scheduling::config::ConfigError&) {
  }
  return 0;
}

// A watch or list answer as the informers read it, in two reads split in the middle as a
// network read might: cut into events, each decoded as a pod event and as a
// PodDisruptionBudget event; and cut into list items, each decoded as a node, with the list's
// metadata at the end.
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
      try {
        json::decodeWatchEvent<scheduling::api::PodDisruptionBudget>(event);
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

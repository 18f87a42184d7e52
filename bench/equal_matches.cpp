#include "bench/equal_matches.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bench {

namespace {

struct Deployment {
  std::string ns;
  std::string hash;  // pod-template-hash
  std::size_t pods = 0;
  bool batch = false;
  bool shop = false;  // its namespace is labelled team: shop
};

// The snapshot's Deployments (pods with a pod-template-hash), with their assigned pods.
std::vector<Deployment> deploymentsOf(const scheduling::cache::Snapshot& snapshot) {
  std::map<std::pair<std::string, std::string>, Deployment> byKey;  // by (namespace, hash)
  for (const auto* node : snapshot.nodeInfoList()) {
    for (const auto& info : node->pods()) {
      const auto& meta = info->pod().metadata;
      const auto hash = meta.labels.get("pod-template-hash");
      if (!hash) continue;
      Deployment& d = byKey[{meta.ns, std::string(*hash)}];
      ++d.pods;
      d.batch = meta.labels.get("tier") == "batch";
    }
  }
  std::vector<Deployment> all;
  for (auto& [key, d] : byKey) {
    d.ns = key.first;
    d.hash = key.second;
    d.shop = snapshot.namespaceLabels(d.ns).get("team") == "shop";
    all.push_back(std::move(d));
  }
  return all;
}

// The Deployment nearest `pods` pods among those `fits` accepts, the first in (namespace,
// hash) order among equals.
template <class Fits>
const Deployment& nearest(const std::vector<Deployment>& all, std::size_t pods, Fits fits,
                          std::string_view wanted) {
  const Deployment* best = nullptr;
  const auto distance = [&](const Deployment& d) {
    return d.pods > pods ? d.pods - pods : pods - d.pods;
  };
  for (const Deployment& d : all) {
    if (fits(d) && (best == nullptr || distance(d) < distance(*best))) best = &d;
  }
  if (best == nullptr) throw std::runtime_error("the cluster has no " + std::string(wanted));
  return *best;
}

void selectDeployment(rapidjson::Value& term, const Deployment& d,
                      rapidjson::Document::AllocatorType& alloc) {
  rapidjson::Value labels(rapidjson::kObjectType);
  labels.AddMember("pod-template-hash", rapidjson::Value(d.hash.c_str(), alloc), alloc);
  rapidjson::Value selector(rapidjson::kObjectType);
  selector.AddMember("matchLabels", labels, alloc);
  term["labelSelector"] = selector;
}

}  // namespace

EqualMatchesRequest equalMatchesRequest(const std::string& sampledBody,
                                        const scheduling::cache::Snapshot& snapshot) {
  const std::vector<Deployment> all = deploymentsOf(snapshot);
  const Deployment& own = nearest(
      all, 50, [](const Deployment& d) { return d.shop && !d.batch; },
      "Deployment in a `team: shop` namespace for the pod's own terms");
  const Deployment& peer = nearest(
      all, 30, [&](const Deployment& d) { return d.shop && !d.batch && &d != &own; },
      "second Deployment in a `team: shop` namespace for the preferred affinity");
  const Deployment& batch = nearest(
      all, 20, [](const Deployment& d) { return d.batch; },
      "Deployment of `tier: batch` pods for the spanning term");

  rapidjson::Document doc;
  doc.Parse(sampledBody.c_str(), sampledBody.size());
  // What is edited below must be there: rapidjson's operator[] does not check.
  const auto has = [](const rapidjson::Value& v, const char* member) {
    return v.IsObject() && v.HasMember(member);
  };
  if (doc.HasParseError() || !has(doc, "Pod") || !has(doc["Pod"], "metadata") ||
      !has(doc["Pod"]["metadata"], "labels") || !has(doc["Pod"], "spec") ||
      !has(doc["Pod"]["spec"], "affinity")) {
    throw std::runtime_error(
        "args-names.json: not ExtenderArgs with Pod.metadata.labels and Pod.spec.affinity");
  }
  auto& alloc = doc.GetAllocator();
  rapidjson::Value& pod = doc["Pod"];
  rapidjson::Value& metadata = pod["metadata"];
  metadata.RemoveMember("namespace");
  metadata.AddMember("namespace", rapidjson::Value(own.ns.c_str(), alloc), alloc);
  // Labels no existing term selects, so that the terms of existing pods add nothing either.
  rapidjson::Value& labels = metadata["labels"];
  for (const auto& [key, value] :
       {std::pair{"app", "equal-matches-probe"},
        std::pair{"app.kubernetes.io/name", "equal-matches-probe"}, std::pair{"tier", "probe"},
        std::pair{"workload-class", "standard"}}) {
    labels.RemoveMember(key);
    labels.AddMember(rapidjson::StringRef(key), rapidjson::StringRef(value), alloc);
  }
  // By namespace selector: none is the pod's own namespace, {} every namespace, else the
  // shop's.
  const auto retarget = [&](rapidjson::Value& term) {
    if (!term.HasMember("namespaceSelector")) {
      selectDeployment(term, own, alloc);
    } else if (term["namespaceSelector"].ObjectEmpty()) {
      selectDeployment(term, batch, alloc);
    } else {
      selectDeployment(term, peer, alloc);
    }
  };
  rapidjson::Value& affinity = pod["spec"]["affinity"];
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    if (!affinity.HasMember(kind)) continue;
    rapidjson::Value& terms = affinity[kind];
    if (terms.HasMember("requiredDuringSchedulingIgnoredDuringExecution")) {
      for (auto& term : terms["requiredDuringSchedulingIgnoredDuringExecution"].GetArray()) {
        retarget(term);
      }
    }
    if (terms.HasMember("preferredDuringSchedulingIgnoredDuringExecution")) {
      for (auto& weighted : terms["preferredDuringSchedulingIgnoredDuringExecution"].GetArray()) {
        retarget(weighted["podAffinityTerm"]);
      }
    }
  }
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  doc.Accept(writer);

  const auto name = [](const Deployment& d) {
    return d.ns + "/" + d.hash + " (" + std::to_string(d.pods) + " pods)";
  };
  return {out.GetString(),
          "own " + name(own) + ", affinity " + name(peer) + ", spanning " + name(batch)};
}

}  // namespace bench

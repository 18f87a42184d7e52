// The streaming reader of `kubectl get nodes,pods,namespaces,poddisruptionbudgets -A -o json`
// Lists.
#include "scheduling/api/json/list_reader.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "scheduling/api/decode_error.hpp"

namespace scheduling::api::json {
namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File fileWith(const std::string& text) {
  File file(std::tmpfile(), &std::fclose);
  BOOST_TEST_REQUIRE(file != nullptr);
  BOOST_TEST_REQUIRE(std::fwrite(text.data(), 1, text.size(), file.get()) == text.size());
  std::rewind(file.get());
  return file;
}

// What a List holds, in file order.
struct Collected {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<Namespace> namespaces;
  std::vector<PodDisruptionBudget> pdbs;
  std::vector<std::string> order;  // kind/name
};

Collected read(const std::string& text) {
  Collected c;
  ListVisitor visitor;
  visitor.node = [&](Node&& n) {
    c.order.push_back("Node/" + n.name);
    c.nodes.push_back(std::move(n));
  };
  visitor.pod = [&](Pod&& p) {
    c.order.push_back("Pod/" + p.metadata.name);
    c.pods.push_back(std::move(p));
  };
  visitor.ns = [&](Namespace&& ns) {
    c.order.push_back("Namespace/" + ns.name);
    c.namespaces.push_back(std::move(ns));
  };
  visitor.pdb = [&](PodDisruptionBudget&& pdb) {
    c.order.push_back("PodDisruptionBudget/" + pdb.metadata.name);
    c.pdbs.push_back(std::move(pdb));
  };
  File file = fileWith(text);
  readList(file.get(), "state.json", visitor);
  return c;
}

std::string readError(const std::string& text) {
  try {
    read(text);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "<read>";
}

std::string list(const std::string& items) {
  return R"({"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[)" + items +
         "]}";
}

const std::string kListedNode =
    R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1","labels":{"zone":"z1"},)"
    R"("annotations":{"a":"b"}},"spec":{"podCIDR":"10.0.0.0/24","taints":[]},)"
    R"("status":{"phase":"Running","images":[{"names":["img"],"sizeBytes":1}]}})";
const std::string kListedPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"shop",)"
    R"("uid":"u1","labels":{"app":"web","version":"v1"}},"spec":{"nodeName":"node-1",)"
    R"("containers":[{"name":"c"}],"affinity":{"podAntiAffinity":{)"
    R"("requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":)"
    R"({"app":"web"}},"topologyKey":"kubernetes.io/hostname","matchLabelKeys":["version"]}]}}},)"
    R"("status":{"phase":"Running","nominatedNodeName":"","startTime":"2024-05-01T09:58:30Z"}})";
const std::string kListedNamespace =
    R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","labels":)"
    R"({"team":"a"}},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}})";
const std::string kListedPdb =
    R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web",)"
    R"("namespace":"shop","uid":"u9","generation":2},"spec":{"minAvailable":2,)"
    R"("selector":{"matchLabels":{"app":"web"}}},"status":{"currentHealthy":3,)"
    R"("desiredHealthy":2,"disruptionsAllowed":1,"expectedPods":3,"observedGeneration":2,)"
    R"("disruptedPods":{"web-2":"2024-05-01T10:00:00Z","web-0":"2024-05-01T10:00:01Z"},)"
    R"("conditions":[{"type":"DisruptionAllowed","status":"True"}]}})";

void checkPod(const Pod& pod) {
  BOOST_TEST(pod.metadata.name == "web-1");
  BOOST_TEST(pod.metadata.ns == "shop");
  BOOST_TEST(pod.metadata.uid == "u1");
  BOOST_TEST(pod.spec.nodeName == "node-1");
  BOOST_TEST(pod.status.phase == "Running");
  BOOST_TEST(pod.status.startTime.unixSeconds() == 1714557510);
  BOOST_TEST_REQUIRE(pod.spec.affinity.has_value());
  BOOST_TEST_REQUIRE(pod.spec.affinity->podAntiAffinity.has_value());
  const auto& terms =
      pod.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution;
  BOOST_TEST_REQUIRE(terms.size() == 1u);
  BOOST_TEST_REQUIRE(terms[0].labelSelector.has_value());
  // matchLabelKeys merged.
  BOOST_TEST((terms[0].labelSelector->matchExpressions ==
              std::vector<LabelSelectorRequirement>{{"version", "In", {"v1"}}}));
}

void checkPdb(const PodDisruptionBudget& pdb) {
  BOOST_TEST(pdb.cacheKey() == "shop/web");
  BOOST_TEST_REQUIRE(pdb.spec.selector.has_value());
  BOOST_TEST((pdb.spec.selector->matchLabels == Labels{{"app", "web"}}));
  BOOST_TEST(pdb.status.disruptionsAllowed == 1);
  BOOST_TEST((pdb.status.disruptedPods == std::vector<std::string>{"web-2", "web-0"}));
}

// An item whose kind comes after its other members.
std::string kindLast(const std::string& item, const std::string& kind) {
  std::string moved = item;
  const std::string member = R"("kind":")" + kind + R"(",)";
  moved.erase(moved.find(member), member.size());
  moved.insert(moved.size() - 1, R"(,"kind":")" + kind + R"(")");
  return moved;
}

BOOST_AUTO_TEST_SUITE(api_list_reader)

BOOST_AUTO_TEST_CASE(ReadsNodesPodsAndNamespacesInFileOrder) {
  const Collected c = read(list(kListedNode + "," + kListedPod + "," + kListedNamespace));
  BOOST_TEST((c.order == std::vector<std::string>{"Node/node-1", "Pod/web-1", "Namespace/shop"}));
  BOOST_TEST_REQUIRE(c.nodes.size() == 1u);
  BOOST_TEST((c.nodes[0].labels == Labels{{"zone", "z1"}}));
  BOOST_TEST_REQUIRE(c.pods.size() == 1u);
  checkPod(c.pods[0]);
  BOOST_TEST_REQUIRE(c.namespaces.size() == 1u);
  BOOST_TEST((c.namespaces[0].labels == Labels{{"team", "a"}}));
}

BOOST_AUTO_TEST_CASE(ReadsPodDisruptionBudgets) {
  const Collected c = read(list(kListedPod + "," + kListedPdb + "," +
                                kindLast(kListedPdb, "PodDisruptionBudget") + "," +
                                R"({"kind":"PodDisruptionBudget","metadata":{"name":"bare"},)"
                                R"("spec":{"selector":null},"status":null})"));
  BOOST_TEST(
      (c.order == std::vector<std::string>{"Pod/web-1", "PodDisruptionBudget/web",
                                           "PodDisruptionBudget/web", "PodDisruptionBudget/bare"}));
  BOOST_TEST_REQUIRE(c.pdbs.size() == 3u);
  checkPdb(c.pdbs[0]);
  checkPdb(c.pdbs[1]);
  BOOST_TEST(!c.pdbs[2].spec.selector.has_value());
  BOOST_TEST(c.pdbs[2].status.disruptionsAllowed == 0);
  BOOST_TEST(c.pdbs[2].status.disruptedPods.empty());
}

BOOST_AUTO_TEST_CASE(KindAfterTheObjectMembers) {
  const Collected c = read(list(kindLast(kListedNode, "Node") + "," + kindLast(kListedPod, "Pod") +
                                "," + kindLast(kListedNamespace, "Namespace")));
  BOOST_TEST((c.order == std::vector<std::string>{"Node/node-1", "Pod/web-1", "Namespace/shop"}));
  BOOST_TEST_REQUIRE(c.nodes.size() == 1u);
  BOOST_TEST((c.nodes[0].labels == Labels{{"zone", "z1"}}));
  BOOST_TEST_REQUIRE(c.pods.size() == 1u);
  checkPod(c.pods[0]);
  BOOST_TEST((c.namespaces.at(0).labels == Labels{{"team", "a"}}));
}

BOOST_AUTO_TEST_CASE(KindBetweenTheObjectMembers) {
  const Collected c = read(
      list(R"({"metadata":{"name":"p","labels":{"a":"b"}},"Kind":"Pod","spec":{"nodeName":"n"},)"
           R"("status":{"phase":"Pending"}})"));
  BOOST_TEST_REQUIRE(c.pods.size() == 1u);
  BOOST_TEST(c.pods[0].metadata.name == "p");
  BOOST_TEST((c.pods[0].metadata.labels == Labels{{"a", "b"}}));
  BOOST_TEST(c.pods[0].spec.nodeName == "n");
  BOOST_TEST(c.pods[0].status.phase == "Pending");
}

BOOST_AUTO_TEST_CASE(SkipsOtherKinds) {
  // Other kinds may reuse member names with other shapes; they are never decoded.
  const Collected c = read(
      list(R"({"kind":"ConfigMap","metadata":{"name":"cm","labels":"x"},"data":{"a":"b"}},)"
           R"({"metadata":{"name":"weird","labels":[1]},"spec":{"affinity":7},"kind":"Widget"},)" +
           kListedNode + R"(,{"kind":"pod","metadata":{"name":"lowercase kind"}})"));
  BOOST_TEST((c.order == std::vector<std::string>{"Node/node-1"}));
}

BOOST_AUTO_TEST_CASE(EmptyLists) {
  BOOST_TEST(read(list("")).order.empty());
  BOOST_TEST(read(R"({"kind":"List","items":null})").order.empty());
  BOOST_TEST(read(R"({"kind":"List"})").order.empty());
}

BOOST_AUTO_TEST_CASE(AVisitorMayTakeOnlySomeKinds) {
  ListVisitor visitor;
  std::vector<std::string> nodes;
  visitor.node = [&](Node&& n) { nodes.push_back(n.name); };
  File file = fileWith(list(kListedPod + "," + kListedNode + "," + kListedNamespace));
  readList(file.get(), "state.json", visitor);
  BOOST_TEST((nodes == std::vector<std::string>{"node-1"}));
}

BOOST_AUTO_TEST_CASE(StreamsAcrossReadWindows) {
  // Well over the 64 KiB read window, with strings (kept and skipped, and an early
  // member kept as text) cut by window edges wherever they fall; the kept names' escapes
  // too, as their plain runs are copied a window's bytes at a time.
  std::string items;
  const std::string filler(7000, 'x');
  constexpr int kPods = 400;
  const auto escapedName = [](int i) {
    return "pod-" + std::to_string(i) + "-" + std::string(i % 97, 'n') + R"(\"q\\\u00e9)" +
           std::string(i % 23, 't');
  };
  const auto decodedName = [](int i) {
    return "pod-" + std::to_string(i) + "-" + std::string(i % 97, 'n') + "\"q\\\xc3\xa9" +
           std::string(i % 23, 't');
  };
  for (int i = 0; i < kPods; ++i) {
    if (!items.empty()) items += ",";
    const std::string name = escapedName(i);
    const std::string metadata = R"({"name":")" + name + R"(","labels":{"i":")" +
                                 std::to_string(i) + R"("},"annotations":{"f":")" + filler +
                                 R"("}})";
    const std::string rest = R"("spec":{"nodeName":"node-)" + std::to_string(i % 7) +
                             R"(","containers":[{"args":[")" + filler.substr(0, i * 13) +
                             R"("]}]})";
    if (i % 2 == 0) {
      items += R"({"kind":"Pod","metadata":)" + metadata + "," + rest + "}";
    } else {
      items += R"({"metadata":)" + metadata + "," + rest + R"(,"kind":"Pod"})";
    }
  }
  const Collected c = read(list(items));
  BOOST_TEST_REQUIRE(c.pods.size() == static_cast<std::size_t>(kPods));
  for (int i = 0; i < kPods; ++i) {
    const Pod& pod = c.pods[static_cast<std::size_t>(i)];
    BOOST_TEST(pod.metadata.name == decodedName(i));
    BOOST_TEST((pod.metadata.labels == Labels{{"i", std::to_string(i)}}));
    BOOST_TEST(pod.spec.nodeName == "node-" + std::to_string(i % 7));
  }
}

BOOST_AUTO_TEST_CASE(LabelsCutByAReadWindowAreStoredAsWhole) {
  // Label maps of a few hundred bytes, one of them across every 64 KiB window edge. The fast
  // path reads a map only when all of it is in the window; one cut there is decoded event by
  // event, from its first label, into an untouched set: every set is laid out as one built
  // label by label (a map read in part, then again, would keep the first bytes twice).
  constexpr int kPods = 2000;
  const auto labelsOf = [](int i) {
    std::vector<std::pair<std::string, std::string>> labels;
    for (int k = 0; k < 5; ++k) {
      labels.emplace_back("key-" + std::to_string(k) + std::string(i % 29, 'k'),
                          "value-" + std::to_string(i) + std::string(i % 31 + 20, 'v'));
    }
    return labels;
  };
  std::string items;
  for (int i = 0; i < kPods; ++i) {
    std::string map;
    for (const auto& [key, value] : labelsOf(i)) {
      map += (map.empty() ? "" : ",") + ("\"" + key + "\":\"" + value + "\"");
    }
    items += (items.empty() ? "" : ",") +
             (R"({"kind":"Pod","metadata":{"name":"p","labels":{)" + map + "}}}");
  }
  const Collected c = read(list(items));
  BOOST_TEST_REQUIRE(c.pods.size() == static_cast<std::size_t>(kPods));
  for (int i = 0; i < kPods; ++i) {
    Labels expected;
    for (const auto& [key, value] : labelsOf(i)) expected.set(key, value);
    expected.shrinkToFit();
    const Labels& decoded = c.pods[static_cast<std::size_t>(i)].metadata.labels;
    BOOST_TEST(decoded == expected);
    BOOST_TEST(decoded.layoutHash() == expected.layoutHash(), "pod " << i);
  }
}

BOOST_AUTO_TEST_CASE(ErrorsNameTheSourceAndThePath) {
  BOOST_TEST(readError(list(R"({"metadata":{"name":"x"}})")) ==
             "state.json: items[0].kind: missing");
  BOOST_TEST(readError(list(kListedNode + R"(,{"kind":null,"metadata":{}})")) ==
             "state.json: items[1].kind: missing");
  BOOST_TEST(readError(list(R"({"kind":5})")) == "state.json: items[0].kind: expected a string");
  BOOST_TEST(readError(list(R"({"kind":"Pod","metadata":{"labels":5}})")) ==
             "state.json: items[0].metadata.labels: expected an object of strings");
  // The same fault in a member read before the kind was known.
  BOOST_TEST(readError(list(kListedNode + R"(,{"metadata":{"labels":5},"kind":"Pod"})")) ==
             "state.json: items[1].metadata.labels: expected an object of strings");
  BOOST_TEST(readError(list(R"({"spec":{"priority":"high"},"kind":"Pod"})")) ==
             "state.json: items[0].spec.priority: expected a 32-bit integer");
  BOOST_TEST(readError(list(R"({"kind":"Pod","status":{"startTime":"2024-05-01"}})")) ==
             "state.json: items[0].status.startTime: expected an RFC 3339 time");
  BOOST_TEST(
      readError(list(R"({"kind":"PodDisruptionBudget","status":{"disruptionsAllowed":"1"}})")) ==
      "state.json: items[0].status.disruptionsAllowed: expected a 32-bit integer");
  BOOST_TEST(readError(list(R"({"kind":"PodDisruptionBudget","spec":{"selector":[]}})")) ==
             "state.json: items[0].spec.selector: expected an object");
  BOOST_TEST(
      readError(list(R"({"kind":"PodDisruptionBudget","status":{"disruptedPods":["a"]}})")) ==
      "state.json: items[0].status.disruptedPods: expected an object of strings");
  BOOST_TEST(readError(list(R"(7)")) == "state.json: items[0]: expected an object");
  BOOST_TEST(readError(R"({"items":{}})") == "state.json: items: expected an array");
  BOOST_TEST(readError("[]") == "state.json: expected an object at the top level");
  BOOST_TEST(readError(R"({"items":[{"kind":"Pod",}]})") ==
             "state.json: invalid JSON at offset 24: Missing a name for object member.");
  BOOST_TEST(readError(R"({"items":[{"kind":"Node","status":{"x":[1,]}}]})") ==
             "state.json: invalid JSON at offset 42: Invalid value.");
  // A raw control character ends a kept string's plain run: reported where it is.
  BOOST_TEST(readError("{\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"name\":\"ab\x01\"}}]}") ==
             "state.json: invalid JSON at offset 46: Invalid escape character in string.");
  BOOST_TEST(readError("") == "state.json: invalid JSON at offset 0: The document is empty.");
}

BOOST_AUTO_TEST_CASE(ReportsReadErrors) {
  // A directory opens as a stream, but reading it fails (EISDIR).
  File dir(std::fopen("/", "rb"), &std::fclose);
  BOOST_TEST_REQUIRE(dir != nullptr);
  try {
    readList(dir.get(), "state.json", ListVisitor{});
    BOOST_FAIL("read");
  } catch (const DecodeError& e) {
    BOOST_TEST(std::string(e.what()).starts_with("state.json: read error at offset 0: "), e.what());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api::json

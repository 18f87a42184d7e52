// The Helm chart's manifests, rendered for every ci/*-values.yaml scenario, checked against
// each other and against the built binary: what kube-scheduler is told to call is what the
// extender serves, where it listens, with the TLS it serves; the RBAC covers what both
// binaries call; names come from the release; a configuration change rolls the pods.
#include <openssl/evp.h>

#include <algorithm>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

#include "test/manifests/chart_render.hpp"
#include "test/manifests/chart_values.hpp"
#include "test/manifests/network_policy.hpp"
#include "test/manifests/rbac.hpp"
#include "test/manifests/scenario.hpp"
#include "test/testing/files.hpp"
#include "test/testing/http_client.hpp"
#include "test/testing/server_process.hpp"

namespace manifests {
namespace {

namespace data = boost::unit_test::data;

const std::vector<std::string> kScenarios = ciScenarios();

struct Url {
  std::string scheme;
  std::string host;
  int port = 0;
};

// kube-scheduler appends "/<verb>" to urlPrefix: it must be scheme://host:port, no path.
Url parseUrl(const std::string& url) {
  static const std::regex shape("^(https?)://([^:/]+):([0-9]+)$");
  std::smatch match;
  if (!std::regex_match(url, match, shape)) return {};
  return {match[1], match[2], std::stoi(match[3])};
}

struct Address {
  std::string host;
  int port = 0;
};

// An extender flag's HOST:PORT (IPv4 or a name; the chart writes no IPv6 literal).
Address listenAddress(const Scenario& s, const std::string& flag) {
  static const std::regex shape("^([^:]+):([0-9]+)$");
  const std::string listen = flagValue(s.extenderContainer["args"], flag);
  std::smatch match;
  if (!std::regex_match(listen, match, shape)) return {};
  return {match[1], std::stoi(match[2])};
}

// The scheduling verbs' port (--listen) and the probes' and /metrics' (--metrics-listen).
int listenPort(const Scenario& s) { return listenAddress(s, "--listen").port; }
int metricsPort(const Scenario& s) { return listenAddress(s, "--metrics-listen").port; }

// How many of the container's arguments set the flag, in either form.
int flagCount(const YAML::Node& arguments, const std::string& flag) {
  int count = 0;
  for (const auto& argument : arguments) {
    const std::string a = text(argument);
    if (a == flag || a.starts_with(flag + "=")) ++count;
  }
  return count;
}

YAML::Node podTemplate(const YAML::Node& deployment) {
  const YAML::Node& d = deployment;
  return d["spec"]["template"];
}

YAML::Node podLabels(const YAML::Node& deployment) {
  const YAML::Node& d = deployment;
  return d["spec"]["template"]["metadata"]["labels"];
}

std::string serviceHost(const YAML::Node& service) {
  return text(service["metadata"]["name"]) + "." + text(service["metadata"]["namespace"]) + ".svc";
}

// The paths the binary says it serves, from its --help ("Endpoints: POST /filter ...; GET
// /healthz ...."), by method.
std::set<std::string> servedPaths(const std::string& method) {
  static const std::string help = testing::runBinary({"--help"}).out;
  const auto line = help.find("Endpoints:");
  const auto at = help.find(method + " ", line);
  std::set<std::string> paths;
  if (line == std::string::npos || at == std::string::npos) return paths;
  const auto end = help.find_first_of(";\n", at);
  std::istringstream words(help.substr(at, end == std::string::npos ? end : end - at));
  std::string word;
  while (words >> word) {
    while (!word.empty() && (word.back() == '.' || word.back() == ';')) word.pop_back();
    if (word.starts_with("/")) paths.insert(word);
  }
  return paths;
}

std::string sha256Hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  std::string hex;
  char byte[3];
  for (unsigned int i = 0; i < size; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", digest[i]);
    hex += byte;
  }
  return hex;
}

ServiceAccount extenderAccount(const Scenario& s) {
  return {text(podSpecOf(s.extenderDeployment)["serviceAccountName"]), Scenario::kNamespace};
}

// Whether the extender's account may create a pod's Binding, in any namespace (a Binding is
// created in its pod's).
bool mayBind(const Scenario& s) {
  return allows(s.manifests, extenderAccount(s), {"", "pods/binding", "create", "default", ""});
}

// Whether kube-scheduler's profile runs without its in-tree InterPodAffinity plugin: disabled
// under multiPoint, which takes it out of every extension point it implements, and enabled
// again at none (a single extension point's setting takes precedence over multiPoint).
bool inTreeInterPodAffinityDisabled(const Scenario& s) {
  const YAML::Node plugins = at(s.schedulerConfig, {"profiles", 0, "plugins"});
  bool disabled = false;
  for (const auto& plugin : at(plugins, {"multiPoint", "disabled"})) {
    const std::string name = text(at(plugin, {"name"}));
    if (name == "InterPodAffinity" || name == "*") disabled = true;
  }
  if (!plugins.IsMap()) return disabled;
  for (const auto& point : plugins) {
    const YAML::Node& pluginSet = point.second;
    for (const auto& plugin : at(pluginSet, {"enabled"})) {
      if (text(at(plugin, {"name"})) == "InterPodAffinity") return false;
    }
  }
  return disabled;
}

// The ci scenarios of one mode, read from their values without rendering.
std::vector<std::string> scenariosInMode(const std::string& mode) {
  std::vector<std::string> names;
  for (const auto& name : kScenarios) {
    if (value(chartValues(chartFile("ci/" + name)), "mode") == mode) names.push_back(name);
  }
  return names;
}

// The values that turn mutual TLS on, for combinations that need it.
const std::vector<std::string> kMutualTls = {"tls.enabled=true", "tls.serverSecretName=s",
                                             "tls.clientAuth.enabled=true",
                                             "tls.clientAuth.clientSecretName=c"};

std::vector<std::string> joined(std::vector<std::string> first,
                                const std::vector<std::string>& second) {
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

// What `helm install` prints after installing: NOTES.txt, which `helm template` leaves out.
std::string renderNotes(const std::vector<std::string>& files,
                        const std::vector<std::string>& sets) {
  const auto result = dryRunInstall({"sx", "scheduling", files, sets});
  BOOST_TEST_REQUIRE(result.exitCode == 0, result.error);
  BOOST_TEST_REQUIRE(!result.notes.empty());
  return result.notes;
}

const std::string kAppVersion = text(YAML::LoadFile(chartFile("Chart.yaml"))["appVersion"]);
const std::string kChartVersion = text(YAML::LoadFile(chartFile("Chart.yaml"))["version"]);

}  // namespace

BOOST_AUTO_TEST_SUITE(chart)

BOOST_AUTO_TEST_CASE(every_scenario_the_issue_asks_for_exists) {
  const std::set<std::string> have(kScenarios.begin(), kScenarios.end());
  for (const auto* want : {"sidecar-values.yaml", "service-http-values.yaml",
                           "service-tls-values.yaml", "service-mtls-values.yaml", "ha-values.yaml",
                           "custom-framework-values.yaml", "bind-values.yaml"}) {
    BOOST_TEST(have.contains(want), want);
  }
}

BOOST_DATA_TEST_CASE(kube_scheduler_calls_the_extender_where_it_listens, data::make(kScenarios),
                     name) {
  const Scenario& s = scenario(name);
  const Url url = parseUrl(text(s.extenderCall["urlPrefix"]));
  BOOST_TEST_REQUIRE(!url.scheme.empty(), text(s.extenderCall["urlPrefix"]));
  const Address listen = listenAddress(s, "--listen");
  const int port = listen.port;
  BOOST_TEST_REQUIRE(port != 0, flagValue(s.extenderContainer["args"], "--listen"));

  // Sidecar: kube-scheduler is in the same pod and its only caller, so the verbs listen on
  // loopback, and the pod declares no such port on its network.
  if (!s.serviceMode()) {
    BOOST_TEST(url.host == "127.0.0.1");
    BOOST_TEST(listen.host == "127.0.0.1");
    BOOST_TEST(url.port == port);
    BOOST_TEST(containerPort(s.extenderContainer, YAML::Node(port)) == 0);
    BOOST_TEST(describe(s.extenderDeployment) == describe(s.schedulerDeployment));
    return;
  }
  // Service: the Service forwards to the pod IP.
  BOOST_TEST(listen.host == "0.0.0.0");
  BOOST_TEST(containerPort(s.extenderContainer, YAML::Node(port)) == port);
  BOOST_TEST(describe(s.extenderDeployment) != describe(s.schedulerDeployment));
  const std::string serviceName = url.host.substr(0, url.host.find('.'));
  const YAML::Node service = s.manifests.find("Service", serviceName);
  BOOST_TEST_REQUIRE(service.IsDefined(), "no Service " << serviceName);
  BOOST_TEST(url.host == serviceHost(service));
  BOOST_TEST(text(service["metadata"]["namespace"]) == Scenario::kNamespace);
  BOOST_TEST(selects(service["spec"]["selector"], podLabels(s.extenderDeployment)));
  BOOST_TEST(!selects(service["spec"]["selector"], podLabels(s.schedulerDeployment)));
  int servicePorts = 0;
  for (const auto& servicePort : service["spec"]["ports"]) {
    if (servicePort["port"].as<int>() != url.port) continue;
    ++servicePorts;
    BOOST_TEST(containerPort(s.extenderContainer, servicePort["targetPort"]) == port);
  }
  BOOST_TEST(servicePorts == 1);
}

// Sidecar mode: the port kube-scheduler calls is bound to 127.0.0.1, so that no other pod can
// reach /bind or /explain, and kubelet's probes, which come over the pod IP, use the other
// listener. Ports are compared as numbers, after resolving the probes' port names.
BOOST_DATA_TEST_CASE(sidecar_mode_binds_the_verbs_to_loopback_and_probes_another_port,
                     data::make(scenariosInMode("sidecar")), name) {
  const Scenario& s = scenario(name);
  BOOST_TEST_REQUIRE(!s.serviceMode());
  const Url url = parseUrl(text(s.extenderCall["urlPrefix"]));
  const Address verbs = listenAddress(s, "--listen");
  const Address metrics = listenAddress(s, "--metrics-listen");
  BOOST_TEST(url.host == "127.0.0.1");
  BOOST_TEST(url.port == verbs.port);
  BOOST_TEST(verbs.host == "127.0.0.1");
  BOOST_TEST(metrics.host == "0.0.0.0");
  BOOST_TEST(metrics.port != verbs.port);
  BOOST_TEST(metrics.port != 10259);  // kube-scheduler's, in the same pod
  for (const auto* probe : {"startupProbe", "readinessProbe", "livenessProbe"}) {
    const YAML::Node port = at(s.extenderContainer, {probe, "httpGet", "port"});
    BOOST_TEST(containerPort(s.extenderContainer, port) == metrics.port, probe);
  }
}

// The pods a NetworkPolicy check tries: kube-scheduler's (from its Deployment), the extender's
// own, an unrelated workload beside them, the same labels as kube-scheduler's in another
// namespace, and a Prometheus in a monitoring namespace.
struct Client {
  std::string what;
  Connection from;
};

std::vector<Client> clientsAt(const Scenario& s, int port) {
  const auto labels = [](std::initializer_list<std::pair<const char*, const char*>> pairs) {
    YAML::Node node(YAML::NodeType::Map);
    for (const auto& [key, value] : pairs) node[key] = value;
    return node;
  };
  const std::string ns = Scenario::kNamespace;
  const YAML::Node home = labels({{"kubernetes.io/metadata.name", Scenario::kNamespace}});
  const YAML::Node elsewhere = labels({{"kubernetes.io/metadata.name", "default"}});
  const YAML::Node monitoring = labels({{"kubernetes.io/metadata.name", "monitoring"}});
  return {
      {"kube-scheduler", {podLabels(s.schedulerDeployment), ns, home, port}},
      {"the extender", {podLabels(s.extenderDeployment), ns, home, port}},
      {"a workload beside them", {labels({{"app", "web"}}), ns, home, port}},
      {"kube-scheduler's labels in another namespace",
       {podLabels(s.schedulerDeployment), "default", elsewhere, port}},
      {"Prometheus",
       {labels({{"app.kubernetes.io/name", "prometheus"}}), "monitoring", monitoring, port}},
  };
}

// Service mode: the extender's pods are isolated for ingress by one policy of this release;
// on the port kube-scheduler calls it admits kube-scheduler's pods and no other, and its rule
// names them by a selector no wider than their Deployment's; the metrics port admits whom
// networkPolicy.metricsFrom names, anyone when it is empty.
BOOST_DATA_TEST_CASE(service_mode_admits_only_kube_scheduler_to_the_port_it_calls,
                     data::make(scenariosInMode("service")), name) {
  const Scenario& s = scenario(name);
  BOOST_TEST_REQUIRE(s.serviceMode());
  BOOST_TEST_REQUIRE(flag(s.values, "networkPolicy.enabled"));
  const auto policies =
      isolatingPolicies(s.manifests, podLabels(s.extenderDeployment), Scenario::kNamespace);
  BOOST_TEST_REQUIRE(policies.size() == 1u);
  const YAML::Node& policy = policies.front();
  BOOST_TEST(text(policy["apiVersion"]) == "networking.k8s.io/v1");
  BOOST_TEST(YAML::Dump(policy["spec"]["policyTypes"]) == YAML::Dump(YAML::Load("[Ingress]")));
  BOOST_TEST(!selectorMatches(policy["spec"]["podSelector"], podLabels(s.schedulerDeployment)));

  // The port kube-scheduler calls, as the pod sees it: the Service's target of the URL's port.
  const Url url = parseUrl(text(s.extenderCall["urlPrefix"]));
  const YAML::Node service = s.manifests.find("Service", url.host.substr(0, url.host.find('.')));
  BOOST_TEST_REQUIRE(service.IsDefined());
  int schedulingPort = 0;
  for (const auto& port : service["spec"]["ports"]) {
    if (port["port"].as<int>() == url.port) {
      schedulingPort = containerPort(s.extenderContainer, port["targetPort"]);
    }
  }
  BOOST_TEST_REQUIRE(schedulingPort == listenPort(s));

  const YAML::Node pod = podTemplate(s.extenderDeployment);
  for (const auto& client : clientsAt(s, schedulingPort)) {
    BOOST_TEST(admits(s.manifests, pod, Scenario::kNamespace, client.from) ==
                   (client.what == "kube-scheduler"),
               client.what << " on the scheduling port");
  }
  // Every rule that opens the scheduling port names pods by labels alone (in the policy's
  // namespace), with every label of the scheduler Deployment's selector: no pod outside it.
  const YAML::Node& deploymentSelector = s.schedulerDeployment["spec"]["selector"]["matchLabels"];
  int rules = 0;
  for (const auto& rule : policy["spec"]["ingress"]) {
    bool opensScheduling = !rule["ports"].IsDefined();
    for (const auto& port : rule["ports"]) {
      opensScheduling = opensScheduling || !port["port"].IsDefined() ||
                        containerPort(s.extenderContainer, port["port"]) == schedulingPort ||
                        text(port["port"]) == std::to_string(schedulingPort);
    }
    if (!opensScheduling) continue;
    ++rules;
    BOOST_TEST_REQUIRE(rule["from"].size() > 0u);
    for (const auto& peer : rule["from"]) {
      BOOST_TEST(!peer["namespaceSelector"].IsDefined());
      BOOST_TEST(!peer["ipBlock"].IsDefined());
      BOOST_TEST(!at(peer, {"podSelector", "matchExpressions"}).IsDefined());
      const YAML::Node matchLabels = at(peer, {"podSelector", "matchLabels"});
      BOOST_TEST(selects(deploymentSelector, matchLabels), YAML::Dump(peer));
      BOOST_TEST(selects(matchLabels, podLabels(s.schedulerDeployment)), YAML::Dump(peer));
    }
  }
  BOOST_TEST(rules == 1);

  // The metrics port: probes come from the node, which every policy admits; Prometheus from
  // where the values say.
  const YAML::Node& metricsFrom = s.values["networkPolicy"]["metricsFrom"];
  const bool anyone = metricsFrom.size() == 0;
  for (const auto& client : clientsAt(s, metricsPort(s))) {
    const bool want = anyone || client.what == "Prometheus";
    BOOST_TEST(admits(s.manifests, pod, Scenario::kNamespace, client.from) == want,
               client.what << " on the metrics port");
  }
  for (const auto& rule : policy["spec"]["ingress"]) {
    if (text(at(rule, {"ports", 0, "port"})) != std::to_string(metricsPort(s))) continue;
    BOOST_TEST(YAML::Dump(rule["from"]) ==
               (anyone ? YAML::Dump(YAML::Node()) : YAML::Dump(metricsFrom)));
  }
}

struct PolicyCase {
  std::string name;
  std::vector<std::string> sets;
  bool rendered;
};
std::ostream& operator<<(std::ostream& os, const PolicyCase& c) { return os << c.name; }

const std::vector<PolicyCase> kPolicyCases = {
    {"service mode", {"mode=service"}, true},
    {"service mode, policy off", {"mode=service", "networkPolicy.enabled=false"}, false},
    {"sidecar mode", {}, true},
    {"sidecar mode, policy off", {"networkPolicy.enabled=false"}, false},
    {"service mode, other ports",
     {"mode=service", "extender.port=7000", "extender.metricsPort=7001"},
     true},
};

// Whatever the mode: with the policy on, nothing but kube-scheduler reaches the scheduling
// port over the network (in sidecar mode not even it: it calls 127.0.0.1, which no policy
// sees), and everyone the metrics port; with it off, nothing is isolated.
BOOST_DATA_TEST_CASE(the_network_policy_is_there_exactly_when_enabled, data::make(kPolicyCases),
                     c) {
  const Scenario s = renderWith(c.sets);
  BOOST_TEST(s.manifests.ofKind("NetworkPolicy").size() == (c.rendered ? 1u : 0u));
  const YAML::Node pod = podTemplate(s.extenderDeployment);
  for (const auto& client : clientsAt(s, listenPort(s))) {
    const bool want = !c.rendered || (s.serviceMode() && client.what == "kube-scheduler");
    BOOST_TEST(admits(s.manifests, pod, Scenario::kNamespace, client.from) == want,
               client.what << " on the scheduling port");
  }
  for (const auto& client : clientsAt(s, metricsPort(s))) {
    BOOST_TEST(admits(s.manifests, pod, Scenario::kNamespace, client.from),
               client.what << " on the metrics port");
  }
  // kube-scheduler's own secure port shares the pod in sidecar mode: still open to all.
  if (!s.serviceMode()) {
    for (const auto& client : clientsAt(s, 10259)) {
      BOOST_TEST(admits(s.manifests, pod, Scenario::kNamespace, client.from), client.what);
    }
  }
  // Who turns it off in service mode is told what that opens.
  const bool warned =
      renderNotes({}, c.sets).find("networkPolicy.enabled is false") != std::string::npos;
  BOOST_TEST(warned == (s.serviceMode() && !c.rendered));
}

BOOST_DATA_TEST_CASE(https_exactly_when_tls_is_on_with_every_file_mounted, data::make(kScenarios),
                     name) {
  const Scenario& s = scenario(name);
  const YAML::Node& call = s.extenderCall;
  const YAML::Node& args = s.extenderContainer["args"];
  BOOST_TEST(parseUrl(text(call["urlPrefix"])).scheme == (s.tls() ? "https" : "http"));
  BOOST_TEST(text(call["enableHTTPS"]) == (s.tls() ? "true" : "false"));
  BOOST_TEST(!flagValue(args, "--tls-cert-file").empty() == s.tls());
  BOOST_TEST(!flagValue(args, "--client-ca-file").empty() == s.mutualTls());
  BOOST_TEST(call["tlsConfig"].IsDefined() == s.tls());
  if (!s.tls()) return;

  const YAML::Node& tlsConfig = call["tlsConfig"];
  const YAML::Node schedulerPod = podSpecOf(s.schedulerDeployment);
  const YAML::Node extenderPod = podSpecOf(s.extenderDeployment);
  const auto schedulerFile = [&](const std::string& field) {
    return mountedFile(schedulerPod, s.schedulerContainer, text(tlsConfig[field]));
  };
  const auto extenderFile = [&](const std::string& flag) {
    return mountedFile(extenderPod, s.extenderContainer, flagValue(args, flag));
  };

  const MountedFile ca = schedulerFile("caFile");
  BOOST_TEST(ca.source == "secret");
  BOOST_TEST(ca.key == "ca.crt");
  BOOST_TEST(ca.readOnly);
  const MountedFile cert = extenderFile("--tls-cert-file");
  const MountedFile key = extenderFile("--tls-private-key-file");
  BOOST_TEST(cert.source == "secret");
  BOOST_TEST(cert.name == value(s.values, "tls.serverSecretName"));
  BOOST_TEST(cert.key == "tls.crt");
  BOOST_TEST(key.name == cert.name);
  BOOST_TEST(key.key == "tls.key");
  BOOST_TEST((cert.readOnly && key.readOnly));

  // kube-scheduler verifies the name the certificate was issued for: by default the
  // Service's DNS name, in sidecar mode too, so that one certificate serves every caller.
  const std::string serverName = value(s.values, "tls.serverName");
  BOOST_TEST(text(tlsConfig["serverName"]) ==
             (serverName.empty()
                  ? std::string(Scenario::kRelease) + "-scheduler-extender-extender." +
                        Scenario::kNamespace + ".svc"
                  : serverName));
  if (s.serviceMode()) {
    BOOST_TEST(text(tlsConfig["serverName"]) == parseUrl(text(call["urlPrefix"])).host);
  }

  BOOST_TEST(tlsConfig["certFile"].IsDefined() == s.mutualTls());
  BOOST_TEST(tlsConfig["keyFile"].IsDefined() == s.mutualTls());
  if (!s.mutualTls()) return;
  const MountedFile clientCert = schedulerFile("certFile");
  const MountedFile clientKey = schedulerFile("keyFile");
  BOOST_TEST(clientCert.source == "secret");
  BOOST_TEST(clientCert.name == value(s.values, "tls.clientAuth.clientSecretName"));
  BOOST_TEST(clientCert.key == "tls.crt");
  BOOST_TEST(clientKey.name == clientCert.name);
  BOOST_TEST(clientKey.key == "tls.key");
  const MountedFile clientCa = extenderFile("--client-ca-file");
  BOOST_TEST(clientCa.source == "secret");
  BOOST_TEST(clientCa.key == "ca.crt");
  BOOST_TEST(clientCa.readOnly);
}

BOOST_DATA_TEST_CASE(verbs_and_probes_name_endpoints_the_binary_serves, data::make(kScenarios),
                     name) {
  const Scenario& s = scenario(name);
  const auto post = servedPaths("POST");
  const auto get = servedPaths("GET");
  BOOST_TEST_REQUIRE(post.contains("/filter"), "--help lists no POST /filter");
  BOOST_TEST_REQUIRE(get.contains("/healthz"), "--help lists no GET /healthz");
  BOOST_TEST(!text(s.extenderCall["filterVerb"]).empty());
  for (const auto* verb : {"filterVerb", "prioritizeVerb", "preemptVerb", "bindVerb"}) {
    const std::string path = "/" + text(s.extenderCall[verb]);
    BOOST_TEST((path == "/" || post.contains(path)), verb << " " << path);
  }
  BOOST_TEST(s.extenderCall["nodeCacheCapable"].IsDefined());
  BOOST_TEST(!text(s.extenderCall["httpTimeout"]).empty());

  const std::string scheme = s.tls() ? "HTTPS" : "HTTP";
  const std::map<std::string, std::string> extenderProbes = {
      {"livenessProbe", "/healthz"}, {"readinessProbe", "/readyz"}, {"startupProbe", ""}};
  for (const auto& [probe, wantPath] : extenderProbes) {
    const YAML::Node httpGet = at(s.extenderContainer, {probe.c_str(), "httpGet"});
    BOOST_TEST_REQUIRE(httpGet.IsDefined(), "extender " << probe);
    const std::string path = text(httpGet["path"]);
    BOOST_TEST(get.contains(path), probe << " " << path);
    if (!wantPath.empty()) BOOST_TEST(path == wantPath, probe);
    // The metrics listener: it serves the probes over the same TLS, without asking for a
    // client certificate, which kubelet does not present.
    BOOST_TEST(containerPort(s.extenderContainer, httpGet["port"]) == metricsPort(s), probe);
    BOOST_TEST(containerPort(s.extenderContainer, httpGet["port"]) != listenPort(s), probe);
    BOOST_TEST(text(httpGet["scheme"]) == scheme, probe);
  }
  for (const auto* probe : {"livenessProbe", "startupProbe"}) {
    const YAML::Node httpGet = at(s.schedulerContainer, {probe, "httpGet"});
    BOOST_TEST_REQUIRE(httpGet.IsDefined(), "kube-scheduler " << probe);
    BOOST_TEST(text(httpGet["path"]) == "/healthz");
    BOOST_TEST(containerPort(s.schedulerContainer, httpGet["port"]) == 10259);
    BOOST_TEST(text(httpGet["scheme"]) == "HTTPS");
  }
}

BOOST_DATA_TEST_CASE(the_extender_arguments_pass_check_config, data::make(kScenarios), name) {
  const Scenario& s = scenario(name);
  const std::string configPath = testing::writeTempFile("config.yaml", s.frameworkConfig);
  // The container's own arguments, so that an unknown flag or a bad combination fails too;
  // --check-config reads the configuration and no other file.
  std::vector<std::string> args;
  for (const auto& arg : s.extenderContainer["args"]) {
    const std::string a = text(arg);
    args.push_back(a.starts_with("--config=") ? "--config=" + configPath : a);
  }
  args.push_back("--check-config");
  const auto result = testing::runBinary(args);
  std::remove(configPath.c_str());
  BOOST_TEST(result.exitCode == 0, result.err);
  BOOST_TEST(result.out.starts_with("configuration OK"), result.out);

  // What the binary understood is what the values asked for.
  const YAML::Node& framework = s.values["framework"];
  for (const auto& plugin : framework["plugins"]["score"]) {
    const int weight = plugin["weight"].IsDefined() ? plugin["weight"].as<int>() : 1;
    const std::string want = text(plugin["name"]) + ":" + std::to_string(weight == 0 ? 1 : weight);
    BOOST_TEST(result.out.find(want) != std::string::npos, want << " in " << result.out);
  }
  const std::string percentage =
      "percentageOfNodesToScore " + text(framework["percentageOfNodesToScore"]);
  BOOST_TEST(result.out.find(percentage) != std::string::npos, result.out);
}

// The one write the extender may make, creating Bindings, is granted exactly when kube-scheduler
// is told to ask for it.
BOOST_DATA_TEST_CASE(the_extender_binds_and_may_bind_exactly_when_bind_verb_is_set,
                     data::make(kScenarios), name) {
  const Scenario& s = scenario(name);
  const std::string bindVerb = value(s.values, "registration.bindVerb");
  BOOST_TEST(s.extenderCall["bindVerb"].IsDefined() == !bindVerb.empty());
  BOOST_TEST(text(s.extenderCall["bindVerb"]) == bindVerb);
  BOOST_TEST(mayBind(s) == !bindVerb.empty());
}

// With the in-tree plugin off, the extender is all that enforces inter-pod affinity: it must be
// asked at /bind (so it knows each placement before its next answer), be one process (what it
// assumed is in its memory), and filter with InterPodAffinity.
BOOST_DATA_TEST_CASE(in_tree_inter_pod_affinity_is_off_exactly_when_the_extender_is_exclusive,
                     data::make(kScenarios), name) {
  const Scenario& s = scenario(name);
  const bool exclusive = flag(s.values, "registration.exclusiveInterPodAffinity");
  BOOST_TEST(inTreeInterPodAffinityDisabled(s) == exclusive);
  if (!exclusive) return;
  BOOST_TEST(text(s.extenderCall["bindVerb"]) == "bind");
  BOOST_TEST(!text(s.extenderCall["filterVerb"]).empty());
  if (s.serviceMode()) BOOST_TEST(s.extenderDeployment["spec"]["replicas"].as<int>() == 1);
  const YAML::Node framework = YAML::Load(s.frameworkConfig);
  bool filters = false;
  for (const auto& plugin : at(framework, {"plugins", "filter"})) {
    if (text(at(plugin, {"name"})) == "InterPodAffinity") filters = true;
  }
  BOOST_TEST(filters, s.frameworkConfig);
}

// The hold is the values'; an assumption lasts until the watch speaks, so the deprecated
// --assumed-pod-ttl, which the binary ignores, is not passed at all.
BOOST_DATA_TEST_CASE(the_extender_holds_as_long_as_the_values_say_and_expires_no_assumption,
                     data::make(kScenarios), name) {
  const Scenario& s = scenario(name);
  const YAML::Node& args = s.extenderContainer["args"];
  BOOST_TEST(flagValue(args, "--in-flight-wait") == value(s.values, "extender.inFlightWait"));
  BOOST_TEST(flagCount(args, "--assumed-pod-ttl") == 0);
  BOOST_TEST(!s.values["extender"]["assumedPodTTL"].IsDefined());
}

// A values file written for an earlier chart still installs: the value is ignored, and the
// notes say so.
BOOST_AUTO_TEST_CASE(an_old_assumed_pod_ttl_value_renders_is_ignored_and_warned_about) {
  const Scenario s = renderWith({"extender.assumedPodTTL=1m"});
  BOOST_TEST(flagCount(s.extenderContainer["args"], "--assumed-pod-ttl") == 0);
  const std::string warning = "extender.assumedPodTTL is deprecated and ignored";
  BOOST_TEST(renderNotes({}, {"extender.assumedPodTTL=1m"}).find(warning) != std::string::npos);
  BOOST_TEST(renderNotes({}, {}).find(warning) == std::string::npos);
}

// /bind binds only pods of this chart's scheduler; kube-scheduler's client certificate, when
// named, is the only one the scheduling verbs answer.
BOOST_DATA_TEST_CASE(the_extender_serves_its_scheduler_and_the_named_client_only,
                     data::make(kScenarios), name) {
  const Scenario& s = scenario(name);
  const YAML::Node& args = s.extenderContainer["args"];
  BOOST_TEST(flagCount(args, "--scheduler-names") == 1);
  BOOST_TEST(flagValue(args, "--scheduler-names") ==
             text(s.schedulerConfig["profiles"][0]["schedulerName"]));
  const std::string clientName = value(s.values, "tls.clientAuth.clientName");
  BOOST_TEST(flagCount(args, "--allowed-client-names") == (clientName.empty() ? 0 : 1));
  BOOST_TEST(flagValue(args, "--allowed-client-names") == clientName);
  if (!clientName.empty()) BOOST_TEST(s.mutualTls());
}

struct CallerCase {
  std::string name;
  std::vector<std::string> sets;
  std::string wantSchedulerNames;
  std::string wantAllowedNames;  // "" when the flag must be absent
};
std::ostream& operator<<(std::ostream& os, const CallerCase& c) { return os << c.name; }

const std::vector<CallerCase> kCallerCases = {
    {"defaults", {}, "sx-scheduler-extender", ""},
    {"a scheduler name of its own", {"schedulerName=affinity"}, "affinity", ""},
    {"mutual TLS with no name", kMutualTls, "sx-scheduler-extender", ""},
    {"mutual TLS with a named client",
     joined(kMutualTls, {"tls.clientAuth.clientName=kube-scheduler"}), "sx-scheduler-extender",
     "kube-scheduler"},
    {"a named client in service mode",
     joined(kMutualTls, {"mode=service", "schedulerName=s1",
                         "tls.clientAuth.clientName=kube-scheduler.scheduling.svc"}),
     "s1", "kube-scheduler.scheduling.svc"},
};

// The expectations are the table's, not read back from the values.
BOOST_DATA_TEST_CASE(scheduler_names_and_allowed_clients_render_what_they_ask,
                     data::make(kCallerCases), c) {
  const Scenario s = renderWith(c.sets);
  const YAML::Node& args = s.extenderContainer["args"];
  BOOST_TEST(flagValue(args, "--scheduler-names") == c.wantSchedulerNames);
  BOOST_TEST(flagCount(args, "--allowed-client-names") == (c.wantAllowedNames.empty() ? 0 : 1));
  BOOST_TEST(flagValue(args, "--allowed-client-names") == c.wantAllowedNames);
}

struct BindCase {
  std::string name;
  std::vector<std::string> sets;
  bool binds;
  bool exclusive;
};
std::ostream& operator<<(std::ostream& os, const BindCase& c) { return os << c.name; }

const std::vector<BindCase> kBindCases = {
    {"defaults", {}, false, false},
    {"bindVerb alone", {"registration.bindVerb=bind"}, true, false},
    {"bindVerb with three extenders behind a Service",
     joined(kMutualTls, {"mode=service", "extender.replicas=3", "registration.bindVerb=bind"}),
     true, false},
    {"exclusive with one extender behind a Service",
     joined(kMutualTls, {"mode=service", "registration.bindVerb=bind",
                         "registration.exclusiveInterPodAffinity=true"}),
     true, true},
    // Only the leader schedules, and it calls its own sidecar.
    {"exclusive with three kube-scheduler pods and their sidecars",
     {"replicas=3", "registration.bindVerb=bind", "registration.exclusiveInterPodAffinity=true"},
     true,
     true},
};

// Combinations no ci scenario holds. The expectations are the table's, not read back from the
// values, so that a value the templates ignore fails here.
BOOST_DATA_TEST_CASE(bind_verb_and_exclusive_affinity_render_what_they_ask, data::make(kBindCases),
                     c) {
  const Scenario s = renderWith(c.sets);
  BOOST_TEST(text(s.extenderCall["bindVerb"]) == (c.binds ? "bind" : ""));
  BOOST_TEST(mayBind(s) == c.binds);
  BOOST_TEST(inTreeInterPodAffinityDisabled(s) == c.exclusive);
  // Nothing else of kube-scheduler's default profile changes.
  const YAML::Node plugins = at(s.schedulerConfig, {"profiles", 0, "plugins"});
  BOOST_TEST(plugins.IsDefined() == c.exclusive);
  if (c.exclusive) {
    BOOST_TEST(plugins.size() == 1u);
    BOOST_TEST(at(plugins, {"multiPoint", "disabled"}).size() == 1u);
    BOOST_TEST(!at(plugins, {"multiPoint", "enabled"}).IsDefined());
  }
  // kube-scheduler's account is not the one the chart grants the write to in service mode.
  if (s.serviceMode()) {
    const ServiceAccount scheduler{text(podSpecOf(s.schedulerDeployment)["serviceAccountName"]),
                                   Scenario::kNamespace};
    BOOST_TEST(!allows(s.manifests, scheduler, {"", "pods/binding", "create", "default", ""}));
  }
}

struct SamplingCase {
  std::string name;
  std::vector<std::string> sets;
  int want;  // kube-scheduler's percentageOfNodesToScore
};
std::ostream& operator<<(std::ostream& os, const SamplingCase& c) { return os << c.name; }

const std::string kExclusive[] = {"registration.bindVerb=bind",
                                  "registration.exclusiveInterPodAffinity=true"};
const std::vector<SamplingCase> kSamplingCases = {
    {"defaults: kube-scheduler's adaptive sampling", {}, 0},
    // Its filters cannot see affinity: every node that passes them goes to the extender,
    // which samples with affinity judged.
    {"exclusive: every node to the extender", {kExclusive[0], kExclusive[1]}, 100},
    {"exclusive, set to adaptive",
     {kExclusive[0], kExclusive[1], "kubeScheduler.percentageOfNodesToScore=0"},
     0},
    {"set", {"kubeScheduler.percentageOfNodesToScore=30"}, 30},
};

BOOST_DATA_TEST_CASE(kube_scheduler_samples_only_where_its_filters_judge_affinity,
                     data::make(kSamplingCases), c) {
  const Scenario s = renderWith(c.sets);
  BOOST_TEST(at(s.schedulerConfig, {"percentageOfNodesToScore"}).as<int>() == c.want);
}

BOOST_DATA_TEST_CASE(rbac_lets_each_binary_do_what_it_calls, data::make(kScenarios), name) {
  const Scenario& s = scenario(name);
  const ServiceAccount extender{text(podSpecOf(s.extenderDeployment)["serviceAccountName"]),
                                Scenario::kNamespace};
  const ServiceAccount scheduler{text(podSpecOf(s.schedulerDeployment)["serviceAccountName"]),
                                 Scenario::kNamespace};
  for (const auto& account : {extender, scheduler}) {
    BOOST_TEST(s.manifests.find("ServiceAccount", account.name).IsDefined(), account.name);
  }
  BOOST_TEST((extender.name == scheduler.name) == !s.serviceMode());

  // The extender's informers list and watch across namespaces; single objects by name too.
  // PodDisruptionBudgets are policy/v1's, which /preempt weighs victims by.
  for (const auto& [group, resource] :
       {std::pair{"", "pods"}, std::pair{"", "nodes"}, std::pair{"", "namespaces"},
        std::pair{"policy", "poddisruptionbudgets"}}) {
    for (const auto* verb : {"get", "list", "watch"}) {
      BOOST_TEST(allows(s.manifests, extender, {group, resource, verb, "", ""}),
                 verb << " " << resource);
    }
    BOOST_TEST(!allows(s.manifests, extender, {group, resource, "create", "", ""}), resource);
    BOOST_TEST(!allows(s.manifests, extender, {group, resource, "delete", "", ""}), resource);
  }
  // Nothing else of the policy group (evictions, say), nor budgets in another group.
  BOOST_TEST(!allows(s.manifests, extender, {"policy", "podsecuritypolicies", "list", "", ""}));
  BOOST_TEST(!allows(s.manifests, extender, {"", "poddisruptionbudgets", "list", "", ""}));
  if (s.serviceMode()) {
    BOOST_TEST(boundRoles(s.manifests, extender).size() == 1u);
  }

  // kube-scheduler: the default scheduler's roles, and the authentication ConfigMap.
  const auto roles = boundRoles(s.manifests, scheduler);
  for (const auto* want :
       {"ClusterRole system:kube-scheduler", "ClusterRole system:volume-scheduler",
        "kube-system/Role extension-apiserver-authentication-reader"}) {
    BOOST_TEST((std::find(roles.begin(), roles.end(), want) != roles.end()), want);
  }

  // Its own lease, and no other: system:kube-scheduler grants only "kube-scheduler".
  const YAML::Node& election = s.schedulerConfig["leaderElection"];
  if (text(election["leaderElect"]) != "true") return;
  const std::string lease = text(election["resourceName"]);
  const std::string leaseNamespace = text(election["resourceNamespace"]);
  BOOST_TEST(text(election["resourceLock"]) == "leases");
  BOOST_TEST(lease == text(s.schedulerConfig["profiles"][0]["schedulerName"]));
  BOOST_TEST(leaseNamespace == Scenario::kNamespace);
  const std::string group = "coordination.k8s.io";
  BOOST_TEST(allows(s.manifests, scheduler, {group, "leases", "create", leaseNamespace, ""}));
  for (const auto* verb : {"get", "update"}) {
    BOOST_TEST(allows(s.manifests, scheduler, {group, "leases", verb, leaseNamespace, lease}),
               verb);
    BOOST_TEST(!allows(s.manifests, scheduler, {group, "leases", verb, leaseNamespace, "other"}),
               verb);
    BOOST_TEST(!allows(s.manifests, scheduler, {group, "leases", verb, "default", lease}), verb);
  }
}

BOOST_DATA_TEST_CASE(scheduler_name_replicas_and_disruption_budgets_follow_the_values,
                     data::make(kScenarios), name) {
  const Scenario& s = scenario(name);
  const std::string wantName = value(s.values, "schedulerName").empty()
                                   ? std::string(Scenario::kRelease) + "-scheduler-extender"
                                   : value(s.values, "schedulerName");
  BOOST_TEST(s.schedulerConfig["profiles"].size() == 1u);
  BOOST_TEST(text(s.schedulerConfig["profiles"][0]["schedulerName"]) == wantName);
  BOOST_TEST(text(s.schedulerConfig["apiVersion"]) == "kubescheduler.config.k8s.io/v1");
  BOOST_TEST(text(s.schedulerConfig["kind"]) == "KubeSchedulerConfiguration");

  const int replicas = s.schedulerDeployment["spec"]["replicas"].as<int>();
  BOOST_TEST(replicas == number(s.values, "replicas"));
  const bool elected = text(s.schedulerConfig["leaderElection"]["leaderElect"]) == "true";
  BOOST_TEST(elected == flag(s.values, "leaderElection.enabled"));
  if (replicas > 1) BOOST_TEST(elected);
  // Without leader election a rolling update would run two schedulers at once.
  if (!elected)
    BOOST_TEST(text(at(s.schedulerDeployment, {"spec", "strategy", "type"})) == "Recreate");

  const auto budgetsFor = [&](const YAML::Node& deployment) {
    int count = 0;
    for (const auto& pdb : s.manifests.ofKind("PodDisruptionBudget")) {
      if (selects(pdb["spec"]["selector"]["matchLabels"], podLabels(deployment))) ++count;
    }
    return count;
  };
  BOOST_TEST(budgetsFor(s.schedulerDeployment) == (replicas > 1 ? 1 : 0));
  if (s.serviceMode()) {
    const int extenders = s.extenderDeployment["spec"]["replicas"].as<int>();
    BOOST_TEST(extenders == number(s.values, "extender.replicas"));
    BOOST_TEST(budgetsFor(s.extenderDeployment) == (extenders > 1 ? 1 : 0));
  }
}

BOOST_DATA_TEST_CASE(objects_are_named_labelled_and_placed_by_the_release, data::make(kScenarios),
                     name) {
  const Scenario& s = scenario(name);
  const std::set<std::string> clusterKinds = {"ClusterRole", "ClusterRoleBinding"};
  for (const auto& object : s.manifests.objects()) {
    const YAML::Node& metadata = object["metadata"];
    const std::string objectName = text(metadata["name"]);
    BOOST_TEST(objectName.starts_with(std::string(Scenario::kRelease) + "-"), describe(object));
    BOOST_TEST(objectName.size() <= 63u, describe(object));
    const YAML::Node& labels = metadata["labels"];
    BOOST_TEST(text(labels["app.kubernetes.io/name"]) == "scheduler-extender", describe(object));
    BOOST_TEST(text(labels["app.kubernetes.io/instance"]) == Scenario::kRelease);
    BOOST_TEST(text(labels["app.kubernetes.io/managed-by"]) == "Helm");
    BOOST_TEST(text(labels["app.kubernetes.io/version"]) == kAppVersion);
    BOOST_TEST(text(labels["helm.sh/chart"]) == "scheduler-extender-" + kChartVersion);

    const std::string kind = text(object["kind"]);
    const std::string ns = text(metadata["namespace"]);
    if (clusterKinds.contains(kind)) {
      BOOST_TEST(ns.empty(), describe(object));
    } else if (kind == "RoleBinding" &&
               text(object["roleRef"]["name"]) == "extension-apiserver-authentication-reader") {
      BOOST_TEST(ns == "kube-system");
    } else {
      BOOST_TEST(ns == Scenario::kNamespace, describe(object));
    }
  }
  for (const auto& deployment : s.manifests.ofKind("Deployment")) {
    BOOST_TEST(selects(deployment["spec"]["selector"]["matchLabels"], podLabels(deployment)),
               describe(deployment));
    for (const auto& other : s.manifests.ofKind("Deployment")) {
      if (describe(other) == describe(deployment)) continue;
      BOOST_TEST(!selects(deployment["spec"]["selector"]["matchLabels"], podLabels(other)));
    }
  }
  BOOST_TEST(text(s.extenderContainer["image"]) ==
             value(s.values, "extender.image.repository") + ":" +
                 (value(s.values, "extender.image.tag").empty()
                      ? kAppVersion
                      : value(s.values, "extender.image.tag")));
  BOOST_TEST(text(s.schedulerContainer["image"]) ==
             "registry.k8s.io/kube-scheduler:" + value(s.values, "kubeScheduler.image.tag"));
}

BOOST_DATA_TEST_CASE(two_releases_share_no_object_name, data::make(kScenarios), name) {
  std::set<std::string> seen;
  std::set<std::string> schedulerNames;
  for (const auto* release : {"alpha", "beta"}) {
    const auto result = renderChart({release, Scenario::kNamespace, {chartFile("ci/" + name)}, {}});
    BOOST_TEST_REQUIRE(result.exitCode == 0, result.error);
    const ManifestSet manifests(result.manifests);
    for (const auto& object : manifests.objects()) {
      BOOST_TEST(seen.insert(describe(object)).second, describe(object) << " in both releases");
    }
    for (const auto& configMap : manifests.ofKind("ConfigMap")) {
      const YAML::Node config = YAML::Load(text(configMap["data"]["config.yaml"]));
      if (config["profiles"].IsDefined()) {
        schedulerNames.insert(text(config["profiles"][0]["schedulerName"]));
      }
    }
  }
  // Unless set by hand, the scheduler's name (and so its lease) is the release's too.
  if (value(scenario(name).values, "schedulerName").empty()) {
    BOOST_TEST(schedulerNames.size() == 2u);
  }
}

BOOST_DATA_TEST_CASE(pods_run_locked_down, data::make(kScenarios), name) {
  const Scenario& s = scenario(name);
  for (const auto& deployment : s.manifests.ofKind("Deployment")) {
    const YAML::Node pod = podSpecOf(deployment);
    const YAML::Node& podContext = pod["securityContext"];
    std::set<std::string> secretVolumes;
    for (const auto& volume : pod["volumes"]) {
      if (volume["secret"].IsDefined()) secretVolumes.insert(text(volume["name"]));
    }
    for (const auto& container : pod["containers"]) {
      const std::string where = describe(deployment) + " " + text(container["name"]);
      const YAML::Node& context = container["securityContext"];
      const auto effective = [&](const std::string& field) -> const YAML::Node {
        return context[field].IsDefined() ? context[field] : podContext[field];
      };
      BOOST_TEST(text(effective("runAsNonRoot")) == "true", where);
      BOOST_TEST(text(effective("runAsUser")) != "0", where);
      BOOST_TEST(text(context["readOnlyRootFilesystem"]) == "true", where);
      BOOST_TEST(text(context["allowPrivilegeEscalation"]) == "false", where);
      BOOST_TEST(text(at(context, {"capabilities", "drop", 0})) == "ALL", where);
      BOOST_TEST(text(at(effective("seccompProfile"), {"type"})) == "RuntimeDefault", where);
      BOOST_TEST(!text(at(container, {"resources", "requests", "cpu"})).empty(), where);
      BOOST_TEST(!text(at(container, {"resources", "requests", "memory"})).empty(), where);
      BOOST_TEST(!text(at(container, {"resources", "limits", "memory"})).empty(), where);
      for (const auto& mount : container["volumeMounts"]) {
        if (secretVolumes.contains(text(mount["name"]))) {
          BOOST_TEST(text(mount["readOnly"]) == "true", where << " " << text(mount["name"]));
        }
      }
    }
  }
}

// The annotation is the SHA-256 of the file a pod reads, so kubelet restarts the pods exactly
// when a file they read at start-up changes. (The block scalar that holds the file in the
// ConfigMap ends it with a line break that the hashed text does not have.)
BOOST_DATA_TEST_CASE(checksum_annotations_hash_the_mounted_configuration, data::make(kScenarios),
                     name) {
  const Scenario& s = scenario(name);
  for (const auto& deployment : s.manifests.ofKind("Deployment")) {
    const YAML::Node& annotations = deployment["spec"]["template"]["metadata"]["annotations"];
    std::set<std::string> checksums;
    for (const auto& annotation : annotations) {
      if (annotation.first.Scalar().starts_with("checksum/")) {
        checksums.insert(annotation.second.Scalar());
      }
    }
    for (const auto& volume : podSpecOf(deployment)["volumes"]) {
      if (!volume["configMap"].IsDefined()) continue;
      const YAML::Node configMap = s.manifests.find("ConfigMap", text(volume["configMap"]["name"]));
      BOOST_TEST_REQUIRE(configMap.IsDefined(), text(volume["configMap"]["name"]));
      for (const auto& file : configMap["data"]) {
        std::string content = file.second.Scalar();
        if (content.ends_with("\n")) content.pop_back();
        BOOST_TEST(checksums.contains(sha256Hex(content)),
                   describe(deployment) << " has no checksum of " << describe(configMap));
      }
    }
  }
}

BOOST_DATA_TEST_CASE(the_service_monitor_scrapes_the_extender_metrics, data::make(kScenarios),
                     name) {
  const Scenario& s = scenario(name);
  const auto monitors = s.manifests.ofKind("ServiceMonitor");
  BOOST_TEST(monitors.size() == (flag(s.values, "serviceMonitor.enabled") ? 1u : 0u));
  for (const auto& monitor : monitors) {
    BOOST_TEST(text(monitor["apiVersion"]) == "monitoring.coreos.com/v1");
    std::vector<YAML::Node> services;
    for (const auto& service : s.manifests.ofKind("Service")) {
      if (selects(monitor["spec"]["selector"]["matchLabels"], service["metadata"]["labels"])) {
        services.push_back(service);
      }
    }
    BOOST_TEST_REQUIRE(services.size() == 1u);
    const YAML::Node& service = services.front();
    BOOST_TEST(selects(service["spec"]["selector"], podLabels(s.extenderDeployment)));
    const YAML::Node& endpoint = monitor["spec"]["endpoints"][0];
    BOOST_TEST(servedPaths("GET").contains(text(endpoint["path"])));
    BOOST_TEST(text(endpoint["path"]) == "/metrics");
    BOOST_TEST(text(endpoint["scheme"]) == (s.tls() ? "https" : "http"));
    int ports = 0;
    for (const auto& port : service["spec"]["ports"]) {
      if (text(port["name"]) != text(endpoint["port"])) continue;
      ++ports;
      BOOST_TEST(containerPort(s.extenderContainer, port["targetPort"]) == metricsPort(s));
    }
    BOOST_TEST(ports == 1);
    if (!s.tls()) continue;
    const YAML::Node& tlsConfig = endpoint["tlsConfig"];
    BOOST_TEST(text(tlsConfig["serverName"]) ==
               text(at(s.extenderCall, {"tlsConfig", "serverName"})));
    BOOST_TEST(text(at(tlsConfig, {"ca", "secret", "key"})) == "ca.crt");
    // The metrics listener asks for no client certificate, under mutual TLS too: Prometheus
    // holds none of kube-scheduler's.
    BOOST_TEST(!tlsConfig["cert"].IsDefined());
    BOOST_TEST(!tlsConfig["keySecret"].IsDefined());
  }
}

// In service mode the Service carries the port kube-scheduler calls and the metrics port; in
// sidecar mode, where it exists only for the ServiceMonitor, the metrics port alone.
BOOST_DATA_TEST_CASE(the_service_carries_the_ports_its_callers_need, data::make(kScenarios), name) {
  const Scenario& s = scenario(name);
  std::vector<YAML::Node> services;
  for (const auto& service : s.manifests.ofKind("Service")) {
    if (selects(service["spec"]["selector"], podLabels(s.extenderDeployment))) {
      services.push_back(service);
    }
  }
  const bool wanted = s.serviceMode() || flag(s.values, "serviceMonitor.enabled");
  BOOST_TEST_REQUIRE(services.size() == (wanted ? 1u : 0u));
  if (!wanted) return;
  const YAML::Node& service = services.front();
  std::set<int> targets;
  for (const auto& port : service["spec"]["ports"]) {
    targets.insert(containerPort(s.extenderContainer, port["targetPort"]));
  }
  const std::set<int> want = s.serviceMode() ? std::set<int>{listenPort(s), metricsPort(s)}
                                             : std::set<int>{metricsPort(s)};
  BOOST_TEST((targets == want));
}

struct RolloutCase {
  std::string name;
  std::string set;
  bool rollsScheduler;
  bool rollsExtender;
};
std::ostream& operator<<(std::ostream& os, const RolloutCase& c) { return os << c.name; }

const std::vector<RolloutCase> kRollouts = {
    {"framework config", "framework.parallelism=3", false, true},
    {"extender stanza", "registration.weight=7", true, false},
    {"leader election", "leaderElection.leaseDuration=60s", true, false},
    {"log verbosity only", "kubeScheduler.verbosity=6", false, false},
    {"bind verb", "registration.bindVerb=bind", true, false},
};

// In service mode each Deployment carries the checksum of the one file its pods read. (Mutual
// TLS, since bindVerb in service mode requires it.)
BOOST_DATA_TEST_CASE(a_configuration_change_rolls_the_pods_that_read_it, data::make(kRollouts), c) {
  const auto annotations = [](const std::vector<std::string>& sets) {
    const auto result =
        renderChart({"sx", "scheduling", {chartFile("ci/service-mtls-values.yaml")}, sets});
    BOOST_TEST_REQUIRE(result.exitCode == 0, result.error);
    const ManifestSet manifests(result.manifests);
    std::map<std::string, std::string> byDeployment;
    for (const auto& deployment : manifests.ofKind("Deployment")) {
      byDeployment[text(deployment["metadata"]["name"])] =
          YAML::Dump(deployment["spec"]["template"]["metadata"]["annotations"]);
    }
    return byDeployment;
  };
  const auto before = annotations({});
  const auto after = annotations({c.set});
  BOOST_TEST((before.at("sx-scheduler-extender") != after.at("sx-scheduler-extender")) ==
             c.rollsScheduler);
  BOOST_TEST((before.at("sx-scheduler-extender-extender") !=
              after.at("sx-scheduler-extender-extender")) == c.rollsExtender);
}

BOOST_AUTO_TEST_CASE(a_sidecar_pod_rolls_for_either_configuration) {
  const auto checksums = [](const std::vector<std::string>& sets) {
    const auto result = renderChart({"sx", "scheduling", {}, sets});
    BOOST_TEST_REQUIRE(result.exitCode == 0, result.error);
    const ManifestSet manifests(result.manifests);
    const YAML::Node deployment = manifests.ofKind("Deployment").at(0);
    return YAML::Dump(deployment["spec"]["template"]["metadata"]["annotations"]);
  };
  const auto before = checksums({});
  BOOST_TEST(checksums({"framework.percentageOfNodesToScore=40"}) != before);
  BOOST_TEST(checksums({"registration.ignorable=true"}) != before);
  BOOST_TEST(checksums({}) == before);
}

struct RefusedCase {
  std::string name;
  std::vector<std::string> sets;
  std::string wantMessage;
  bool skipSchemaValidation = false;
};
std::ostream& operator<<(std::ostream& os, const RefusedCase& c) { return os << c.name; }

const std::vector<RefusedCase> kRefused = {
    {"replicas without leader election",
     {"replicas=3", "leaderElection.enabled=false"},
     "replicas is 3 but leaderElection.enabled is false"},
    {"TLS without a certificate", {"tls.enabled=true"}, "tls.serverSecretName is empty"},
    {"mutual TLS without TLS",
     {"tls.clientAuth.enabled=true", "tls.clientAuth.clientSecretName=c"},
     "tls.clientAuth.enabled needs tls.enabled"},
    {"mutual TLS without a client certificate",
     {"tls.enabled=true", "tls.serverSecretName=s", "tls.clientAuth.enabled=true"},
     "tls.clientAuth.clientSecretName is empty"},
    {"sidecar on kube-scheduler's port", {"extender.port=10259"}, "extender.port 10259"},
    // values.schema.json refuses it first (values_schema's table). The templates' own check is
    // for who skips the schema: each of them reads any mode but "service" as sidecar.
    {"unknown mode, past the schema",
     {"mode=daemonset"},
     "mode must be \"sidecar\" or \"service\", not \"daemonset\"",
     true},
    {"exclusive inter-pod affinity without bindVerb",
     {"registration.exclusiveInterPodAffinity=true"},
     "registration.exclusiveInterPodAffinity needs registration.bindVerb=bind"},
    {"exclusive inter-pod affinity with two extenders behind a Service",
     joined(kMutualTls, {"mode=service", "extender.replicas=2", "registration.bindVerb=bind",
                         "registration.exclusiveInterPodAffinity=true"}),
     "registration.exclusiveInterPodAffinity with mode=service needs extender.replicas=1, not 2"},
    {"exclusive inter-pod affinity with no extender filter",
     {"registration.bindVerb=bind", "registration.exclusiveInterPodAffinity=true",
      "framework.plugins.filter=null"},
     "registration.exclusiveInterPodAffinity needs InterPodAffinity in framework.plugins.filter"},
    {"exclusive inter-pod affinity with the filter verb off",
     {"registration.bindVerb=bind", "registration.exclusiveInterPodAffinity=true",
      "registration.filterVerb="},
     "registration.exclusiveInterPodAffinity needs registration.filterVerb"},
    {"bindVerb in service mode over plain HTTP",
     {"mode=service", "registration.bindVerb=bind"},
     "registration.bindVerb=bind with mode=service needs tls.clientAuth.enabled=true: the "
     "extender's Service is reachable over the pod network"},
    {"bindVerb in service mode over TLS without client certificates",
     {"mode=service", "registration.bindVerb=bind", "tls.enabled=true", "tls.serverSecretName=s"},
     "only kube-scheduler's client certificate may prove who calls it"},
    {"a client name without mutual TLS",
     {"tls.enabled=true", "tls.serverSecretName=s", "tls.clientAuth.clientName=kube-scheduler"},
     "tls.clientAuth.clientName is set but tls.clientAuth.enabled is false"},
    {"one port for the verbs and the metrics",
     {"extender.port=9000", "extender.metricsPort=9000"},
     "extender.port and extender.metricsPort are both 9000"},
    {"sidecar metrics on kube-scheduler's port",
     {"extender.metricsPort=10259"},
     "extender.metricsPort 10259"},
};

// helm's refusal of a template's `fail`: the message after the template that failed and where.
// Every check is in _helpers.tpl's "scheduler-extender.validate", which validate.yaml includes,
// so helm names validate.yaml. "" when the error is not such a refusal. (helm may log before
// it, e.g. that it ignored a value while merging.)
std::string refusalMessage(const RenderResult& result) {
  static const std::regex shape(
      "Error: execution error at \\(scheduler-extender/templates/validate\\.yaml:[0-9]+:[0-9]+\\): "
      "(.+)");
  std::istringstream lines(result.error);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("Error: ")) continue;
    std::smatch match;
    return std::regex_match(line, match, shape) ? match[1].str() : "";
  }
  return "";
}

RenderResult renderRefused(const RefusedCase& c) {
  RenderOptions options{"sx", "scheduling", {}, c.sets};
  options.skipSchemaValidation = c.skipSchemaValidation;
  return renderChart(options);
}

BOOST_DATA_TEST_CASE(contradicting_values_fail_to_render_with_a_message, data::make(kRefused), c) {
  const auto result = renderRefused(c);
  BOOST_TEST(result.exitCode != 0);
  const std::string message = refusalMessage(result);
  BOOST_TEST_REQUIRE(!message.empty(), result.error);
  BOOST_TEST(message.find(c.wantMessage) != std::string::npos, result.error);
}

// A `fail` of the templates: its literal, and the messages it prints (printf's verbs as what
// they print).
struct TemplateFail {
  std::string literal;
  std::regex prints;
};

std::vector<TemplateFail> templateFails() {
  static const std::regex call(R"re(fail \(?(?:printf )?"((?:[^"\\]|\\.)*)")re");
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  std::vector<TemplateFail> fails;
  for (const auto& entry : std::filesystem::directory_iterator(chartFile("templates"))) {
    const std::string source = testing::readFile(entry.path());
    for (std::sregex_iterator it(source.begin(), source.end(), call), end; it != end; ++it) {
      const std::string literal = std::regex_replace((*it)[1].str(), std::regex(R"(\\")"), "\"");
      std::string pattern = std::regex_replace(literal, special, R"(\$&)");
      pattern = std::regex_replace(pattern, std::regex("%d"), "-?[0-9]+");
      pattern = std::regex_replace(pattern, std::regex("%q"), R"("[^"]*")");
      fails.push_back({literal, std::regex(pattern)});
    }
  }
  return fails;
}

// So that a check added to the templates comes with its case in kRefused: each case's message
// is one a `fail` prints, and each `fail` prints the message of a case.
BOOST_AUTO_TEST_CASE(every_fail_in_the_templates_has_a_refused_case) {
  const auto fails = templateFails();
  std::vector<bool> covered(fails.size(), false);
  for (const auto& c : kRefused) {
    const std::string message = refusalMessage(renderRefused(c));
    bool printed = false;
    for (std::size_t i = 0; i < fails.size(); ++i) {
      if (std::regex_match(message, fails[i].prints)) covered[i] = printed = true;
    }
    BOOST_TEST(printed, c.name << ": no fail in the templates prints \"" << message << "\"");
  }
  for (std::size_t i = 0; i < fails.size(); ++i) {
    BOOST_TEST(covered[i], "no case in kRefused for fail \"" << fails[i].literal << "\"");
  }
}

struct KubeVersionCase {
  std::string name;
  std::string kubeVersion;
  bool admitted;
};
std::ostream& operator<<(std::ostream& os, const KubeVersionCase& c) { return os << c.name; }

const std::vector<KubeVersionCase> kKubeVersions = {
    {"the oldest Chart.yaml admits", "v1.26.0", true},
    {"a minor release older", "v1.25.16", false},
    // kube-scheduler may not be newer than the API server: the cluster is at least its release.
    {"the release of values.yaml's kube-scheduler", value(chartValues(), "kubeScheduler.image.tag"),
     true},
};

// helm checks Chart.yaml's kubeVersion against the cluster's (--kube-version, for a render).
// The other suites render with helm's default, its client's release: no template reads
// .Capabilities.
BOOST_DATA_TEST_CASE(helm_checks_the_cluster_against_the_charts_kube_version,
                     data::make(kKubeVersions), c) {
  RenderOptions options{"sx", "scheduling"};
  options.kubeVersion = c.kubeVersion;
  const auto result = renderChart(options);
  BOOST_TEST((result.exitCode == 0) == c.admitted, result.error);
  if (c.admitted) return;
  const std::string constraint = text(YAML::LoadFile(chartFile("Chart.yaml"))["kubeVersion"]);
  BOOST_TEST(result.error.starts_with("Error: chart requires kubeVersion: " + constraint +
                                      " which is incompatible with Kubernetes " + c.kubeVersion),
             result.error);
}

BOOST_AUTO_TEST_CASE(one_replica_may_run_without_leader_election) {
  const auto result = renderChart({"sx", "scheduling", {}, {"leaderElection.enabled=false"}});
  BOOST_TEST(result.exitCode == 0, result.error);
  const ManifestSet manifests(result.manifests);
  BOOST_TEST(manifests.ofKind("Role").empty());
}

BOOST_DATA_TEST_CASE(the_notes_say_how_to_target_the_scheduler_and_reach_explain,
                     data::make(kScenarios), name) {
  const std::string notes = renderNotes({chartFile("ci/" + name)}, {});
  const Scenario& s = scenario(name);
  const std::string schedulerName = text(s.schedulerConfig["profiles"][0]["schedulerName"]);
  BOOST_TEST(notes.find("schedulerName: " + schedulerName + "\n") != std::string::npos, notes);
  const std::string forward = "port-forward deploy/" +
                              text(s.extenderDeployment["metadata"]["name"]) +
                              " 8888:" + std::to_string(listenPort(s));
  BOOST_TEST(notes.find(forward) != std::string::npos, notes);
  const std::string explain =
      s.tls() ? "https://" + text(s.extenderCall["tlsConfig"]["serverName"]) + ":8888/explain"
              : "http://127.0.0.1:8888/explain";
  BOOST_TEST(notes.find(explain) != std::string::npos, notes);
  BOOST_TEST((notes.find("--cert client.crt") != std::string::npos) == s.mutualTls());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace manifests

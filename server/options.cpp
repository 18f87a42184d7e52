#include "server/options.hpp"

#include <charconv>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>

namespace server {
namespace {

template <typename Int>
Int parseInteger(std::string_view flag, std::string_view text, Int min, Int max) {
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw UsageError(std::string(flag) + ": invalid value \"" + std::string(text) +
                     "\": want an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "]");
  }
  return value;
}

// A duration in whole seconds, written `10s` or `10`.
int parseSeconds(std::string_view flag, std::string_view text) {
  if (text.ends_with('s')) text.remove_suffix(1);
  return parseInteger<int>(flag, text, 0, 3600);
}

// A Go-style duration as the chart and kube-scheduler write them: "500ms", "2s", "1m"; a bare
// number is seconds, as --shutdown-grace takes it.
std::chrono::milliseconds parseDuration(std::string_view flag, std::string_view text,
                                        std::chrono::milliseconds max) {
  std::string_view number = text;
  std::int64_t unit = 1000;
  if (number.ends_with("ms")) {
    number.remove_suffix(2);
    unit = 1;
  } else if (number.ends_with('s')) {
    number.remove_suffix(1);
  } else if (number.ends_with('m')) {
    number.remove_suffix(1);
    unit = 60'000;
  }
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() || value < 0 ||
      value > max.count() / unit) {
    throw UsageError(std::string(flag) + ": invalid value \"" + std::string(text) +
                     "\": want a duration such as 500ms, 2s or 1m, at most " +
                     std::to_string(max.count()) + "ms");
  }
  return std::chrono::milliseconds(value * unit);
}

// HOST:PORT, with [v6]:PORT for IPv6 literals; an empty host is every IPv4 address.
ListenAddress parseListen(std::string_view flag, std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == text.size()) {
    throw UsageError(std::string(flag) + ": invalid value \"" + std::string(text) +
                     "\": want HOST:PORT");
  }
  std::string_view host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {host.empty() ? "0.0.0.0" : std::string(host),
          parseInteger<std::uint16_t>(std::string(flag) + " port", text.substr(colon + 1), 0,
                                      std::numeric_limits<std::uint16_t>::max())};
}

// A list flag, pflag's StringSlice: comma-separated names; the first occurrence replaces the
// default, later ones add to it.
void parseNames(std::string_view flag, std::string_view text, std::vector<std::string>& names,
                bool& given) {
  if (!given) names.clear();
  given = true;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string_view name = text.substr(start, comma - start);
    if (name.empty()) {
      throw UsageError(std::string(flag) + ": invalid value \"" + std::string(text) +
                       "\": want NAME[,NAME...] with no empty name");
    }
    names.emplace_back(name);
    if (comma == std::string_view::npos) return;
    start = comma + 1;
  }
}

// Which list flags have been seen, so that the first replaces the default.
struct Seen {
  bool allowedClientNames = false;
  bool schedulerNames = false;
};

struct Flag {
  std::string_view name;
  bool takesValue;
  std::function<void(Options&, Seen&, std::string_view)> apply;
};

const std::vector<Flag>& flags() {
  static const std::vector<Flag> table = {
      {"--listen", true,
       [](Options& o, Seen&, std::string_view v) { o.listen = parseListen("--listen", v); }},
      {"--metrics-listen", true,
       [](Options& o, Seen&, std::string_view v) {
         o.metricsListen = parseListen("--metrics-listen", v);
       }},
      {"--cluster-state", true, [](Options& o, Seen&, std::string_view v) { o.clusterState = v; }},
      {"--kubeconfig", true, [](Options& o, Seen&, std::string_view v) { o.kubeconfig = v; }},
      {"--config", true, [](Options& o, Seen&, std::string_view v) { o.config = v; }},
      {"--tls-cert-file", true, [](Options& o, Seen&, std::string_view v) { o.tlsCertFile = v; }},
      {"--tls-private-key-file", true,
       [](Options& o, Seen&, std::string_view v) { o.tlsPrivateKeyFile = v; }},
      {"--client-ca-file", true, [](Options& o, Seen&, std::string_view v) { o.clientCaFile = v; }},
      {"--allowed-client-names", true,
       [](Options& o, Seen& seen, std::string_view v) {
         parseNames("--allowed-client-names", v, o.allowedClientNames, seen.allowedClientNames);
       }},
      {"--scheduler-names", true,
       [](Options& o, Seen& seen, std::string_view v) {
         parseNames("--scheduler-names", v, o.schedulerNames, seen.schedulerNames);
       }},
      {"--shutdown-grace", true,
       [](Options& o, Seen&, std::string_view v) {
         o.shutdownGraceSeconds = parseSeconds("--shutdown-grace", v);
       }},
      {"--in-flight-wait", true,
       [](Options& o, Seen&, std::string_view v) {
         o.inFlightWait = parseDuration("--in-flight-wait", v, std::chrono::minutes(1));
       }},
      // kube-scheduler stopped expiring assumed pods (kubernetes#106361, #136204): an expiry
      // loses placements exactly when the watch lags. The flag is accepted so that existing
      // manifests keep starting, and said to do nothing.
      {"--assumed-pod-ttl", true,
       [](Options& o, Seen&, std::string_view v) {
         parseDuration("--assumed-pod-ttl", v, std::chrono::hours(1));
         o.deprecations.push_back(
             "--assumed-pod-ttl is deprecated and has no effect: a pod bound through /bind now "
             "counts until the watch shows it bound or deleted; watch "
             "scheduler_extender_assumed_pods_oldest_age_seconds for a stuck watch instead");
       }},
      {"--max-connections", true,
       [](Options& o, Seen&, std::string_view v) {
         o.maxConnections = parseInteger<std::size_t>("--max-connections", v, 1, 1000000);
       }},
      {"--max-body-bytes", true,
       [](Options& o, Seen&, std::string_view v) {
         o.maxBodyBytes =
             parseInteger<std::size_t>("--max-body-bytes", v, 1024, std::size_t{4} << 30);
       }},
      {"-v", true,
       [](Options& o, Seen&, std::string_view v) { o.verbosity = parseInteger("-v", v, 0, 10); }},
      {"--v", true,
       [](Options& o, Seen&, std::string_view v) { o.verbosity = parseInteger("--v", v, 0, 10); }},
      {"--log-format", true,
       [](Options& o, Seen&, std::string_view v) {
         if (v != "text" && v != "json") {
           throw UsageError("--log-format: invalid value \"" + std::string(v) +
                            "\": want text or json");
         }
         o.jsonLogs = v == "json";
       }},
      {"--check-config", false, [](Options& o, Seen&, std::string_view) { o.checkConfig = true; }},
      {"--help", false, [](Options& o, Seen&, std::string_view) { o.help = true; }},
      {"-h", false, [](Options& o, Seen&, std::string_view) { o.help = true; }},
      {"--version", false, [](Options& o, Seen&, std::string_view) { o.version = true; }},
  };
  return table;
}

const Flag* findFlag(std::string_view name) {
  for (const Flag& flag : flags()) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

}  // namespace

Options parseOptions(const std::vector<std::string>& args) {
  Options options;
  Seen seen;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::optional<std::string_view> inlineValue;
    if (const auto eq = arg.find('='); eq != std::string_view::npos && arg.starts_with('-')) {
      inlineValue = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const Flag* flag = findFlag(arg);
    if (flag == nullptr) {
      throw UsageError(args[i].starts_with('-')
                           ? "unknown flag " + std::string(arg) + " (see --help)"
                           : "unexpected argument \"" + args[i] + "\" (see --help)");
    }
    if (!flag->takesValue) {
      if (inlineValue) throw UsageError(std::string(arg) + ": takes no value");
      flag->apply(options, seen, {});
      continue;
    }
    if (!inlineValue) {
      if (i + 1 == args.size()) throw UsageError(std::string(arg) + ": missing value");
      inlineValue = args[++i];
    }
    flag->apply(options, seen, *inlineValue);
  }
  if (!options.clusterState.empty() && !options.kubeconfig.empty()) {
    throw UsageError("--cluster-state and --kubeconfig: choose one cluster source");
  }
  if (options.tlsCertFile.empty() != options.tlsPrivateKeyFile.empty()) {
    throw UsageError("--tls-cert-file and --tls-private-key-file: set both or neither");
  }
  if (!options.clientCaFile.empty() && options.tlsCertFile.empty()) {
    throw UsageError("--client-ca-file: needs --tls-cert-file and --tls-private-key-file");
  }
  if (!options.allowedClientNames.empty() && options.clientCaFile.empty()) {
    throw UsageError(
        "--allowed-client-names: needs --client-ca-file (the names are read from client "
        "certificates that CA verified)");
  }
  if (options.metricsListen && options.metricsListen->port != 0 &&
      *options.metricsListen == options.listen) {
    throw UsageError("--metrics-listen: the same address as --listen; choose another port");
  }
  return options;
}

std::string usage() {
  return R"(Usage: scheduler-extender [flags]

A Kubernetes scheduler extender: kube-scheduler POSTs ExtenderArgs to /filter,
/prioritize and /preempt; the extender answers with InterPodAffinity and PodState
run over its own cache of the cluster.

Cluster source (exactly one):
  --cluster-state FILE      load the cluster from the List that
                            `kubectl get nodes,pods,namespaces -A -o json` prints
                            (or `-o yaml`, for a FILE named *.yaml or *.yml)
  --kubeconfig FILE         list+watch the API server named by this kubeconfig
                            (default: $KUBECONFIG, else the in-cluster configuration
                            inside a pod)

Serving:
  --listen HOST:PORT        where the scheduling verbs (/filter, /prioritize, /preempt,
                            /bind, /explain) are served, and /healthz, /readyz and
                            /metrics too unless --metrics-listen is set (default
                            0.0.0.0:8888; port 0 picks a free port, logged at start-up)
  --metrics-listen HOST:PORT
                            serve /healthz, /readyz and /metrics here, and nothing else;
                            --listen then serves the scheduling verbs only. With TLS it
                            serves the same certificate and asks for no client one
                            (default: unset)
  --tls-cert-file FILE      serve HTTPS (TLS 1.2+) with this certificate chain (PEM);
                            reloaded when the file changes
  --tls-private-key-file FILE
                            the certificate's private key (PEM)
  --client-ca-file FILE     mutual TLS: client certificates must be signed by this CA;
                            a client without one gets 401 except on /healthz, /readyz
  --allowed-client-names NAME[,NAME...]
                            with --client-ca-file: the scheduling verbs answer only a
                            client certificate whose CN or a DNS SAN is one of these;
                            others get 403 (probes and metrics do not check names;
                            default: any certificate the CA signed)
  --max-body-bytes N        largest request body accepted (default 1073741824);
                            larger bodies get 413
  --max-connections N       open connections accepted at once, per listener; more are
                            closed on accept (default 4096)
  --shutdown-grace SECONDS  on SIGTERM/SIGINT, how long in-flight requests may take to
                            finish before the process exits (default 10s)

Binding (kube-scheduler's bindVerb):
  --scheduler-names NAME[,NAME...]
                            /bind binds only pods whose spec.schedulerName is one of
                            these (an empty one is default-scheduler); others are
                            refused (default default-scheduler)
  --in-flight-wait DURATION the longest /filter, /prioritize or /preempt waits for a pod
                            answered but not yet placed (bound through /bind, or seen
                            bound by the watch) whose placement can change its answer;
                            0 never waits (default 1s; e.g. 500ms, 2s)
  --assumed-pod-ttl DURATION
                            deprecated, no effect: a pod bound through /bind counts on
                            its node until the watch shows it bound or deleted

Framework:
  --config FILE             framework configuration, YAML or JSON (plugins, weights,
                            pluginConfig, percentageOfNodesToScore, parallelism);
                            default: InterPodAffinity filter + score (weight 2),
                            PodState score (weight 1), adaptive sampling
  --check-config            validate --config, print the effective profile, exit

Other:
  -v N, --v=N               log verbosity (0: start-up and errors only; 2: one line
                            per request; 4: each answer, with its verdicts and scores)
  --log-format FORMAT       text (klog lines, default) or json (one object per line)
  --version                 print the version and exit
  -h, --help                print this help and exit

Endpoints: POST /filter /prioritize /preempt /bind /explain; GET /healthz /readyz /metrics.
)";
}

}  // namespace server

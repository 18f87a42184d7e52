#include "scheduling/binding/binder.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/status.hpp>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/api_server_codec.hpp"

namespace scheduling::binding {

namespace net = boost::asio;
namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;

std::string_view resultName(BindResult result) {
  switch (result) {
    case BindResult::Bound:
      return "bound";
    case BindResult::Refused:
      return "refused";
    case BindResult::Conflict:
      return "conflict";
    case BindResult::NotFound:
      return "not_found";
    case BindResult::Rejected:
      return "rejected";
    case BindResult::Unreachable:
      return "unreachable";
  }
  return "rejected";
}

namespace {

// The API server's own words: the Status message of its answer, else the answer itself.
std::string describe(const ApiAnswer& answer) {
  if (answer.status == 0) return "API server unreachable: " + answer.failure;
  const auto status = static_cast<http::status>(answer.status);
  std::string text = "API server answered " + std::to_string(answer.status) + " " +
                     std::string(http::obsolete_reason(status));
  std::string message;
  try {
    message = api::json::decodeStatus(answer.body).message;
  } catch (const api::DecodeError&) {
    constexpr std::size_t kQuoted = 200;
    message = answer.body.substr(0, kQuoted);
  }
  return message.empty() ? text : text + ": " + message;
}

// Pods are unique by namespace and name at any one time; the UID may not have been sent.
std::string podKey(const api::ExtenderBindingArgs& args) {
  return args.podNamespace + "/" + args.podName;
}

BindResult classify(const ApiAnswer& answer) {
  if (answer.status == 0) return BindResult::Unreachable;
  if (answer.status == 200 || answer.status == 201) return BindResult::Bound;
  if (answer.status == 409) return BindResult::Conflict;
  if (answer.status == 404) return BindResult::NotFound;
  return BindResult::Rejected;
}

}  // namespace

Binder::Binder(informers::ClientConfig config, cache::Cache& cache, InFlightPods& inFlight,
               const BindingPolicy& policy, BindingObserver& observer, BinderOptions options)
    : config_(std::move(config)),
      cache_(cache),
      inFlight_(inFlight),
      policy_(policy),
      observer_(observer),
      options_(options),
      tokens_(std::make_unique<informers::TokenSource>(config_)),
      client_(std::make_unique<BindingClient>(
          io_.get_executor(), config_,
          config_.https ? informers::makeClientTlsContext(config_) : nullptr, *tokens_,
          options.requestTimeout)) {}

Binder::~Binder() { stop(); }

void Binder::start() {
  idle_.emplace(io_.get_executor());
  thread_ = std::thread([this] { io_.run(); });
}

void Binder::stop() {
  if (!thread_.joinable()) return;
  net::post(io_, [this] {
    idle_.reset();
    client_->close();
    io_.stop();
  });
  thread_.join();
}

void Binder::bind(api::ExtenderBindingArgs args, Done done) {
  net::post(io_, [this, args = std::move(args), done = std::move(done)]() mutable {
    // Counted here, on the binder's thread, in the same step that joins it to a binding of
    // its pod already under way: whoever sees two pending for one pod knows the second waits
    // beside the first, rather than being about to start a binding of its own.
    ++pending_;
    begin(std::move(args), [this, done = std::move(done)](api::ExtenderBindingResult result) {
      --pending_;
      done(std::move(result));
    });
  });
}

void Binder::begin(api::ExtenderBindingArgs args, Done done) {
  if (auto it = inProgress_.find(podKey(args)); it != inProgress_.end()) {
    if (it->second.node == args.node) {
      it->second.waiting.push_back(std::move(done));
    } else {
      done({"pod " + args.podNamespace + "/" + args.podName + " is being bound to node " +
            it->second.node + " by an earlier request"});
    }
    return;
  }
  inProgress_[podKey(args)] = Binding{args.node, {std::move(done)}};
  net::co_spawn(io_, run(std::move(args)), net::detached);
}

net::awaitable<void> Binder::run(api::ExtenderBindingArgs args) {
  const auto start = Clock::now();
  const BindOutcome outcome = co_await bindPod(args);
  observer_.bindingDone(args, outcome, Clock::now() - start);
  const auto it = inProgress_.find(podKey(args));
  const std::vector<Done> waiting = std::move(it->second.waiting);
  inProgress_.erase(it);
  for (const auto& done : waiting) done({outcome.error});
}

net::awaitable<BindOutcome> Binder::bindPod(const api::ExtenderBindingArgs& args) {
  const std::string what =
      "binding pod " + args.podNamespace + "/" + args.podName + " to node " + args.node + ": ";
  // Nothing assumed, nothing asked of the API server; held requests need not wait for a
  // placement this attempt will not make.
  const auto refuse = [&](const Refusal& refusal, std::string_view uid) {
    inFlight_.settle(uid);
    return BindOutcome{BindResult::Refused, refusal.reason, what + refusal.message};
  };
  if (auto refusal = policy_.checkTarget(args)) co_return refuse(*refusal, args.podUID);
  api::Pod pod;
  if (BindOutcome found = co_await podToAssume(args, pod); !found.error.empty()) {
    inFlight_.settle(args.podUID);
    found.error = what + found.error;
    co_return found;
  }
  // The pod's own UID: the cache's key, and the Binding's precondition.
  if (pod.metadata.uid.empty()) pod.metadata.uid = podKey(args);
  const std::string uid = pod.metadata.uid;
  // From this check to the assumption nothing suspends: no other /bind runs in between.
  if (auto refusal = policy_.checkPod(pod, args.node)) co_return refuse(*refusal, uid);
  // Requests from here on count the pod on the node; those held for it go on (the cache tells
  // InFlightPods once the snapshot is published).
  const bool assumed = cache_.assumePod(std::move(pod), args.node) == cache::AssumeResult::Assumed;
  if (assumed) cache_.publish();

  const ApiAnswer answer =
      co_await client_->createBinding(args.podNamespace, args.podName, args.podUID, args.node);
  const BindResult result = classify(answer);
  if (result == BindResult::Bound) {
    if (assumed) cache_.finishBinding(uid, Clock::now());
    co_return BindOutcome{};
  }
  // A failed or unknown binding (no answer: it may or may not exist) is forgotten: the watch
  // tells the truth either way, and kube-scheduler retries a pod whose /bind failed.
  if (assumed) {
    cache_.forgetPod(uid);
    cache_.publish();
  }
  inFlight_.settle(uid);
  co_return BindOutcome{result, std::nullopt, what + describe(answer)};
}

net::awaitable<BindOutcome> Binder::podToAssume(const api::ExtenderBindingArgs& args,
                                                api::Pod& pod) {
  // Nearly always the pod of the /filter or /prioritize just answered. Otherwise (another
  // replica answered them, or this process restarted since) the API server has it.
  const auto tracked = args.podUID.empty() ? inFlight_.findByName(args.podNamespace, args.podName)
                                           : inFlight_.find(args.podUID);
  if (tracked) {
    pod = tracked->pod();
  } else {
    const ApiAnswer answer = co_await client_->getPod(args.podNamespace, args.podName);
    if (answer.status != 200)
      co_return BindOutcome{classify(answer), std::nullopt, "reading the pod: " + describe(answer)};
    try {
      pod = api::json::decodeObject<api::Pod>(answer.body);
    } catch (const api::DecodeError& e) {
      co_return BindOutcome{BindResult::Rejected, std::nullopt,
                            std::string("reading the pod: ") + e.what()};
    }
  }
  if ((!args.podUID.empty() && pod.metadata.uid != args.podUID) ||
      pod.metadata.name != args.podName || pod.metadata.ns != args.podNamespace) {
    co_return BindOutcome{BindResult::Conflict, std::nullopt,
                          "PodUID " + args.podUID + " is pod " + pod.metadata.ns + "/" +
                              pod.metadata.name + " with UID " + pod.metadata.uid +
                              " (deleted and created again?)"};
  }
  co_return BindOutcome{};
}

}  // namespace scheduling::binding

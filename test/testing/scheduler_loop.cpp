#include "test/testing/scheduler_loop.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <strings.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "scheduling/api/json/api_server_codec.hpp"
#include "test/testing/http_client.hpp"

namespace testing {

namespace {

constexpr std::string_view kWaitingGauge = "scheduler_extender_in_flight_waiting_requests";

// kube-scheduler reads the extender's answers case-insensitively (encoding/json).
const rapidjson::Value* memberOf(const rapidjson::Value& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  for (const auto& member : object.GetObject()) {
    if (member.name.GetStringLength() == key.size() &&
        ::strncasecmp(member.name.GetString(), key.data(), key.size()) == 0) {
      return &member.value;
    }
  }
  return nullptr;
}

std::string stringOf(const rapidjson::Value* value) {
  return value && value->IsString() ? std::string(value->GetString(), value->GetStringLength())
                                    : "";
}

std::string extenderArgs(const std::string& podJson, const std::vector<std::string>& nodeNames) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("Pod");
  w.RawValue(podJson.c_str(), podJson.size(), rapidjson::kObjectType);
  w.Key("NodeNames");
  w.StartArray();
  for (const auto& name : nodeNames) w.String(name.c_str());
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

std::string bindingArgs(const LoopPod& pod, const std::string& node) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("PodName");
  w.String(pod.object.name.c_str());
  w.Key("PodNamespace");
  w.String(pod.object.ns.c_str());
  w.Key("PodUID");
  w.String(pod.uid.c_str());
  w.Key("Node");
  w.String(node.c_str());
  w.EndObject();
  return buffer.GetString();
}

std::string failureText(const HttpReply& reply) {
  return "HTTP " + std::to_string(reply.status) + ": " + reply.body;
}

// The sum of the waiting-requests gauge in a Prometheus text exposition; 0 when absent.
double waitingRequests(const std::string& metrics) {
  double total = 0;
  std::istringstream lines(metrics);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(kWaitingGauge) || line.size() == kWaitingGauge.size()) continue;
    const char next = line[kWaitingGauge.size()];
    if (next != ' ' && next != '{') continue;  // another metric sharing the prefix
    total += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return total;
}

// A one-shot signal between the loop and a /bind thread.
class Signal {
 public:
  void fire() {
    {
      std::lock_guard lock(mutex_);
      fired_ = true;
    }
    changed_.notify_all();
  }
  void wait() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return fired_; });
  }
  bool waitFor(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] { return fired_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool fired_ = false;
};

// An AfterNextFilter /bind may go once the next /filter is answered (`answered`) or the
// extender holds a request; false when neither happened by `deadline`.
bool nextFilterStarted(Signal& answered, HttpClient& client,
                       std::chrono::steady_clock::time_point deadline) {
  constexpr auto kPoll = std::chrono::milliseconds(2);
  for (;;) {
    if (answered.waitFor(kPoll)) return true;
    if (waitingRequests(client.get("/metrics").body) > 0) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
}

// One /bind (or, without bindVerb, the Binding kube-scheduler's DefaultBinder posts), after
// the next /filter when `nextFilterAnswered` is given; `written` fires once it is sent.
void bindPod(const SchedulerLoop::Options& options, const LoopPod& pod, PodOutcome& outcome,
             const std::string& body, const std::shared_ptr<Signal>& nextFilterAnswered,
             Signal& written, const std::function<void(const std::string&)>& fail) {
  try {
    HttpClient client(options.port);
    // With --metrics-listen the gauge is on a port of its own.
    std::optional<HttpClient> metrics;
    if (options.metricsPort != 0) metrics.emplace(options.metricsPort);
    if (nextFilterAnswered &&
        !nextFilterStarted(*nextFilterAnswered, metrics ? *metrics : client,
                           std::chrono::steady_clock::now() + options.holdDeadline)) {
      fail("the /bind of " + outcome.name + " waited in vain for the next /filter to be " +
           "answered or held (" + std::string(kWaitingGauge) + " stayed 0)");
      written.fire();
      return;
    }
    if (options.apiServerPort != 0) {
      // DefaultBinder: the Binding straight to the API server.
      HttpClient api(options.apiServerPort);
      api.writePost("/api/v1/namespaces/" + pod.object.ns + "/pods/" + pod.object.name + "/binding",
                    scheduling::api::json::encodeBinding(pod.object.ns, pod.object.name, pod.uid,
                                                         outcome.node));
      written.fire();
      const HttpReply reply = api.readReply();
      outcome.bindStatus = reply.status;
      outcome.bindError = reply.status == 201 ? "" : failureText(reply);
      return;
    }
    client.writePost("/bind", body);
    written.fire();
    const HttpReply reply = client.readReply();
    outcome.bindStatus = reply.status;
    rapidjson::Document result;
    result.Parse(reply.body.c_str(), reply.body.size());
    outcome.bindError = reply.status == 200 && !result.HasParseError()
                            ? stringOf(memberOf(result, "Error"))
                            : failureText(reply);
  } catch (const std::exception& e) {
    fail("the /bind of " + outcome.name + ": " + e.what());
    written.fire();
  }
}

}  // namespace

SchedulerLoop::SchedulerLoop(Options options) : options_(std::move(options)) {}

std::vector<PodOutcome> SchedulerLoop::run(const std::vector<LoopPod>& pods) {
  std::vector<PodOutcome> outcomes(pods.size());
  std::vector<int> attempts(pods.size(), 0);
  std::mutex failuresMutex;
  std::vector<std::string> failures;
  const auto fail = [&](const std::string& what) {
    std::lock_guard lock(failuresMutex);
    failures.push_back(what);
  };

  // The scheduling queue: the pods in order, then each pod whose /bind failed again. A /bind
  // thread writes its pod's outcome before it requeues the pod, under the lock the loop takes
  // to pick it up again.
  struct Queue {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<std::size_t> ready;
    std::size_t bindsRunning = 0;
  } queue;
  for (std::size_t i = 0; i < pods.size(); ++i) queue.ready.push_back(i);

  // Every /bind thread is joined however the loop ends; one still waiting for the next
  // /filter is let go first.
  struct Binds {
    std::vector<std::thread> threads;
    std::shared_ptr<Signal> pending;  // the previous pod's AfterNextFilter /bind waits on it
    void release() {
      if (pending) pending->fire();
      pending.reset();
    }
    ~Binds() {
      release();
      for (auto& thread : threads) thread.join();
    }
  } binds;

  HttpClient scheduling(options_.port);
  for (std::size_t turn = 0;; ++turn) {
    std::size_t i = 0;
    {
      std::unique_lock lock(queue.mutex);
      if (queue.ready.empty()) {
        // No /filter follows for now: a /bind waiting for one goes, and may requeue its pod.
        lock.unlock();
        binds.release();
        lock.lock();
        queue.changed.wait(lock, [&] { return !queue.ready.empty() || queue.bindsRunning == 0; });
        if (queue.ready.empty()) break;
      }
      i = queue.ready.front();
      queue.ready.pop_front();
    }
    const LoopPod& pod = pods[i];
    PodOutcome& outcome = outcomes[i];
    ++attempts[i];
    // A new attempt: what the last one came to is kept as its /bind's error, if any.
    std::vector<std::string> retried = std::move(outcome.retriedBindErrors);
    if (!outcome.bindError.empty()) retried.push_back(outcome.bindError);
    outcome = PodOutcome{};
    outcome.name = pod.object.ns + "/" + pod.object.name;
    outcome.retriedBindErrors = std::move(retried);
    const std::string podJson = renderPendingPod(pod, options_.schedulerName);

    const HttpReply filtered =
        scheduling.post("/filter", extenderArgs(podJson, options_.nodeNames));
    binds.release();
    rapidjson::Document filterResult;
    filterResult.Parse(filtered.body.c_str(), filtered.body.size());
    if (filtered.status != 200 || filterResult.HasParseError()) {
      outcome.scheduleError = "/filter " + failureText(filtered);
      continue;
    }
    if (const auto error = stringOf(memberOf(filterResult, "Error")); !error.empty()) {
      outcome.scheduleError = "/filter Error: " + error;
      continue;
    }
    // Feasible nodes in candidate order, so that ties break the same way in every run.
    std::vector<std::string> feasible;
    if (const auto* names = memberOf(filterResult, "NodeNames"); names && names->IsArray()) {
      for (const auto& candidate : options_.nodeNames) {
        for (const auto& name : names->GetArray()) {
          if (name.IsString() && candidate == name.GetString()) {
            feasible.push_back(candidate);
            break;
          }
        }
      }
    }
    outcome.feasible = feasible.size();
    if (feasible.empty()) continue;

    if (feasible.size() == 1) {
      outcome.node = feasible.front();
    } else {
      const HttpReply prioritized = scheduling.post("/prioritize", extenderArgs(podJson, feasible));
      rapidjson::Document priorities;
      priorities.Parse(prioritized.body.c_str(), prioritized.body.size());
      std::map<std::string, std::int64_t> scores;
      if (prioritized.status != 200 || priorities.HasParseError()) {
        // kube-scheduler ignores a failed /prioritize and goes on without its scores.
        outcome.scheduleError = "/prioritize (ignored) " + failureText(prioritized);
      } else if (priorities.IsArray()) {
        for (const auto& entry : priorities.GetArray()) {
          const auto* score = memberOf(entry, "Score");
          if (score && score->IsInt64())
            scores[stringOf(memberOf(entry, "Host"))] = score->GetInt64();
        }
      }
      outcome.node = selectHost(feasible, scores);
    }

    const bool afterNextFilter = options_.order == BindOrder::AfterNextFilter ||
                                 (options_.order == BindOrder::Alternate && turn % 2 == 1);
    auto nextFilterAnswered = afterNextFilter ? std::make_shared<Signal>() : nullptr;
    auto written = std::make_shared<Signal>();
    const bool mayRetry = attempts[i] < options_.maxAttempts;
    {
      std::lock_guard lock(queue.mutex);
      ++queue.bindsRunning;
    }
    binds.threads.emplace_back([this, &outcome, &fail, &pod, &queue, i, mayRetry,
                                nextFilterAnswered, written,
                                body = bindingArgs(pod, outcome.node)] {
      bindPod(options_, pod, outcome, body, nextFilterAnswered, *written, fail);
      std::lock_guard lock(queue.mutex);
      if (mayRetry && !outcome.bindError.empty()) queue.ready.push_back(i);
      --queue.bindsRunning;
      queue.changed.notify_all();
    });
    if (nextFilterAnswered) {
      binds.pending = nextFilterAnswered;
    } else {
      written->wait();
    }
  }
  binds.release();
  for (auto& thread : binds.threads) thread.join();
  binds.threads.clear();
  if (!failures.empty()) {
    std::string text = "SchedulerLoop:";
    for (const auto& failure : failures) text += "\n  " + failure;
    throw std::runtime_error(text);
  }
  return outcomes;
}

std::string renderPendingPod(const LoopPod& pod, const std::string& schedulerName) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("kind");
  w.String("Pod");
  w.Key("apiVersion");
  w.String("v1");
  w.Key("metadata");
  w.StartObject();
  w.Key("name");
  w.String(pod.object.name.c_str());
  w.Key("namespace");
  w.String(pod.object.ns.c_str());
  w.Key("uid");
  w.String(pod.uid.c_str());
  w.Key("labels");
  w.StartObject();
  for (const auto& [key, value] : pod.object.labels) {
    w.Key(key.c_str());
    w.String(value.c_str());
  }
  w.EndObject();
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  w.Key("schedulerName");
  w.String(schedulerName.c_str());
  if (!pod.object.affinityJson.empty()) {
    w.Key("affinity");
    w.RawValue(pod.object.affinityJson.c_str(), pod.object.affinityJson.size(),
               rapidjson::kObjectType);
  }
  w.EndObject();
  w.Key("status");
  w.StartObject();
  w.Key("phase");
  w.String("Pending");
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string selectHost(const std::vector<std::string>& feasible,
                       const std::map<std::string, std::int64_t>& scores) {
  if (feasible.empty()) throw std::invalid_argument("selectHost: no feasible node");
  const auto scoreOf = [&](const std::string& node) {
    const auto it = scores.find(node);
    return it == scores.end() ? std::int64_t{0} : it->second;
  };
  const std::string* best = &feasible.front();
  for (const auto& node : feasible) {
    if (scoreOf(node) > scoreOf(*best)) best = &node;
  }
  return *best;
}

std::map<std::string, std::size_t> podsPerTopologyValue(
    const std::map<std::string, ApiObject>& pods, const NodeLabels& nodes,
    const std::map<std::string, std::string>& selector, const std::string& topologyKey) {
  std::map<std::string, std::size_t> counts;
  for (const auto& [name, labels] : nodes) {
    if (const auto value = labels.find(topologyKey); value != labels.end()) {
      counts.emplace(value->second, 0);
    }
  }
  for (const auto& entry : pods) {
    const auto& pod = entry.second;  // a plain reference: clang 14 cannot capture a binding
    if (pod.nodeName.empty() || pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    const bool selected = std::all_of(selector.begin(), selector.end(), [&](const auto& label) {
      const auto it = pod.labels.find(label.first);
      return it != pod.labels.end() && it->second == label.second;
    });
    if (!selected) continue;
    const auto node = nodes.find(pod.nodeName);
    if (node == nodes.end()) continue;
    if (const auto value = node->second.find(topologyKey); value != node->second.end()) {
      ++counts[value->second];
    }
  }
  return counts;
}

std::size_t antiAffinityViolations(const std::map<std::string, ApiObject>& pods,
                                   const NodeLabels& nodes,
                                   const std::map<std::string, std::string>& selector,
                                   const std::string& topologyKey) {
  std::size_t pairs = 0;
  for (const auto& [value, count] : podsPerTopologyValue(pods, nodes, selector, topologyKey)) {
    if (count > 1) pairs += count * (count - 1) / 2;
  }
  return pairs;
}

std::size_t topologySkew(const std::map<std::string, ApiObject>& pods, const NodeLabels& nodes,
                         const std::map<std::string, std::string>& selector,
                         const std::string& topologyKey) {
  const auto counts = podsPerTopologyValue(pods, nodes, selector, topologyKey);
  if (counts.empty()) return 0;
  const auto [fewest, most] =
      std::minmax_element(counts.begin(), counts.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; });
  return most->second - fewest->second;
}

}  // namespace testing

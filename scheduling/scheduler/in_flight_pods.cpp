#include "scheduling/scheduler/in_flight_pods.hpp"

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <mutex>
#include <unordered_map>

namespace scheduling {

namespace net = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

// A held request: how many pods it still waits for, and what to run when it may go on.
struct Waiter {
  explicit Waiter(const net::any_io_executor& executor) : timer(executor) {}
  std::size_t pending = 0;
  bool done = false;  // released: by its last pod, its timer or releaseAll
  Clock::time_point start = Clock::now();
  InFlightPods::Proceed proceed;
  net::steady_timer timer;
};

struct Entry {
  framework::PodInfoPtr pod;
  Clock::time_point expires;
  std::vector<std::shared_ptr<Waiter>> waiters;
};

}  // namespace

struct InFlightPods::State {
  explicit State(net::any_io_executor e) : executor(std::move(e)) {}

  net::any_io_executor executor;
  mutable std::mutex mu;
  std::unordered_map<std::string, Entry> entries;  // by pod UID
  std::size_t waiting = 0;
  // entries.size(), readable without the lock: the cache asks awaits() for every placement
  // change, nearly always while nothing is in flight.
  std::atomic<std::size_t> inFlight{0};

  // Marks `waiter` released and hands its continuation to the executor. Under `mu`.
  void release(const std::shared_ptr<Waiter>& waiter, bool timedOut) {
    if (waiter->done) return;
    waiter->done = true;
    --waiting;
    const InFlightWait result{true, timedOut, Clock::now() - waiter->start};
    net::post(executor, [proceed = std::move(waiter->proceed), result] { proceed(result); });
  }

  // The pod's placement is visible (or will not come): requests waiting only for it go on.
  // Under `mu`.
  void settle(std::string_view uid) {
    auto it = entries.find(std::string(uid));
    if (it == entries.end()) return;
    for (const auto& waiter : it->second.waiters) {
      if (!waiter->done && --waiter->pending == 0) release(waiter, false);
    }
    entries.erase(it);
    inFlight = entries.size();
  }

  // Forgets pods past their time. A waiter still counting one is released by its own timer,
  // whose deadline is at least that pod's. Under `mu`.
  void expire(Clock::time_point now) {
    std::erase_if(entries, [now](const auto& item) { return item.second.expires <= now; });
    inFlight = entries.size();
  }
};

InFlightPods::InFlightPods(net::any_io_executor executor, std::chrono::milliseconds maxWait)
    : maxWait_(maxWait), state_(std::make_shared<State>(std::move(executor))) {}

InFlightPods::~InFlightPods() { releaseAll(); }

void InFlightPods::track(framework::PodInfoPtr pod) {
  if (maxWait_.count() <= 0) return;
  const std::string& uid = pod->pod().metadata.uid;
  std::lock_guard lock(state_->mu);
  const auto now = Clock::now();
  state_->expire(now);
  Entry& entry = state_->entries[uid];
  entry.pod = std::move(pod);
  entry.expires = now + maxWait_;
  state_->inFlight = state_->entries.size();
}

framework::PodInfoPtr InFlightPods::find(std::string_view uid) const {
  std::lock_guard lock(state_->mu);
  const auto it = state_->entries.find(std::string(uid));
  return it == state_->entries.end() ? nullptr : it->second.pod;
}

framework::PodInfoPtr InFlightPods::findByName(std::string_view ns, std::string_view name) const {
  std::lock_guard lock(state_->mu);
  for (const auto& [uid, entry] : state_->entries) {
    const auto& meta = entry.pod->pod().metadata;
    if (meta.ns == ns && meta.name == name) return entry.pod;
  }
  return nullptr;
}

void InFlightPods::settle(std::string_view uid) {
  std::lock_guard lock(state_->mu);
  state_->settle(uid);
}

void InFlightPods::whenSettled(std::string_view self,
                               const std::function<bool(const framework::PodInfo&)>& matters,
                               Proceed proceed) {
  // The pods in flight other than the request's own, looked at outside the lock.
  std::vector<std::pair<std::string, framework::PodInfoPtr>> others;
  if (state_->inFlight.load() > 0) {
    std::lock_guard lock(state_->mu);
    state_->expire(Clock::now());
    for (const auto& [uid, entry] : state_->entries) {
      if (uid != self) others.emplace_back(uid, entry.pod);
    }
  }
  std::erase_if(others, [&](const auto& other) { return !matters(*other.second); });
  if (others.empty()) return proceed({});

  auto waiter = std::make_shared<Waiter>(state_->executor);
  Clock::time_point deadline{};
  {
    std::lock_guard lock(state_->mu);
    for (const auto& other : others) {
      const auto it = state_->entries.find(other.first);
      if (it == state_->entries.end()) continue;  // settled meanwhile: already published
      it->second.waiters.push_back(waiter);
      ++waiter->pending;
      deadline = std::max(deadline, it->second.expires);
    }
    if (waiter->pending > 0) {
      waiter->proceed = std::move(proceed);
      ++state_->waiting;
      // Set before any settle can release the waiter: both happen under the lock.
      waiter->timer.expires_at(deadline);
      waiter->timer.async_wait([state = state_, waiter](boost::system::error_code) {
        std::lock_guard timerLock(state->mu);
        state->release(waiter, true);
      });
      return;
    }
  }
  proceed({});
}

void InFlightPods::releaseAll() {
  std::lock_guard lock(state_->mu);
  for (auto& [uid, entry] : state_->entries) {
    for (const auto& waiter : entry.waiters) state_->release(waiter, false);
    entry.waiters.clear();
  }
}

std::size_t InFlightPods::numInFlight() const { return state_->inFlight.load(); }

std::size_t InFlightPods::numWaiting() const {
  std::lock_guard lock(state_->mu);
  return state_->waiting;
}

bool InFlightPods::awaits(std::string_view uid) const {
  if (state_->inFlight.load() == 0) return false;
  std::lock_guard lock(state_->mu);
  return state_->entries.contains(std::string(uid));
}

void InFlightPods::placementsPublished(const std::vector<std::string>& uids) {
  std::lock_guard lock(state_->mu);
  for (const auto& uid : uids) state_->settle(uid);
}

void InFlightPods::removalsPublished(const std::vector<std::string>& uids) {
  // A pod in flight that is gone will not be placed: requests waiting for it go on.
  placementsPublished(uids);
}

}  // namespace scheduling

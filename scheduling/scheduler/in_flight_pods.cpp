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

// A held request: what it still waits for, and what to run when it may go on.
struct Waiter {
  explicit Waiter(const net::any_io_executor& executor) : timer(executor) {}
  std::size_t pending = 0;  // pods in flight
  // Per node of the request's VictimsLeft, the victims still there; cleared once one node has
  // none, when the victims no longer hold it.
  std::vector<std::size_t> victimsLeft;
  bool awaitedVictims = false;
  bool done = false;  // released: by what it waited for, its timer or releaseAll
  Clock::time_point start = Clock::now();
  InFlightPods::Proceed proceed;
  net::steady_timer timer;
};

struct Entry {
  framework::PodInfoPtr pod;
  Clock::time_point expires;
  std::vector<std::shared_ptr<Waiter>> waiters;
};

// A preemptor's latest /preempt answer.
struct PreemptionEntry {
  std::shared_ptr<const InFlightPods::Preemption> victims;
  std::size_t numVictims = 0;
  std::uint64_t answered = 0;  // the answers' sequence number: the lowest is the oldest
  Clock::time_point expires;
};

// A pod some remembered preemption names as a victim.
struct Eviction {
  std::size_t namedBy = 0;  // remembered preemptions naming it (once per mention)
  bool gone = false;        // a published snapshot no longer has it
  // Requests waiting for it to leave, each with the index of its node in their VictimsLeft.
  std::vector<std::pair<std::shared_ptr<Waiter>, std::size_t>> waiters;
};

}  // namespace

struct InFlightPods::State {
  State(net::any_io_executor e, std::chrono::milliseconds memory)
      : executor(std::move(e)), preemptionMemory(memory) {}

  net::any_io_executor executor;
  std::chrono::milliseconds preemptionMemory;
  mutable std::mutex mu;
  std::unordered_map<std::string, Entry> entries;                // by pod UID
  std::unordered_map<std::string, PreemptionEntry> preemptions;  // by preemptor UID
  std::unordered_map<std::string, Eviction> evictions;           // by victim UID
  std::size_t rememberedVictims = 0;                             // Σ numVictims over preemptions
  std::uint64_t answers = 0;                                     // preemptions remembered so far
  // The earliest expiry among preemptions (max() when none), so that looking for expired ones
  // costs a comparison until one is due.
  Clock::time_point nextPreemptionExpiry = Clock::time_point::max();
  std::size_t waiting = 0;
  // entries.size() and preemptions.size(), readable without the lock: the cache asks awaits()
  // for every pod that gets a place or leaves, and each request asks preemption(), nearly
  // always while neither holds anything.
  std::atomic<std::size_t> inFlight{0};
  std::atomic<std::size_t> inProgress{0};

  // Marks `waiter` released and hands its continuation to the executor. Under `mu`.
  void release(const std::shared_ptr<Waiter>& waiter, bool timedOut) {
    if (waiter->done) return;
    waiter->done = true;
    --waiting;
    InFlightWait result{true, timedOut, InFlightWait::Victims::NotAwaited,
                        Clock::now() - waiter->start};
    if (waiter->awaitedVictims) {
      result.victims = timedOut && !waiter->victimsLeft.empty() ? InFlightWait::Victims::TimedOut
                                                                : InFlightWait::Victims::Gone;
    }
    net::post(executor, [proceed = std::move(waiter->proceed), result] { proceed(result); });
  }

  // One pod `waiter` waited for is placed or gone. Under `mu`.
  void podSettled(const std::shared_ptr<Waiter>& waiter) {
    if (waiter->done || --waiter->pending > 0) return;
    if (waiter->victimsLeft.empty()) release(waiter, false);
  }

  // One victim on the `node`th node `waiter` waits on left. Under `mu`.
  void victimLeft(const std::shared_ptr<Waiter>& waiter, std::size_t node) {
    if (waiter->done || waiter->victimsLeft.empty() || --waiter->victimsLeft[node] > 0) return;
    waiter->victimsLeft.clear();
    if (waiter->pending == 0) release(waiter, false);
  }

  // The pod's placement is visible (or will not come): requests waiting only for it go on.
  // Under `mu`.
  void settle(std::string_view uid) {
    auto it = entries.find(std::string(uid));
    if (it == entries.end()) return;
    for (const auto& waiter : it->second.waiters) podSettled(waiter);
    entries.erase(it);
    inFlight = entries.size();
  }

  // Forgets pods past their time. A waiter still counting one is released by its own timer,
  // whose deadline is at least that pod's. Under `mu`.
  void expire(Clock::time_point now) {
    std::erase_if(entries, [now](const auto& item) { return item.second.expires <= now; });
    inFlight = entries.size();
    expirePreemptions(now);
  }

  // The victim's removal is published: requests waiting for it are told. Under `mu`.
  void evicted(const std::string& uid) {
    const auto it = evictions.find(uid);
    if (it == evictions.end() || it->second.gone) return;
    it->second.gone = true;
    for (const auto& [waiter, node] : it->second.waiters) victimLeft(waiter, node);
    it->second.waiters.clear();
  }

  // The victims of `preemption` are named once more (before the answer it replaces is
  // forgotten, so that a victim named by both keeps its waiters). Under `mu`.
  void name(const Preemption& preemption) {
    for (const auto& candidate : preemption) {
      for (const auto& uid : candidate.uids) ++evictions[uid].namedBy;
    }
  }

  // Forgets a preemptor's answer. A victim no other answer names stops being awaited: the
  // requests waiting for it no longer wait for it. Under `mu`.
  void forget(std::unordered_map<std::string, PreemptionEntry>::iterator it) {
    for (const auto& candidate : *it->second.victims) {
      for (const auto& uid : candidate.uids) {
        const auto eviction = evictions.find(uid);
        if (eviction == evictions.end() || --eviction->second.namedBy > 0) continue;
        for (const auto& [waiter, node] : eviction->second.waiters) victimLeft(waiter, node);
        evictions.erase(eviction);
      }
    }
    rememberedVictims -= it->second.numVictims;
    preemptions.erase(it);
    inProgress = preemptions.size();
  }

  void forget(const std::string& preemptor) {
    const auto it = preemptions.find(preemptor);
    if (it != preemptions.end()) forget(it);
  }

  // Forgets the answers past their time. Under `mu`.
  void expirePreemptions(Clock::time_point now) {
    if (now < nextPreemptionExpiry) return;
    nextPreemptionExpiry = Clock::time_point::max();
    for (auto it = preemptions.begin(); it != preemptions.end();) {
      const auto next = std::next(it);
      if (it->second.expires <= now) {
        forget(it);
      } else {
        nextPreemptionExpiry = std::min(nextPreemptionExpiry, it->second.expires);
      }
      it = next;
    }
  }

  // Forgets the oldest answers until at most kMaxRememberedVictims victims are remembered.
  // Under `mu`.
  void trim() {
    while (rememberedVictims > kMaxRememberedVictims) {
      forget(std::min_element(
          preemptions.begin(), preemptions.end(),
          [](const auto& a, const auto& b) { return a.second.answered < b.second.answered; }));
    }
  }

  // Makes `waiter` wait for `victims`, unless the victims of one of their nodes have already
  // left (or are named by no preemption any more). Under `mu`.
  void awaitVictims(const std::shared_ptr<Waiter>& waiter, const VictimsLeft& victims) {
    const auto awaited = [&](const std::string& uid) {
      const auto it = evictions.find(uid);
      return it != evictions.end() && !it->second.gone;
    };
    std::vector<std::size_t> left(victims.size(), 0);
    for (std::size_t node = 0; node < victims.size(); ++node) {
      left[node] = static_cast<std::size_t>(std::ranges::count_if(victims[node], awaited));
      if (left[node] == 0) return;
    }
    for (std::size_t node = 0; node < victims.size(); ++node) {
      for (const auto& uid : victims[node]) {
        const auto it = evictions.find(uid);
        if (it == evictions.end() || it->second.gone) continue;
        // Requests released since (by their timers) go, so that a victim that takes long to
        // leave does not collect every request that waited for it.
        std::erase_if(it->second.waiters, [](const auto& held) { return held.first->done; });
        it->second.waiters.emplace_back(waiter, node);
      }
    }
    waiter->victimsLeft = std::move(left);
    waiter->awaitedVictims = true;
  }
};

InFlightPods::InFlightPods(net::any_io_executor executor, std::chrono::milliseconds maxWait,
                           std::chrono::milliseconds preemptionMemory)
    : maxWait_(maxWait), state_(std::make_shared<State>(std::move(executor), preemptionMemory)) {}

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

void InFlightPods::notePreemption(std::string_view preemptor, Preemption victims) {
  if (maxWait_.count() <= 0 || preemptor.empty()) return;
  std::size_t numVictims = 0;
  for (const auto& candidate : victims) numVictims += candidate.uids.size();
  auto shared = std::make_shared<const Preemption>(std::move(victims));
  const std::string key(preemptor);
  std::lock_guard lock(state_->mu);
  const auto now = Clock::now();
  state_->expire(now);
  if (numVictims > 0) state_->name(*shared);
  state_->forget(key);
  if (numVictims == 0) return;
  const auto expires = now + state_->preemptionMemory;
  state_->preemptions.insert_or_assign(
      key, PreemptionEntry{std::move(shared), numVictims, ++state_->answers, expires});
  state_->rememberedVictims += numVictims;
  state_->nextPreemptionExpiry = std::min(state_->nextPreemptionExpiry, expires);
  state_->trim();
  state_->inProgress = state_->preemptions.size();
}

std::shared_ptr<const InFlightPods::Preemption> InFlightPods::preemption(
    std::string_view preemptor) const {
  if (state_->inProgress.load() == 0) return nullptr;
  std::lock_guard lock(state_->mu);
  const auto it = state_->preemptions.find(std::string(preemptor));
  if (it == state_->preemptions.end() || it->second.expires <= Clock::now()) return nullptr;
  return it->second.victims;
}

void InFlightPods::whenSettled(std::string_view self,
                               const std::function<bool(const framework::PodInfo&)>& matters,
                               VictimsLeft victims, Proceed proceed) {
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
  if (others.empty() && victims.empty()) return proceed({});

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
    if (!victims.empty()) {
      state_->awaitVictims(waiter, victims);
      if (!waiter->victimsLeft.empty()) deadline = std::max(deadline, waiter->start + maxWait_);
    }
    if (waiter->pending > 0 || !waiter->victimsLeft.empty()) {
      waiter->proceed = std::move(proceed);
      ++state_->waiting;
      // Set before anything can release the waiter: both happen under the lock.
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
  for (auto& [uid, eviction] : state_->evictions) {
    for (const auto& [waiter, node] : eviction.waiters) state_->release(waiter, false);
    eviction.waiters.clear();
  }
}

std::size_t InFlightPods::numInFlight() const { return state_->inFlight.load(); }

std::size_t InFlightPods::numWaiting() const {
  std::lock_guard lock(state_->mu);
  return state_->waiting;
}

std::size_t InFlightPods::numPreemptions() const {
  std::lock_guard lock(state_->mu);
  state_->expirePreemptions(Clock::now());
  return state_->preemptions.size();
}

bool InFlightPods::awaits(std::string_view uid) const {
  if (state_->inFlight.load() == 0 && state_->inProgress.load() == 0) return false;
  const std::string key(uid);
  std::lock_guard lock(state_->mu);
  if (state_->entries.contains(key) || state_->preemptions.contains(key)) return true;
  const auto it = state_->evictions.find(key);
  return it != state_->evictions.end() && !it->second.gone;
}

void InFlightPods::placementsPublished(const std::vector<std::string>& uids) {
  std::lock_guard lock(state_->mu);
  for (const auto& uid : uids) {
    state_->settle(uid);
    state_->forget(uid);  // a preemptor placed: its preemption is over
  }
}

void InFlightPods::removalsPublished(const std::vector<std::string>& uids) {
  std::lock_guard lock(state_->mu);
  for (const auto& uid : uids) {
    state_->settle(uid);
    state_->evicted(uid);
    state_->forget(uid);  // a preemptor deleted
  }
}

}  // namespace scheduling

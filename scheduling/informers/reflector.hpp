#pragma once

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <random>
#include <string>

#include "scheduling/informers/api_connection.hpp"
#include "scheduling/informers/backoff.hpp"
#include "scheduling/informers/cache_store.hpp"
#include "scheduling/informers/informer_observer.hpp"

namespace scheduling::informers {

// One resource as the API server serves it.
struct Resource {
  std::string name;           // "pods": the metric and log label
  std::string path;           // "/api/v1/pods"
  std::string fieldSelector;  // empty for none
};

// Pods that are not Succeeded or Failed, as kube-scheduler's own pod informer selects them; a
// pod that finishes leaves the watch as a DELETED event.
Resource podsResource();
Resource nodesResource();
Resource namespacesResource();
Resource podDisruptionBudgetsResource();

struct ReflectorOptions {
  std::size_t pageSize = 500;  // items per LIST page: memory stays bounded while listing
  std::chrono::seconds requestTimeout{60};
  // A watch asks the server to end it after a time drawn from [minWatchTimeout,
  // 2 × minWatchTimeout), as client-go does, so replicas do not all re-watch in step.
  std::chrono::seconds minWatchTimeout{300};
  // A watch that delivers nothing, not even a bookmark, for this long is opened again from
  // the last resourceVersion on a new connection. The API server says nothing on a watch of
  // a quiet resource (a bookmark about once a minute at most), and a stalled connection (a
  // dead peer, a half-open connection) looks just the same: re-watching costs one request
  // and heals a stall within seconds.
  std::chrono::seconds idleTimeout{10};
  Backoff::Duration initialBackoff{250};
  Backoff::Duration maxBackoff{8000};
};

// Keeps one resource of the cache in step with the API server, as client-go's Reflector
// does: a paginated LIST, then a WATCH from the list's resourceVersion, for ever.
//
//          ┌─── 410 Gone or 504 too large resourceVersion (status or ERROR event), ──────┐
//          │    expired continue, undecodable event                                      │
//          ▼                                                                             │
//   ┌─▶ LIST page by page ──done──▶ WATCH from resourceVersion ──events──▶ store ───────┤
//   │      │ error: backoff           ▲   │ the server ended it: again at once             │
//   │      └───────────── ◀───────────┘   │                                                │
//   │                                     └ dropped, stalled, other errors: backoff, then  │
//   │                                       WATCH again from the last resourceVersion      │
//   └──────────────────────────────────────────────────────────────────────────────────────┘
//
// The backoff is reset as soon as a watch is established again. All of it runs on one
// executor: the reflector is not thread-safe except for synced().
template <typename T>
class Reflector {
 public:
  Reflector(Resource resource, ApiConnection& connection, CacheStore<T>& store,
            InformerObserver& observer, ReflectorOptions options, unsigned seed);

  // Lists and watches until stop().
  boost::asio::awaitable<void> run();

  // Ends run() soon: cancels the wait or the request in progress. Call on the executor.
  void stop();

  // Whether the first list has been applied.
  bool synced() const { return synced_.load(); }

  // When the API server last said something on this resource's list or watch: a successful
  // answer's headers (so a quiet watch re-opened after the idle timeout counts) or any bytes
  // of a list page or of the watch stream (objects, events, bookmarks); the reflector's
  // construction before that. An error answer does not count: it keeps nothing up to date.
  // Safe to read from any thread.
  std::chrono::steady_clock::time_point lastHeard() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(lastHeard_.load(std::memory_order_relaxed)));
  }

  // Bytes the API server had sent on this resource's list or watch that were still unread
  // when the reflector last read (ApiConnection::unreadBytes): near 0 while the cache keeps
  // up, growing while events arrive faster than they are applied. The kernel's receive
  // buffer bounds it; past that the API server holds its events back, and ends a watch that
  // stays too slow. 0 between a restart and the next read. Safe to read from any thread.
  std::size_t backlogBytes() const { return backlog_.load(std::memory_order_relaxed); }

  const Resource& resource() const { return resource_; }

 private:
  boost::asio::awaitable<void> list();
  boost::asio::awaitable<api::json::ListMeta> readListPage(ListSummary& summary);
  boost::asio::awaitable<void> watch();
  boost::asio::awaitable<void> readEvents();
  boost::asio::awaitable<std::string> readErrorBody();
  std::string listTarget(const std::string& continueToken) const;
  std::string watchTarget();
  // On the executor, for every read: one relaxed store, read by whoever renders the age.
  void heard() {
    lastHeard_.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                     std::memory_order_relaxed);
  }
  // After every read of a list page or of the watch, before what it brought is applied.
  void noteBacklog() { backlog_.store(connection_.unreadBytes(), std::memory_order_relaxed); }

  Resource resource_;
  ApiConnection& connection_;
  CacheStore<T>& store_;
  InformerObserver& observer_;
  ReflectorOptions options_;
  Backoff backoff_;
  std::minstd_rand random_;
  boost::asio::steady_timer timer_;

  std::string resourceVersion_;  // how far the cache has got: the last list, event or bookmark
  bool needList_ = true;
  bool stopped_ = false;
  std::atomic<bool> synced_{false};
  std::atomic<std::chrono::steady_clock::rep> lastHeard_;
  std::atomic<std::size_t> backlog_{0};
};

}  // namespace scheduling::informers

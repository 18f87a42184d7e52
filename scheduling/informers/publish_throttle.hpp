#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>

#include "scheduling/cache/cache.hpp"

namespace scheduling::informers {

// Makes what the informers applied visible to requests, at most once per interval. A publish
// builds a snapshot, which costs time in the number of nodes (about a millisecond at 5,000
// nodes); events that trickle in one per read would otherwise cost one each and could keep
// the informers' thread busy publishing. With the throttle, a change waits at most the
// interval (ApiSource's is 10 ms: far below a scheduling cycle) and a burst costs one snapshot.
//
// Runs on the informers' executor, as the reflectors do; not thread-safe.
class PublishThrottle {
 public:
  PublishThrottle(boost::asio::any_io_executor executor, cache::Cache& cache,
                  std::chrono::milliseconds interval);

  // Something was applied: publish it once the interval since the last publish has passed,
  // from the executor (never from within this call).
  void changed();

  // Something requests may be waiting for was applied (a pod got a node): publish it as
  // soon as the executor is free again, i.e. once the caller has applied the rest of what
  // it is applying, without waiting out the interval.
  void changedUrgently();

  // Publish now (a list is complete: readiness may follow at once).
  void publishNow();

 private:
  void publish();

  cache::Cache& cache_;
  std::chrono::milliseconds interval_;
  boost::asio::steady_timer timer_;
  boost::asio::steady_timer::time_point lastPublish_{};
  bool pending_ = false;
  bool urgent_ = false;  // a changedUrgently() publish is posted
};

}  // namespace scheduling::informers

#include "scheduling/informers/publish_throttle.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>

namespace scheduling::informers {

PublishThrottle::PublishThrottle(boost::asio::any_io_executor executor, cache::Cache& cache,
                                 std::chrono::milliseconds interval)
    : cache_(cache), interval_(interval), timer_(std::move(executor)) {}

void PublishThrottle::changed() {
  if (pending_) return;
  pending_ = true;
  timer_.expires_at(
      std::max(boost::asio::steady_timer::clock_type::now(), lastPublish_ + interval_));
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || !pending_) return;  // cancelled, or publishNow() came first
    publish();
  });
}

void PublishThrottle::changedUrgently() {
  if (urgent_) return;
  urgent_ = true;
  boost::asio::post(timer_.get_executor(), [this] {
    if (!urgent_) return;  // publishNow() came first
    timer_.cancel();
    publish();
  });
}

void PublishThrottle::publishNow() {
  timer_.cancel();
  publish();
}

void PublishThrottle::publish() {
  pending_ = false;
  urgent_ = false;
  cache_.publish();
  lastPublish_ = boost::asio::steady_timer::clock_type::now();
}

}  // namespace scheduling::informers

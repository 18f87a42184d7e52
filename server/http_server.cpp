#include "server/http_server.hpp"

#include <algorithm>
#include <boost/asio/ip/address.hpp>

#include "server/listener.hpp"

namespace server {

namespace net = boost::asio;

// Framework requests allowed in flight, per compute thread and at least, before new ones get
// 503: deep enough that a burst from every kube-scheduler profile and replica queues rather
// than fails, shallow enough to bound the backlog.
constexpr std::size_t kQueuedPerComputeThread = 32;
constexpr std::size_t kMinQueued = 128;

HttpServer::HttpServer(const HttpServerOptions& options, Router router, net::thread_pool& compute)
    : options_(options),
      router_(std::move(router)),
      ioc_(options.ioThreads),
      compute_(compute),
      sessionContext_{router_,
                      compute_,
                      options.maxBodyBytes,
                      {0},
                      std::max(kMinQueued, static_cast<std::size_t>(options.computeThreads) *
                                               kQueuedPerComputeThread)},
      certificateCheck_(ioc_) {
  sessionContext_.maxConnections = options.maxConnections;
  sessionContext_.headerTimeout = options.headerTimeout;
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::start() {
  const net::ip::tcp::endpoint endpoint{net::ip::make_address(options_.host), options_.port};
  listener_ = std::make_shared<Listener>(ioc_, endpoint, sessionContext_, options_.tls.get());
  listener_->run();
  work_.emplace(ioc_.get_executor());
  if (options_.tls) scheduleCertificateCheck();
  for (int i = 0; i < options_.ioThreads; ++i) {
    ioThreads_.emplace_back([this] { ioc_.run(); });
  }
}

// Rotated certificates are picked up within this long.
constexpr std::chrono::seconds kCertificateCheckInterval{10};

void HttpServer::scheduleCertificateCheck() {
  certificateCheck_.expires_after(kCertificateCheckInterval);
  certificateCheck_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;  // stopping
    options_.tls->reloadIfChanged();
    scheduleCertificateCheck();
  });
}

net::ip::tcp::endpoint HttpServer::localEndpoint() const { return listener_->localEndpoint(); }

std::size_t HttpServer::drain(std::chrono::milliseconds grace) {
  sessionContext_.draining.store(true);
  if (listener_) listener_->close();
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (sessionContext_.requestsInFlight.load() > 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::size_t unanswered = sessionContext_.requestsInFlight.load();
  stop();
  return unanswered;
}

void HttpServer::stop() {
  work_.reset();
  ioc_.stop();
  for (auto& thread : ioThreads_) {
    if (thread.joinable()) thread.join();
  }
  ioThreads_.clear();
  compute_.join();
}

}  // namespace server

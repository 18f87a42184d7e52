#include "server/http_server.hpp"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <boost/system/system_error.hpp>
#include <set>
#include <stdexcept>

#include "server/listener.hpp"

namespace server {

namespace net = boost::asio;

// Framework requests allowed in flight, per compute thread and at least, before new ones get
// 503: deep enough that a burst from every kube-scheduler profile and replica queues rather
// than fails, shallow enough to bound the backlog.
constexpr std::size_t kQueuedPerComputeThread = 32;
constexpr std::size_t kMinQueued = 128;

HttpServer::Port::Port(const ListenerOptions& listenerOptions, const RouterContext& context,
                       const HttpServerOptions& server, net::thread_pool& compute)
    : options(listenerOptions),
      router(context, listenerOptions.served, listenerOptions.callers),
      sessions{router,
               compute,
               server.maxBodyBytes,
               {0},
               std::max(kMinQueued, static_cast<std::size_t>(server.computeThreads) *
                                        kQueuedPerComputeThread)} {
  sessions.maxConnections = server.maxConnections;
  sessions.headerTimeout = server.headerTimeout;
}

HttpServer::HttpServer(HttpServerOptions options, const RouterContext& router,
                       net::thread_pool& compute)
    : options_(std::move(options)),
      ioc_(options_.ioThreads),
      compute_(compute),
      certificateCheck_(ioc_) {
  for (const auto& listener : options_.listeners) {
    ports_.push_back(std::make_unique<Port>(listener, router, options_, compute_));
  }
}

HttpServer::~HttpServer() {
  stop();
  // The listeners' sockets belong to the io_context, which goes first (see ports_): the
  // listeners go now, or with the accept handler that holds one.
  for (auto& port : ports_) port->listener.reset();
}

void HttpServer::start() {
  for (auto& port : ports_) {
    const ListenerOptions& o = port->options;
    try {
      const net::ip::tcp::endpoint endpoint{net::ip::make_address(o.host), o.port};
      port->listener = std::make_shared<Listener>(ioc_, endpoint, port->sessions, o.tls.get());
    } catch (const boost::system::system_error& e) {
      throw std::runtime_error(o.flag + " " + o.host + ":" + std::to_string(o.port) + ": " +
                               e.code().message());
    }
  }
  for (auto& port : ports_) port->listener->run();
  work_.emplace(ioc_.get_executor());
  scheduleCertificateCheck();
  for (int i = 0; i < options_.ioThreads; ++i) {
    ioThreads_.emplace_back([this] { ioc_.run(); });
  }
}

// Rotated certificates are picked up within this long.
constexpr std::chrono::seconds kCertificateCheckInterval{10};

void HttpServer::scheduleCertificateCheck() {
  std::set<TlsContextProvider*> providers;
  for (const auto& port : ports_) {
    if (port->options.tls) providers.insert(port->options.tls.get());
  }
  if (providers.empty()) return;
  certificateCheck_.expires_after(kCertificateCheckInterval);
  certificateCheck_.async_wait([this, providers](boost::system::error_code ec) {
    if (ec) return;  // stopping
    for (auto* tls : providers) tls->reloadIfChanged();
    scheduleCertificateCheck();
  });
}

net::ip::tcp::endpoint HttpServer::localEndpoint(std::size_t index) const {
  return ports_.at(index)->listener->localEndpoint();
}

std::size_t HttpServer::requestsInFlight() const {
  std::size_t total = 0;
  for (const auto& port : ports_) total += port->sessions.requestsInFlight.load();
  return total;
}

std::size_t HttpServer::drain(std::chrono::milliseconds grace) {
  for (auto& port : ports_) {
    port->sessions.draining.store(true);
    if (port->listener) port->listener->close();
  }
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (requestsInFlight() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::size_t unanswered = requestsInFlight();
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

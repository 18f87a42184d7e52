#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "server/router.hpp"
#include "server/session_context.hpp"
#include "server/tls_context.hpp"

namespace server {

class Listener;

// One listening address and what it serves.
struct ListenerOptions {
  std::string flag = "--listen";  // that configured it, for start-up errors
  std::string host = "0.0.0.0";
  std::uint16_t port = 8888;  // 0 picks a free port
  Served served = Served::All;
  std::shared_ptr<TlsContextProvider> tls;  // null: plain HTTP
  CallerPolicy callers;
};

struct HttpServerOptions {
  std::vector<ListenerOptions> listeners;
  std::size_t maxBodyBytes = 128u << 20;
  int ioThreads = 2;
  int computeThreads = 2;             // of the compute pool given to HttpServer: sizes its queue
  std::size_t maxConnections = 4096;  // per listener
  std::chrono::seconds headerTimeout{10};  // see SessionContext
};

// The HTTP edge: I/O threads running the listeners and their sessions, handing framework
// work to a compute pool (shared with the scheduler, which resumes held requests on it). Each
// listener has its own router, caller policy and admission counters, so that a flood on the
// scheduling port never starves kubelet's probes on the other. Stopping joins the compute
// pool: its work answers on the server's connections.
class HttpServer {
 public:
  HttpServer(HttpServerOptions options, const RouterContext& router,
             boost::asio::thread_pool& compute);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds every listener (throws std::runtime_error naming the flag, the address and what
  // failed) and starts the threads.
  void start();
  // The address listener `index` (in options order) is bound to.
  boost::asio::ip::tcp::endpoint localEndpoint(std::size_t index = 0) const;

  // Graceful drain: stop accepting, close connections after their current answer, wait up
  // to `grace` for the requests already read, then stop. Returns the requests still
  // unanswered when the grace ran out (0 on a clean drain).
  std::size_t drain(std::chrono::milliseconds grace);

 private:
  // A listener with what its connections share.
  struct Port {
    Port(const ListenerOptions& options, const RouterContext& context,
         const HttpServerOptions& server, boost::asio::thread_pool& compute);

    ListenerOptions options;
    Router router;
    SessionContext sessions;
    std::shared_ptr<Listener> listener;
  };

  void stop();
  std::size_t requestsInFlight() const;
  void scheduleCertificateCheck();

  HttpServerOptions options_;
  // Declared before the io_context, so destroyed after it: the sessions that the io_context's
  // unfinished handlers still hold count themselves out of their port's SessionContext as the
  // io_context destroys those handlers.
  std::vector<std::unique_ptr<Port>> ports_;
  boost::asio::io_context ioc_;
  // Keeps the I/O threads running while no socket operation is pending: once the drain has
  // closed the listeners, answers still come back from the compute pool.
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  boost::asio::thread_pool& compute_;
  boost::asio::steady_timer certificateCheck_;
  std::vector<std::thread> ioThreads_;
};

}  // namespace server

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

struct HttpServerOptions {
  std::string host = "0.0.0.0";
  std::uint16_t port = 8888;  // 0 picks a free port
  std::size_t maxBodyBytes = 128u << 20;
  int ioThreads = 2;
  int computeThreads = 2;  // of the compute pool given to HttpServer: sizes its queue
  std::shared_ptr<TlsContextProvider> tls;  // null: plain HTTP
  std::size_t maxConnections = 4096;
  std::chrono::seconds headerTimeout{10};  // see SessionContext
};

// The HTTP edge: I/O threads running the listener and the sessions, handing framework work to
// a compute pool (shared with the scheduler, which resumes held requests on it). The router
// decides what each request gets. Stopping joins the compute pool: its work answers on the
// server's connections.
class HttpServer {
 public:
  HttpServer(const HttpServerOptions& options, Router router, boost::asio::thread_pool& compute);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds (throws boost::system::system_error when the address cannot be used) and starts
  // the threads.
  void start();
  boost::asio::ip::tcp::endpoint localEndpoint() const;

  // Graceful drain: stop accepting, close connections after their current answer, wait up
  // to `grace` for the requests already read, then stop. Returns the requests still
  // unanswered when the grace ran out (0 on a clean drain).
  std::size_t drain(std::chrono::milliseconds grace);

 private:
  void stop();
  void scheduleCertificateCheck();

  HttpServerOptions options_;
  Router router_;
  boost::asio::io_context ioc_;
  // Keeps the I/O threads running while no socket operation is pending: once the drain has
  // closed the listener, answers still come back from the compute pool.
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  boost::asio::thread_pool& compute_;
  SessionContext sessionContext_;
  std::shared_ptr<Listener> listener_;
  boost::asio::steady_timer certificateCheck_;
  std::vector<std::thread> ioThreads_;
};

}  // namespace server

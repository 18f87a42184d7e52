#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>

#include "server/router.hpp"

namespace server {

// Beast's HTTP reads take at most 64 KB at a time.
inline constexpr std::size_t kReadChunkBytes = 64 * 1024;

// What every connection shares: the router, the compute pool and the admission counters.
struct SessionContext {
  const Router& router;
  boost::asio::thread_pool& compute;
  std::size_t maxBodyBytes;
  // Framework requests queued or running on the compute pool, and the most allowed before
  // new ones get 503 + Retry-After instead of an unbounded queue.
  std::atomic<std::size_t> computeInFlight{0};
  std::size_t maxComputeInFlight;
  // Requests read and not yet answered, for the graceful drain.
  std::atomic<std::size_t> requestsInFlight{0};
  std::atomic<bool> draining{false};
  std::chrono::seconds idleTimeout{60};
};

// One HTTP/1.1 connection, alive through shared_from_this as in Beast's async server
// example: read a request (fresh parser, body limit), answer it (framework work on the
// compute pool, the rest inline), write, repeat while keep-alive holds.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(boost::asio::ip::tcp::socket&& socket, SessionContext& context);

  void run();

 private:
  void doRead();
  void onReadHeader(boost::beast::error_code ec, std::size_t bytes);
  void readBody();
  void onRead(boost::beast::error_code ec, std::size_t bytes);
  void dispatch(Request request);
  void send(Response response);
  void onWrite(bool keepAlive, boost::beast::error_code ec, std::size_t bytes);
  void doClose();

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  SessionContext& context_;
  bool requestCounted_ = false;  // a request read is awaiting its answer (for the drain)
};

}  // namespace server

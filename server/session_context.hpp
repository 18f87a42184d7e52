#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstddef>
#include <memory>

#include "server/body_buffers.hpp"
#include "server/router.hpp"

namespace server {

// Beast's HTTP reads take at most 64 KB at a time.
inline constexpr std::size_t kReadChunkBytes = 64 * 1024;
// Bodies at least this large, of known length, bypass the parser (HttpSession::readBody).
inline constexpr std::size_t kDirectReadBytes = 1024 * 1024;
// The most one read of an ExtenderArgs body takes (HttpSession::readBodyStreaming); the pool
// decodes the items it completes while the next read waits for the kernel.
inline constexpr std::size_t kStreamedReadBytes = 1024 * 1024;

// What every connection of one listener shares: its router, the compute pool and the
// listener's admission counters.
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
  // Open connections, and the most accepted: more are closed on accept, so idle or slow
  // clients cannot exhaust file descriptors or memory.
  std::atomic<std::size_t> connections{0};
  std::size_t maxConnections = 4096;
  // Slow clients are bounded at each step of a request: a kept-alive connection may wait
  // this long for a request's first byte; the header must then arrive whole within
  // headerTimeout (slowloris); the body, which may be a 50 MB NodeList on a slow link,
  // within bodyTimeout.
  std::chrono::seconds idleTimeout{60};
  std::chrono::seconds headerTimeout{10};
  std::chrono::seconds bodyTimeout{60};
  // Bodies of kDirectReadBytes or more, reused across requests; shared with the requests
  // that hold one, which may outlive their connection. One is kept: kube-scheduler sends one
  // request at a time, and each body kept is RSS held for good (52 MB at 5,000 nodes); a
  // second full-Nodes request at the same time gets a fresh body.
  std::shared_ptr<BodyBuffers> bodyBuffers =
      std::make_shared<BodyBuffers>(/*keep=*/1, /*minBytes=*/kDirectReadBytes);
};

}  // namespace server

#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "scheduling/api/extender_types.hpp"
#include "scheduling/api/json/extender_args_stream.hpp"

namespace server {

// The ExtenderArgs of a large body, decoded on the compute pool while the I/O thread reads the
// rest of it. Decoding a 52 MB NodeList (18 ms) takes longer than moving it through loopback
// (10 ms): decoded between reads on the I/O thread, it paced the reads, and the client's CPU
// sat idle for half the transfer. Here the reads go at the kernel's pace and the decoding
// follows them on another CPU.
//
// The I/O thread calls arrived() after each read and stop() once the body is whole, before the
// request leaves the connection; the request's handler then calls finish() (on any thread),
// which decodes what the pool had not reached. The decoding steps are serialised by a mutex
// and never overlap finish().
class StreamedArgs : public std::enable_shared_from_this<StreamedArgs> {
 public:
  // `body` is the string the body is read into, sized to the whole body; its buffer must not
  // move, which moving the string into the request does not do. Kept alive here until the last
  // step on the pool ends, so a connection dropped mid-body frees it only then.
  StreamedArgs(boost::asio::thread_pool& compute, std::shared_ptr<std::string> body);

  // The first `received` bytes of the body are in: decodes the items they complete, on the pool.
  void arrived(std::size_t received);

  // No more decoding on the pool: returns once a step running there has ended. The bytes of
  // the body belong to the request from here on, which may release them without finish().
  void stop();

  // The whole body, in the same buffer: the arguments, as decodeExtenderArgs(body) gives them
  // (it throws the same errors). After stop().
  scheduling::api::ExtenderArgs finish(std::string_view body);

  // The Nodes items decoded while the body arrived (for the request's log line); waits for a
  // step in progress.
  std::size_t streamedNodes() const;

 private:
  void decodeOnPool();
  bool decodeStep();

  boost::asio::thread_pool& compute_;
  std::shared_ptr<std::string> body_;
  const char* const bytes_;      // the body's buffer, whoever owns the string by then
  mutable std::mutex decoding_;  // held by a step on the pool, stop(), finish(), streamedNodes()
  scheduling::api::json::ExtenderArgsStreamDecoder decoder_;
  std::atomic<std::size_t> received_{0};
  std::atomic<std::size_t> decodedBytes_{0};  // handed to the decoder; written under decoding_
  std::atomic<bool> scheduled_{false};        // a decodeOnPool() is queued or running
  std::atomic<bool> stopped_{false};
};

}  // namespace server

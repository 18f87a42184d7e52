#include "server/streamed_args.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>

namespace server {

// The most bytes one step hands the decoder (~0.1 ms of decoding): what stop() may wait for.
constexpr std::size_t kStepBytes = 256 * 1024;

StreamedArgs::StreamedArgs(boost::asio::thread_pool& compute, std::shared_ptr<std::string> body)
    : compute_(compute), body_(std::move(body)), bytes_(body_->data()) {}

void StreamedArgs::arrived(std::size_t received) {
  received_.store(received);
  if (!scheduled_.exchange(true)) {
    boost::asio::post(compute_, [self = shared_from_this()] { self->decodeOnPool(); });
  }
}

// Steps until caught up with the reads. Bytes that arrive after the last step and before
// `scheduled_` is cleared were announced to a run still marked scheduled, so this run looks
// again once it has cleared the mark, and takes them unless a new run already has.
void StreamedArgs::decodeOnPool() {
  for (;;) {
    while (decodeStep()) {
    }
    scheduled_.store(false);
    if (stopped_.load() || received_.load() <= decodedBytes_.load()) return;
    if (scheduled_.exchange(true)) return;
  }
}

bool StreamedArgs::decodeStep() {
  std::lock_guard lock(decoding_);
  const std::size_t received = received_.load();
  const std::size_t decoded = decodedBytes_.load();
  if (stopped_.load() || decoded >= received) return false;
  const std::size_t upTo = std::min(received, decoded + kStepBytes);
  decoder_.receive({bytes_, upTo});
  decodedBytes_.store(upTo);
  return true;
}

void StreamedArgs::stop() {
  stopped_.store(true);
  const std::lock_guard waitForTheStepInProgress(decoding_);
}

std::size_t StreamedArgs::streamedNodes() const {
  const std::lock_guard lock(decoding_);
  return decoder_.decodedNodes();
}

scheduling::api::ExtenderArgs StreamedArgs::finish(std::string_view body) {
  stopped_.store(true);
  const std::lock_guard lock(decoding_);
  return decoder_.finish(body);
}

}  // namespace server

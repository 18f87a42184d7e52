#include "server/body_buffers.hpp"

#include <algorithm>
#include <utility>

namespace server {

std::string BodyBuffers::take(std::size_t length) {
  std::string body;
  {
    std::lock_guard lock(mutex_);
    // The smallest spare that holds the body and is not more than twice its size: a small
    // request leaves the large spares to the large ones, which would otherwise have to
    // write zeros over what it did not use.
    auto best = spare_.end();
    for (auto it = spare_.begin(); it != spare_.end(); ++it) {
      const std::size_t capacity = it->capacity();
      if (capacity >= length && capacity / 2 <= length &&
          (best == spare_.end() || capacity < best->capacity())) {
        best = it;
      }
    }
    if (best != spare_.end()) {
      body = std::move(*best);
      spare_.erase(best);
    }
  }
  // Within the capacity: no reallocation, and only bytes past the old size are written
  // (none when the spare served a body of the same size before).
  body.resize(length);
  return body;
}

void BodyBuffers::giveBack(std::string body) {
  if (body.capacity() < minBytes_) return;
  std::lock_guard lock(mutex_);
  if (spare_.size() < keep_) {
    spare_.push_back(std::move(body));
    return;
  }
  // Full: keep the larger ones, which are the costly ones to make.
  auto smallest = std::min_element(spare_.begin(), spare_.end(), [](const auto& a, const auto& b) {
    return a.capacity() < b.capacity();
  });
  if (smallest->capacity() < body.capacity()) *smallest = std::move(body);
}

}  // namespace server

#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace server {

// Large request bodies kept for the next large request. A fresh 50–100 MB string is
// zero-filled and, past the 64 MB a glibc thread arena can hold, mapped anew and faulted in
// page by page on every request: on S4's 104 MB NodeList that was ~0.5 s of a request whose
// decoding and scheduling take 16 ms. A kept string keeps its size, so a body of the same
// length as the last one (kube-scheduler sending its NodeList again) writes nothing.
class BodyBuffers {
 public:
  // Keeps at most `keep` strings, each of at least `minBytes`.
  BodyBuffers(std::size_t keep, std::size_t minBytes) : keep_(keep), minBytes_(minBytes) {}

  // A string of exactly `length` bytes whose contents are unspecified.
  std::string take(std::size_t length);
  // Keeps the body for a later take() if it is large and there is room; frees it otherwise.
  void giveBack(std::string body);

 private:
  const std::size_t keep_;
  const std::size_t minBytes_;
  std::mutex mutex_;
  std::vector<std::string> spare_;
};

}  // namespace server

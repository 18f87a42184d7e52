#pragma once

#include <chrono>
#include <mutex>
#include <string>

#include "scheduling/informers/client_config.hpp"

namespace scheduling::informers {

// The bearer token to send: fixed, or read from a file and read again once a minute, as
// client-go's file token source does. Bound service-account tokens are rotated by the
// kubelet well before they expire, so a token read at start-up would stop working.
class TokenSource {
 public:
  explicit TokenSource(const ClientConfig& config,
                       std::chrono::steady_clock::duration refresh = std::chrono::minutes(1));

  // The current token, "" when there is none. A failed re-read keeps the previous token.
  std::string token();

  // The API server refused the token: read the file again on the next token() call.
  void expire();

 private:
  std::string fixed_;
  std::string file_;
  std::chrono::steady_clock::duration refresh_;
  std::mutex mutex_;
  std::string cached_;
  std::chrono::steady_clock::time_point readAt_{};
  bool read_ = false;
};

}  // namespace scheduling::informers

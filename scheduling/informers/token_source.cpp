#include "scheduling/informers/token_source.hpp"

#include <fstream>
#include <sstream>

namespace scheduling::informers {

TokenSource::TokenSource(const ClientConfig& config, std::chrono::steady_clock::duration refresh)
    : fixed_(config.bearerToken), file_(config.tokenFile), refresh_(refresh) {}

std::string TokenSource::token() {
  // A kubeconfig token wins over its tokenFile, as in client-go.
  if (!fixed_.empty() || file_.empty()) return fixed_;
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (read_ && now - readAt_ < refresh_) return cached_;
  std::ifstream in(file_, std::ios::binary);
  if (in) {
    std::ostringstream text;
    text << in.rdbuf();
    std::string token = text.str();
    while (!token.empty() &&
           (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) {
      token.pop_back();
    }
    if (!token.empty()) cached_ = std::move(token);
  }
  readAt_ = now;
  read_ = true;
  return cached_;
}

void TokenSource::expire() {
  std::lock_guard lock(mutex_);
  read_ = false;
}

}  // namespace scheduling::informers

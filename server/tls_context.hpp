#pragma once

#include <boost/asio/ssl/context.hpp>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace server {

// kube-scheduler's extender `tlsConfig` seen from the server: the serving certificate and
// key, and optionally the CA that client certificates must chain to (mutual TLS).
struct TlsFiles {
  std::string certFile;
  std::string keyFile;
  std::string clientCaFile;  // empty: no client certificates asked for
};

// Builds the OpenSSL server context (TLS 1.2 and later; ALPN answers http/1.1, since
// kube-scheduler's Go client offers h2 first) and rebuilds it when a file changes, as
// cert-manager and kubelet's secret volumes rotate them in place. New connections take the
// current context; open ones keep the one they started with.
class TlsContextProvider {
 public:
  // Throws std::runtime_error naming the flag and file that could not be used.
  explicit TlsContextProvider(TlsFiles files);

  std::shared_ptr<boost::asio::ssl::context> current() const;
  bool requiresClientCertificate() const { return !files_.clientCaFile.empty(); }

  // Rebuilds the context when a file's modification time changed. On a bad new file it keeps
  // serving with the old context and reports the error, so a half-written rotation never
  // takes the server down; the next call tries again. Returns whether it reloaded.
  // Thread-safe.
  bool reloadIfChanged();

 private:
  std::vector<std::filesystem::file_time_type> modificationTimes() const;

  TlsFiles files_;
  std::mutex reloadMutex_;    // one reload at a time (the timer, or a caller)
  mutable std::mutex mutex_;  // guards current_
  std::shared_ptr<boost::asio::ssl::context> current_;
  std::vector<std::filesystem::file_time_type> loadedTimes_;
};

}  // namespace server

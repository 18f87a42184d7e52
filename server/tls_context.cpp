#include "server/tls_context.hpp"

#include <openssl/ssl.h>

#include <boost/system/system_error.hpp>
#include <cstring>
#include <stdexcept>

#include "server/logging.hpp"

namespace server {
namespace {

namespace ssl = boost::asio::ssl;

// ALPN: pick http/1.1 whatever else the client offers (h2 first, from Go clients). A client
// offering only protocols we do not speak gets no ALPN answer and may still talk HTTP/1.1.
int selectHttp11(SSL*, const unsigned char** out, unsigned char* outLength,
                 const unsigned char* offered, unsigned int offeredLength, void*) {
  static constexpr unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outLength, kHttp11, sizeof kHttp11, offered,
                            offeredLength) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

// Runs one OpenSSL-backed step, turning its error into one line naming the flag and file.
template <typename Step>
void useFile(const char* flag, const std::string& path, Step step) {
  try {
    step();
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error(std::string(flag) + " " + path + ": " + e.code().message());
  }
}

std::shared_ptr<ssl::context> build(const TlsFiles& files) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION);
  useFile("--tls-cert-file", files.certFile,
          [&] { context->use_certificate_chain_file(files.certFile); });
  useFile("--tls-private-key-file", files.keyFile,
          [&] { context->use_private_key_file(files.keyFile, ssl::context::pem); });
  if (!files.clientCaFile.empty()) {
    useFile("--client-ca-file", files.clientCaFile,
            [&] { context->load_verify_file(files.clientCaFile); });
    // Tell clients which CA to present a certificate from.
    SSL_CTX_set_client_CA_list(context->native_handle(),
                               SSL_load_client_CA_file(files.clientCaFile.c_str()));
    // Ask for a certificate and reject one that does not verify, but let a client without
    // one finish the handshake: kubelet's probes reach /healthz and /readyz that way, and
    // every other endpoint answers it 401.
    context->set_verify_mode(ssl::verify_peer);
  }
  SSL_CTX_set_alpn_select_cb(context->native_handle(), &selectHttp11, nullptr);
  return context;
}

}  // namespace

TlsContextProvider::TlsContextProvider(TlsFiles files) : files_(std::move(files)) {
  loadedTimes_ = modificationTimes();
  current_ = build(files_);
}

std::shared_ptr<ssl::context> TlsContextProvider::current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

std::vector<std::filesystem::file_time_type> TlsContextProvider::modificationTimes() const {
  std::vector<std::filesystem::file_time_type> times;
  for (const std::string* path : {&files_.certFile, &files_.keyFile, &files_.clientCaFile}) {
    std::error_code ec;
    times.push_back(path->empty() ? std::filesystem::file_time_type{}
                                  : std::filesystem::last_write_time(*path, ec));
  }
  return times;
}

bool TlsContextProvider::reloadIfChanged() {
  std::lock_guard reloading(reloadMutex_);
  const auto times = modificationTimes();
  if (times == loadedTimes_) return false;
  try {
    auto rebuilt = build(files_);
    std::lock_guard lock(mutex_);
    current_ = std::move(rebuilt);
    loadedTimes_ = times;
  } catch (const std::runtime_error& e) {
    SX_LOG_WARNING << "keeping the current TLS certificate: " << e.what();
    return false;
  }
  SX_LOG_INFO << "reloaded the TLS certificate from " << files_.certFile;
  return true;
}

}  // namespace server

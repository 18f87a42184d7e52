#include "server/tls_session.hpp"

#include <openssl/ssl.h>

#include <boost/asio/dispatch.hpp>

namespace server {

namespace beast = boost::beast;

// A client that connects and never completes the handshake is cut off after this long.
constexpr std::chrono::seconds kHandshakeTimeout{10};

TlsSession::TlsSession(beast::tcp_stream&& stream, std::shared_ptr<boost::asio::ssl::context> tls,
                       SessionContext& context)
    : HttpSession(context), tls_(std::move(tls)), stream_(std::move(stream), *tls_) {}

void TlsSession::run() {
  boost::asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
    beast::get_lowest_layer(self->stream_).expires_after(kHandshakeTimeout);
    self->stream_.async_handshake(boost::asio::ssl::stream_base::server,
                                  [self](beast::error_code ec) { self->onHandshake(ec); });
  });
}

void TlsSession::onHandshake(beast::error_code ec) {
  if (ec) {
    // A foreign client certificate, plain HTTP on the TLS port, a scanner: nothing to answer.
    SX_LOG_V(2) << "TLS handshake failed: " << ec.message();
    return;
  }
  X509* peer = SSL_get1_peer_certificate(stream_.native_handle());
  hasClientCertificate_ = peer != nullptr;
  X509_free(peer);
  doRead();
}

void TlsSession::doEof() {
  beast::get_lowest_layer(stream_).expires_after(kHandshakeTimeout);
  stream_.async_shutdown([self = shared_from_this()](beast::error_code) {});
}

}  // namespace server

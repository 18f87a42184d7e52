#include "server/tls_session.hpp"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/dispatch.hpp>

namespace server {

namespace beast = boost::beast;

namespace {

// A client that connects and never completes the handshake is cut off after this long.
constexpr std::chrono::seconds kHandshakeTimeout{10};

// The names the allow-list matches, of the certificate the handshake verified; null when the
// client presented none.
std::shared_ptr<const ClientCertificate> peerCertificate(SSL* ssl) {
  X509* peer = SSL_get1_peer_certificate(ssl);
  if (peer == nullptr) return nullptr;
  auto certificate = std::make_shared<ClientCertificate>();
  const X509_NAME* subject = X509_get_subject_name(peer);
  const int at = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (at >= 0) {
    const ASN1_STRING* cn = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at));
    certificate->commonName.assign(reinterpret_cast<const char*>(ASN1_STRING_get0_data(cn)),
                                   static_cast<std::size_t>(ASN1_STRING_length(cn)));
  }
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(peer, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type != GEN_DNS) continue;
    const ASN1_IA5STRING* dns = name->d.dNSName;
    certificate->dnsNames.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                                       static_cast<std::size_t>(ASN1_STRING_length(dns)));
  }
  GENERAL_NAMES_free(names);
  X509_free(peer);
  return certificate;
}

}  // namespace

TlsSession::TlsSession(beast::tcp_stream&& stream, std::shared_ptr<boost::asio::ssl::context> tls,
                       SessionContext& context, boost::asio::ip::tcp::endpoint peer)
    : HttpSession(context, peer), tls_(std::move(tls)), stream_(std::move(stream), *tls_) {}

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
  // Read once per connection: every request on it is from the same certificate.
  caller_.certificate = peerCertificate(stream_.native_handle());
  doRead();
}

void TlsSession::doEof() {
  beast::get_lowest_layer(stream_).expires_after(kHandshakeTimeout);
  stream_.async_shutdown([self = shared_from_this()](beast::error_code) {});
}

}  // namespace server

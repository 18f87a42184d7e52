#include "test/testing/tls_client.hpp"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/ip/address.hpp>
#include <boost/beast/http.hpp>
#include <chrono>

namespace testing {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

namespace {

// Configured before the stream exists: an SSL object copies its context's settings when it
// is created.
net::ssl::context makeContext(const TlsClientOptions& options) {
  net::ssl::context tls(net::ssl::context::tls_client);
  tls.load_verify_file(options.caFile);
  tls.set_verify_mode(net::ssl::verify_peer);
  if (!options.certFile.empty()) {
    tls.use_certificate_chain_file(options.certFile);
    tls.use_private_key_file(options.keyFile, net::ssl::context::pem);
  }
  if (options.maxProtocolVersion != 0) {
    SSL_CTX_set_max_proto_version(tls.native_handle(), options.maxProtocolVersion);
    SSL_CTX_set_security_level(tls.native_handle(), 0);  // allow the old versions at all
  }
  return tls;
}

}  // namespace

TlsClient::TlsClient(std::uint16_t port, const TlsClientOptions& options)
    : tls_(makeContext(options)), stream_(ioc_, tls_) {
  if (!options.alpn.empty()) {
    std::string wire;
    for (const auto& protocol : options.alpn) {
      wire.push_back(static_cast<char>(protocol.size()));
      wire += protocol;
    }
    SSL_set_alpn_protos(stream_.native_handle(),
                        reinterpret_cast<const unsigned char*>(wire.data()),
                        static_cast<unsigned>(wire.size()));
  }
  beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(30));
  beast::get_lowest_layer(stream_).connect(
      net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  stream_.handshake(net::ssl::stream_base::client);
}

HttpReply TlsClient::get(std::string_view target) {
  http::request<http::string_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1");
  http::write(stream_, request);
  http::response<http::string_body> response;
  http::read(stream_, buffer_, response);
  return {response.result_int(), response.body(), response.base()};
}

HttpReply TlsClient::post(std::string_view target, std::string body) {
  http::request<http::string_body> request{http::verb::post, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.body() = std::move(body);
  request.prepare_payload();
  http::write(stream_, request);
  http::response<http::string_body> response;
  http::read(stream_, buffer_, response);
  return {response.result_int(), response.body(), response.base()};
}

std::string TlsClient::negotiatedProtocol() {
  const unsigned char* data = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(stream_.native_handle(), &data, &length);
  return {reinterpret_cast<const char*>(data), length};
}

std::string TlsClient::serverCommonName() {
  X509* peer = SSL_get1_peer_certificate(stream_.native_handle());
  char name[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, name, sizeof name);
  X509_free(peer);
  return name;
}

std::string pkiFile(std::string_view name) {
  return std::string(SX_SOURCE_DIR) + "/test/data/pki/" + std::string(name);
}

}  // namespace testing

#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "test/testing/http_client.hpp"

namespace testing {

struct TlsClientOptions {
  std::string caFile;    // the server must chain to it
  std::string certFile;  // optional client certificate
  std::string keyFile;
  std::vector<std::string> alpn;  // protocols offered, in order
  int maxProtocolVersion = 0;     // e.g. TLS1_1_VERSION; 0: no cap
};

// A blocking HTTPS client to 127.0.0.1 for tests: the constructor connects and completes
// the handshake, throwing boost::system::system_error when the server refuses it.
class TlsClient {
 public:
  TlsClient(std::uint16_t port, const TlsClientOptions& options);

  HttpReply get(std::string_view target);
  HttpReply post(std::string_view target, std::string body);

  std::string negotiatedProtocol();  // ALPN; empty when none
  std::string serverCommonName();

 private:
  boost::asio::io_context ioc_;
  boost::asio::ssl::context tls_;
  boost::beast::ssl_stream<boost::beast::tcp_stream> stream_;
  boost::beast::flat_buffer buffer_;
};

// A file under test/data/pki/.
std::string pkiFile(std::string_view name);

}  // namespace testing

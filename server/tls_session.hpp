#pragma once

#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <memory>

#include "server/http_session.hpp"

namespace server {

// HTTP over TLS: the handshake (with the client certificate check when a client CA is
// configured), then the same HTTP session, then a TLS shutdown.
class TlsSession : public HttpSession<TlsSession>, public std::enable_shared_from_this<TlsSession> {
 public:
  // `tls` is the context current when the connection was accepted; the session keeps it
  // alive, so a certificate reload never pulls it from under an open connection.
  TlsSession(boost::beast::tcp_stream&& stream, std::shared_ptr<boost::asio::ssl::context> tls,
             SessionContext& context, boost::asio::ip::tcp::endpoint peer);

  void run();

  boost::beast::ssl_stream<boost::beast::tcp_stream>& stream() { return stream_; }
  void doEof();

 private:
  void onHandshake(boost::beast::error_code ec);

  std::shared_ptr<boost::asio::ssl::context> tls_;
  boost::beast::ssl_stream<boost::beast::tcp_stream> stream_;
};

}  // namespace server

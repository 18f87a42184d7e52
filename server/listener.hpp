#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <memory>

#include "server/session_context.hpp"
#include "server/tls_context.hpp"

namespace server {

// Accepts connections and starts a PlainSession or TlsSession for each, every one on its own strand
// (Beast's `async_accept(net::make_strand(ioc))`).
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Binds and listens; throws boost::system::system_error naming what failed.
  // With `tls`, every connection is served over TLS with its current context.
  Listener(boost::asio::io_context& ioc, const boost::asio::ip::tcp::endpoint& endpoint,
           SessionContext& context, const TlsContextProvider* tls);

  void run();
  void close();
  boost::asio::ip::tcp::endpoint localEndpoint() const { return acceptor_.local_endpoint(); }

 private:
  void doAccept();
  void onAccept(boost::beast::error_code ec, boost::asio::ip::tcp::socket socket);

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  SessionContext& context_;
  const TlsContextProvider* tls_;
  boost::asio::steady_timer retry_;  // after an accept error
};

}  // namespace server

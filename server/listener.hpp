#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <memory>

#include "server/session.hpp"

namespace server {

// Accepts connections and starts a Session for each, every one on its own strand
// (Beast's `async_accept(net::make_strand(ioc))`).
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Binds and listens; throws boost::system::system_error naming what failed.
  Listener(boost::asio::io_context& ioc, const boost::asio::ip::tcp::endpoint& endpoint,
           SessionContext& context);

  void run();
  void close();
  boost::asio::ip::tcp::endpoint localEndpoint() const { return acceptor_.local_endpoint(); }

 private:
  void doAccept();
  void onAccept(boost::beast::error_code ec, boost::asio::ip::tcp::socket socket);

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  SessionContext& context_;
};

}  // namespace server

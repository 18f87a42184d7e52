#include "server/listener.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>

#include "server/logging.hpp"
#include "server/plain_session.hpp"
#include "server/tls_session.hpp"

namespace server {

namespace net = boost::asio;
using net::ip::tcp;

constexpr std::chrono::milliseconds kAcceptRetry{100};

Listener::Listener(net::io_context& ioc, const tcp::endpoint& endpoint, SessionContext& context,
                   const TlsContextProvider* tls)
    : ioc_(ioc),
      acceptor_(net::make_strand(ioc)),
      context_(context),
      tls_(tls),
      retry_(acceptor_.get_executor()) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
}

void Listener::run() { doAccept(); }

void Listener::close() {
  net::dispatch(acceptor_.get_executor(), [self = shared_from_this()]() {
    boost::system::error_code ignored;
    self->retry_.cancel();
    self->acceptor_.close(ignored);
  });
}

void Listener::doAccept() {
  acceptor_.async_accept(net::make_strand(ioc_),
                         boost::beast::bind_front_handler(&Listener::onAccept, shared_from_this()));
}

void Listener::onAccept(boost::beast::error_code ec, tcp::socket socket) {
  if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;  // closed
  if (ec) {
    // Out of file descriptors and the like: keep serving the connections we have, and pause
    // rather than spin on an error that repeats until some connection closes.
    SX_LOG_WARNING << "accept failed, pausing " << kAcceptRetry.count() << "ms: " << ec.message();
    retry_.expires_after(kAcceptRetry);
    retry_.async_wait([self = shared_from_this()](boost::system::error_code e) {
      if (!e) self->doAccept();
    });
    return;
  }
  if (context_.connections.load() >= context_.maxConnections) {
    SX_LOG_V(2) << "closing a new connection: " << context_.maxConnections
                << " connections open (--max-connections)";
    boost::system::error_code ignored;
    socket.close(ignored);
  } else {
    boost::system::error_code ignored;  // a peer already gone is logged as 0.0.0.0:0
    const tcp::endpoint peer = socket.remote_endpoint(ignored);
    // An answer larger than a TLS record, or streamed, leaves in several writes: with Nagle's
    // algorithm on, the last, short one would wait for the caller's delayed acknowledgement
    // of the one before (up to 40 ms on Linux). Go's servers and clients turn it off too.
    socket.set_option(tcp::no_delay(true), ignored);
    if (tls_ != nullptr) {
      std::make_shared<TlsSession>(boost::beast::tcp_stream(std::move(socket)), tls_->current(),
                                   context_, peer)
          ->run();
    } else {
      std::make_shared<PlainSession>(boost::beast::tcp_stream(std::move(socket)), context_, peer)
          ->run();
    }
  }
  doAccept();
}

}  // namespace server

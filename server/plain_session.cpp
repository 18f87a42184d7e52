#include "server/plain_session.hpp"

#include <boost/asio/dispatch.hpp>

namespace server {

PlainSession::PlainSession(boost::beast::tcp_stream&& stream, SessionContext& context,
                           boost::asio::ip::tcp::endpoint peer)
    : HttpSession(context, peer), stream_(std::move(stream)) {}

void PlainSession::run() {
  // Start on the connection's strand: the stream is only touched from there.
  boost::asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->doRead(); });
}

void PlainSession::doEof() {
  boost::beast::error_code ignored;
  stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
}

}  // namespace server

#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <memory>

#include "server/http_session.hpp"

namespace server {

// HTTP over plain TCP.
class PlainSession : public HttpSession<PlainSession>,
                     public std::enable_shared_from_this<PlainSession> {
 public:
  PlainSession(boost::beast::tcp_stream&& stream, SessionContext& context,
               boost::asio::ip::tcp::endpoint peer);

  void run();

  boost::beast::tcp_stream& stream() { return stream_; }
  void doEof();

 private:
  boost::beast::tcp_stream stream_;
};

}  // namespace server

#include "server/session.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "server/logging.hpp"

namespace server {

namespace beast = boost::beast;
namespace net = boost::asio;

Session::Session(net::ip::tcp::socket&& socket, SessionContext& context)
    : stream_(std::move(socket)), context_(context) {}

void Session::run() {
  // Start on the connection's strand: the stream is only touched from there.
  net::dispatch(stream_.get_executor(),
                beast::bind_front_handler(&Session::doRead, shared_from_this()));
}

void Session::doRead() {
  parser_.emplace();
  parser_->body_limit(context_.maxBodyBytes);
  // Room for whole 64 KB reads: with an empty buffer Beast reads 512 bytes at a time, which
  // turns a 50 MB NodeList into a hundred thousand reads.
  buffer_.reserve(kReadChunkBytes);
  stream_.expires_after(context_.idleTimeout);
  http::async_read_header(stream_, buffer_, *parser_,
                          beast::bind_front_handler(&Session::onReadHeader, shared_from_this()));
}

void Session::onReadHeader(beast::error_code ec, std::size_t bytes) {
  if (ec) return onRead(ec, bytes);
  // curl sends `Expect: 100-continue` with large bodies and waits a second for the go-ahead.
  if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
    auto proceed = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
    return http::async_write(
        stream_, *proceed, [self = shared_from_this(), proceed](beast::error_code e, std::size_t) {
          if (e) return self->onRead(e, 0);
          self->readBody();
        });
  }
  readBody();
}

void Session::readBody() {
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&Session::onRead, shared_from_this()));
}

void Session::onRead(beast::error_code ec, std::size_t) {
  if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
      ec == net::error::operation_aborted || ec == net::error::connection_reset ||
      ec == net::error::eof) {
    return doClose();
  }
  if (ec == http::error::body_limit) {
    return send(errorResponse(http::status::payload_too_large,
                              "request body exceeds --max-body-bytes (" +
                                  std::to_string(context_.maxBodyBytes) + " bytes)",
                              11, false));
  }
  if (ec == http::error::header_limit) {
    return send(errorResponse(http::status::request_header_fields_too_large,
                              "request headers too large", 11, false));
  }
  if (ec) {
    // Malformed HTTP: answer once, then close, since the stream's framing is lost.
    return send(errorResponse(http::status::bad_request, "malformed HTTP request: " + ec.message(),
                              11, false));
  }
  context_.requestsInFlight.fetch_add(1);
  requestCounted_ = true;
  dispatch(parser_->release());
}

void Session::dispatch(Request request) {
  if (!Router::runsFramework(request)) return send(context_.router.handle(request));

  if (context_.computeInFlight.fetch_add(1) >= context_.maxComputeInFlight) {
    context_.computeInFlight.fetch_sub(1);
    auto response =
        errorResponse(http::status::service_unavailable, "too many requests in flight, retry",
                      request.version(), request.keep_alive());
    response.set(http::field::retry_after, "1");
    return send(std::move(response));
  }
  // The framework's CPU work runs on the compute pool so that the I/O threads keep
  // accepting, reading and answering health checks; the answer comes back to the strand.
  net::post(context_.compute, [self = shared_from_this(), request = std::move(request)]() {
    Response response = self->context_.router.handle(request);
    self->context_.computeInFlight.fetch_sub(1);
    net::post(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
      self->send(std::move(response));
    });
  });
}

void Session::send(Response response) {
  if (context_.draining.load()) response.keep_alive(false);
  const bool keepAlive = response.keep_alive();
  stream_.expires_after(context_.idleTimeout);
  beast::async_write(stream_, http::message_generator(std::move(response)),
                     beast::bind_front_handler(&Session::onWrite, shared_from_this(), keepAlive));
}

void Session::onWrite(bool keepAlive, beast::error_code ec, std::size_t) {
  if (requestCounted_) {
    requestCounted_ = false;
    context_.requestsInFlight.fetch_sub(1);
  }
  if (ec) {
    SX_LOG_V(2) << "write failed: " << ec.message();
    return doClose();
  }
  if (!keepAlive) return doClose();
  doRead();
}

void Session::doClose() {
  beast::error_code ec;
  stream_.socket().shutdown(net::ip::tcp::socket::shutdown_send, ec);
}

}  // namespace server

#pragma once

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <optional>
#include <string>

#include "server/logging.hpp"
#include "server/session_context.hpp"
#include "server/streamed_args.hpp"

namespace server {

// One HTTP/1.1 connection, whatever carries it, as in Beast's advanced flex server: the
// plain and the TLS session derive from this (CRTP) and provide `stream()` and `doEof()`;
// `caller_` says who is at the other end. Each message gets a fresh parser with the body
// limit; framework requests run on the compute pool and the answer comes back to the
// connection's strand.
template <class Derived>
class HttpSession {
 protected:
  HttpSession(SessionContext& context, boost::asio::ip::tcp::endpoint peer) : context_(context) {
    context_.connections.fetch_add(1);
    caller_.address = peer;
  }
  ~HttpSession() { context_.connections.fetch_sub(1); }
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  void doRead() {
    parser_.emplace();
    streamed_.reset();
    parser_->body_limit(context_.maxBodyBytes);
    // Room for whole 64 KB reads: with an empty buffer Beast reads 512 bytes at a time,
    // which turns a 50 MB NodeList into a hundred thousand reads.
    buffer_.reserve(kReadChunkBytes);
    if (buffer_.size() > 0) return readHeader();  // a pipelined request is already here
    // Idle until the first byte, so the header clock starts only when a request does.
    boost::beast::get_lowest_layer(derived().stream()).expires_after(context_.idleTimeout);
    derived().stream().async_read_some(
        buffer_.prepare(kReadChunkBytes),
        [self = derived().shared_from_this()](boost::beast::error_code ec, std::size_t n) {
          if (ec) return self->onRead(ec);
          self->buffer_.commit(n);
          self->readHeader();
        });
  }

  SessionContext& context_;
  boost::beast::flat_buffer buffer_;
  Caller caller_;  // the TLS session adds the client certificate after its handshake

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }

  void readHeader() {
    boost::beast::get_lowest_layer(derived().stream()).expires_after(context_.headerTimeout);
    http::async_read_header(
        derived().stream(), buffer_, *parser_,
        [self = derived().shared_from_this()](boost::beast::error_code ec, std::size_t) {
          self->onReadHeader(ec);
        });
  }

  void onReadHeader(boost::beast::error_code ec) {
    if (ec) return onRead(ec);
    // curl sends `Expect: 100-continue` with large bodies and waits a second for the go-ahead.
    if (boost::beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      auto proceed =
          std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      return http::async_write(
          derived().stream(), *proceed,
          [self = derived().shared_from_this(), proceed](boost::beast::error_code e, std::size_t) {
            if (e) return self->onRead(e);
            self->readBody();
          });
    }
    readBody();
  }

  void readBody() {
    boost::beast::get_lowest_layer(derived().stream()).expires_after(context_.bodyTimeout);
    const auto length = parser_->content_length();
    if (length && *length >= kDirectReadBytes && !parser_->chunked()) {
      return readBodyDirectly(static_cast<std::size_t>(*length));
    }
    http::async_read(derived().stream(), buffer_, *parser_,
                     [self = derived().shared_from_this()](boost::beast::error_code ec,
                                                           std::size_t) { self->onRead(ec); });
  }

  // A large body of known length goes from the socket straight into its final string, in
  // reads as large as the kernel has ready, rather than through the parser's 64 KB steps:
  // a 52 MB NodeList is 800 such steps, most of a request's time. The parser already checked
  // the length against --max-body-bytes when it read the header.
  void readBodyDirectly(std::size_t length) {
    namespace net = boost::asio;
    auto body = std::make_shared<std::string>(context_.bodyBuffers->take(length));
    const std::size_t buffered = std::min(buffer_.size(), length);
    net::buffer_copy(net::buffer(body->data(), buffered), buffer_.data());
    buffer_.consume(buffered);
    if (context_.router.decodesExtenderArgs(parser_->get(), caller_)) {
      streamed_ = std::make_shared<StreamedArgs>(context_.compute, body);
      return readBodyStreaming(std::move(body), buffered);
    }
    net::async_read(
        derived().stream(), net::buffer(body->data() + buffered, length - buffered),
        [self = derived().shared_from_this(), body](boost::beast::error_code ec, std::size_t) {
          if (ec) return self->onRead(ec);
          self->acceptBody(*body);
        });
  }

  // An ExtenderArgs body is read in steps as large as the kernel has ready (up to 1 MB), and
  // the Nodes items each step completes are decoded on the compute pool meanwhile
  // (StreamedArgs): that work overlaps the transfer instead of following it.
  void readBodyStreaming(std::shared_ptr<std::string> body, std::size_t received) {
    namespace net = boost::asio;
    if (received == body->size()) {
      streamed_->stop();
      return acceptBody(*body);
    }
    if (received > 0) streamed_->arrived(received);
    derived().stream().async_read_some(
        net::buffer(body->data() + received, std::min(kStreamedReadBytes, body->size() - received)),
        [self = derived().shared_from_this(), body, received](boost::beast::error_code ec,
                                                              std::size_t n) mutable {
          if (ec) return self->onRead(ec);
          self->readBodyStreaming(std::move(body), received + n);
        });
  }

  // The string keeps its buffer when moved, so what the stream decoder points into stays put.
  void acceptBody(std::string& body) {
    Request request = parser_->release();
    request.body() = std::move(body);
    accept(std::move(request));
  }

  void onRead(boost::beast::error_code ec) {
    namespace net = boost::asio;
    if (ec == http::error::end_of_stream || ec == boost::beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset ||
        ec == net::error::eof || ec == net::ssl::error::stream_truncated) {
      return derived().doEof();
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
      return send(errorResponse(http::status::bad_request,
                                "malformed HTTP request: " + ec.message(), 11, false));
    }
    accept(parser_->release());
  }

  // A whole request has been read: from here on the drain waits for its answer.
  void accept(Request request) {
    context_.requestsInFlight.fetch_add(1);
    requestCounted_ = true;
    dispatch(std::move(request));
  }

  void dispatch(Request request) {
    // The body goes back to the buffers once nobody reads the request any more.
    std::shared_ptr<Request> owned(new Request(std::move(request)),
                                   [buffers = context_.bodyBuffers](Request* done) {
                                     buffers->giveBack(std::move(done->body()));
                                     delete done;
                                   });
    std::shared_ptr<const Request> shared = std::move(owned);
    // Answers come back to this connection's strand, from whichever thread produced them.
    auto respond = [self = derived().shared_from_this()](Response response) {
      auto& stream = self->stream();
      boost::asio::post(stream.get_executor(), [self, response = std::move(response)]() mutable {
        self->send(std::move(response));
      });
    };
    if (!Router::runsFramework(*shared)) {
      return context_.router.handle(std::move(shared), caller_, nullptr, std::move(respond));
    }

    if (context_.computeInFlight.fetch_add(1) >= context_.maxComputeInFlight) {
      context_.computeInFlight.fetch_sub(1);
      return send(errorResponse(http::status::service_unavailable,
                                "too many requests in flight, retry", shared->version(),
                                shared->keep_alive()));
    }
    const bool small = shared->body().size() < kDirectReadBytes;
    // A request held for a pod in flight keeps its place in computeInFlight until answered,
    // which bounds how many are held.
    auto run = [self = derived().shared_from_this(), request = std::move(shared),
                streamed = std::move(streamed_), respond = std::move(respond)]() mutable {
      self->context_.router.handle(std::move(request), self->caller_, std::move(streamed),
                                   [self, respond = std::move(respond)](Response response) {
                                     self->context_.computeInFlight.fetch_sub(1);
                                     respond(std::move(response));
                                   });
    };
    // A large body's work runs on the compute pool, so that the I/O threads keep accepting,
    // reading and answering health checks meanwhile. A small one (NodeNames: a millisecond
    // or two of work at 5,000 nodes) runs here: handing it to the pool and its answer back
    // cost two thread wake-ups, a third of S2's /prioritize.
    if (small) return run();
    boost::asio::post(context_.compute, std::move(run));
  }

  void send(Response response) {
    if (context_.draining.load()) response.keep_alive(false);
    const bool keepAlive = response.keep_alive();
    boost::beast::get_lowest_layer(derived().stream()).expires_after(context_.idleTimeout);
    boost::beast::async_write(
        derived().stream(), http::message_generator(std::move(response)),
        [self = derived().shared_from_this(), keepAlive](boost::beast::error_code ec, std::size_t) {
          self->onWrite(keepAlive, ec);
        });
  }

  void onWrite(bool keepAlive, boost::beast::error_code ec) {
    if (requestCounted_) {
      requestCounted_ = false;
      context_.requestsInFlight.fetch_sub(1);
    }
    if (ec) {
      SX_LOG_V(2) << "write failed: " << ec.message();
      return derived().doEof();
    }
    if (!keepAlive) return derived().doEof();
    doRead();
  }

  std::optional<http::request_parser<http::string_body>> parser_;
  // The ExtenderArgs of the body being read, decoded as it arrives (readBodyStreaming).
  std::shared_ptr<StreamedArgs> streamed_;
  bool requestCounted_ = false;  // a request read is awaiting its answer (for the drain)
};

}  // namespace server

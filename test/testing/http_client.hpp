#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace testing {

struct HttpReply {
  unsigned status = 0;
  std::string body;
  boost::beast::http::fields headers;
};

// A blocking HTTP/1.1 client on one keep-alive connection to 127.0.0.1, for tests.
class HttpClient {
 public:
  explicit HttpClient(std::uint16_t port);

  HttpReply get(std::string_view target);
  HttpReply post(std::string_view target, std::string body);
  HttpReply send(boost::beast::http::request<boost::beast::http::string_body> request);
  // post() in two halves, for a test that must know the request is on its way before it
  // does the next thing: writePost() returns once the request is written, readReply() reads
  // the answer.
  void writePost(std::string_view target, std::string body);
  HttpReply readReply();
  // Writes bytes as they are (malformed requests) and reads one response.
  HttpReply raw(std::string_view bytes);
  // The same, written `pieceBytes` at a time with Nagle's algorithm off, so that a large body
  // reaches the server in many reads.
  HttpReply rawInPieces(std::string_view bytes, std::size_t pieceBytes);
  // True when the server closed the connection (a read sees end of stream).
  bool closedByServer();
  // The port of this client's end of the connection.
  std::uint16_t localPort() const;

 private:
  HttpReply read();

  boost::asio::io_context ioc_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
};

// The text of a file under the source tree, e.g. readSourceFile("examples/config.yaml").
std::string readSourceFile(std::string_view relativePath);
// Writes `text` to /tmp/sx-test-<pid>-<name> and returns that path.
std::string writeTempFile(const std::string& name, const std::string& text);

}  // namespace testing

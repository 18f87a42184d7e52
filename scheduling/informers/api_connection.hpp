#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduling/informers/client_config.hpp"
#include "scheduling/informers/token_source.hpp"

namespace scheduling::informers {

namespace http = boost::beast::http;

// The TLS client context for `config`: the server verified against its CA (or the system's
// trust store) unless insecure-skip-tls-verify, and the client certificate when there is
// one. Throws std::runtime_error when a certificate or key does not load.
std::shared_ptr<boost::asio::ssl::context> makeClientTlsContext(const ClientConfig& config);

// One HTTP/1.1 keep-alive connection to the API server, opened on first use and again after
// it closed. Requests carry the bearer token; with https the server's certificate is
// verified for tls-server-name (or the host). Operations are coroutines on the executor
// given; they throw boost::system::system_error (beast::error::timeout when a deadline
// passed) and leave the connection closed after any failure.
class ApiConnection {
 public:
  ApiConnection(boost::asio::any_io_executor executor, const ClientConfig& config,
                std::shared_ptr<boost::asio::ssl::context> tls, TokenSource& tokens);
  ~ApiConnection();
  ApiConnection(const ApiConnection&) = delete;
  ApiConnection& operator=(const ApiConnection&) = delete;

  // GET `target` (path and query, below the server URL's path) and read the answer's header
  // within `timeout`; the body is then read piece by piece with readSome, so that neither a
  // watch nor a list of any size is held whole. A request on a kept-alive connection that
  // the server had meanwhile closed is retried once on a new connection. A 401 makes the
  // token source read its file again.
  boost::asio::awaitable<http::status> get(std::string target, std::chrono::seconds timeout);

  // POST a JSON `body` to `target` and read the answer's header within `timeout`; its body
  // follows with readSome. A POST is not repeated once it may have reached the server (as
  // Go's http.Transport, only when nothing was written), so a connection idle for longer
  // than kMaxIdleReuse, which the server may have closed meanwhile, is replaced first.
  boost::asio::awaitable<http::status> post(const std::string& target, const std::string& body,
                                            std::chrono::seconds timeout);
  static constexpr std::chrono::seconds kMaxIdleReuse{15};

  // Appends the next bytes of the answer's body to `out` (possibly none, after a chunk
  // header). Returns false once the body has ended (what this call appended still counts).
  // Fails with beast::error::timeout when nothing arrived within `idle`: a stalled stream.
  boost::asio::awaitable<bool> readSome(std::string& out, std::chrono::seconds idle);

  // Bytes that have arrived on the connection and that readSome has not handed out yet: the
  // kernel's receive queue (still encrypted, with TLS) and the HTTP parser's buffer. How far
  // behind the reader is; 0 when the connection is closed.
  std::size_t unreadBytes();

  // Closes the connection now, from any handler on the executor: a pending operation fails
  // with operation_aborted (or ends with what had already arrived), and the next read fails.
  void close();

  const boost::asio::any_io_executor& executor() const { return executor_; }

 private:
  boost::asio::awaitable<void> connect(std::chrono::seconds timeout);
  boost::asio::awaitable<void> send(http::verb method, const std::string& target,
                                    const std::string& body, std::chrono::seconds timeout);
  boost::asio::awaitable<http::status> readHeader();
  boost::beast::tcp_stream& tcp();

  boost::asio::any_io_executor executor_;
  const ClientConfig& config_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  TokenSource& tokens_;

  std::optional<boost::beast::tcp_stream> plain_;
  std::optional<boost::beast::ssl_stream<boost::beast::tcp_stream>> secure_;
  bool open_ = false;
  std::chrono::steady_clock::time_point lastUsed_{};  // when the last answer began
  boost::beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::buffer_body>> answer_;  // the answer being read
  std::vector<char> chunk_;  // readSome's buffer, kept between reads
};

}  // namespace scheduling::informers

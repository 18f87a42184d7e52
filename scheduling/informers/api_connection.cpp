#include "scheduling/informers/api_connection.hpp"

#include <openssl/ssl.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <stdexcept>

namespace scheduling::informers {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace ssl = net::ssl;
using net::use_awaitable;

namespace {

// What one read of an answer's body takes at most.
constexpr std::size_t kReadChunkBytes = 64u << 10;
// What one read from the socket asks for. Beast reads as much as the buffer has room for
// (at least 512 bytes, at most 64 KiB) and the buffer only grows when a header outgrows it,
// so an unreserved buffer read a list of a million pods 512 bytes at a time: a syscall, an
// epoll wait and a parse step per 512 bytes, a third of the informers' CPU in the kernel.
constexpr std::size_t kSocketReadBytes = 64u << 10;

bool isIpAddress(const std::string& host) {
  boost::system::error_code ec;
  net::ip::make_address(host, ec);
  return !ec;
}

// Starts `op` on whichever stream the connection uses and returns its awaitable.
template <typename Op>
auto onStream(std::optional<beast::tcp_stream>& plain,
              std::optional<beast::ssl_stream<beast::tcp_stream>>& secure, Op&& op) {
  return secure ? op(*secure) : op(*plain);
}

}  // namespace

std::shared_ptr<ssl::context> makeClientTlsContext(const ClientConfig& config) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  try {
    if (config.insecureSkipTlsVerify) {
      context->set_verify_mode(ssl::verify_none);
    } else {
      context->set_verify_mode(ssl::verify_peer);
      if (config.caPem.empty()) {
        context->set_default_verify_paths();
      } else {
        context->add_certificate_authority(net::buffer(config.caPem));
      }
    }
    if (!config.clientCertPem.empty()) {
      context->use_certificate_chain(net::buffer(config.clientCertPem));
      context->use_private_key(net::buffer(config.clientKeyPem), ssl::context::pem);
    }
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error(config.origin + ": TLS: " + e.code().message());
  }
  return context;
}

ApiConnection::ApiConnection(net::any_io_executor executor, const ClientConfig& config,
                             std::shared_ptr<ssl::context> tls, TokenSource& tokens)
    : executor_(std::move(executor)), config_(config), tls_(std::move(tls)), tokens_(tokens) {}

ApiConnection::~ApiConnection() = default;

beast::tcp_stream& ApiConnection::tcp() { return secure_ ? secure_->next_layer() : *plain_; }

void ApiConnection::close() {
  if (plain_ || secure_) {
    boost::system::error_code ignored;
    tcp().socket().close(ignored);
  }
  open_ = false;
  // The parser stays: a read in progress refers to it until its handler has run, which may
  // still feed it bytes received before the close. send() drops it with the next request.
}

net::awaitable<void> ApiConnection::connect(std::chrono::seconds timeout) {
  close();
  plain_.reset();
  secure_.reset();
  buffer_.clear();
  buffer_.reserve(kSocketReadBytes);
  net::ip::tcp::resolver resolver(executor_);
  const auto endpoints = co_await resolver.async_resolve(config_.host, config_.port, use_awaitable);
  if (config_.https) {
    secure_.emplace(executor_, *tls_);
  } else {
    plain_.emplace(executor_);
  }
  tcp().expires_after(timeout);
  co_await tcp().async_connect(endpoints, use_awaitable);
  // Nagle's algorithm off, as on client-go's connections (Go's default): a request that leaves
  // in more than one write is never held back for the API server's delayed acknowledgement.
  beast::error_code ignored;
  tcp().socket().set_option(net::ip::tcp::no_delay(true), ignored);
  if (secure_) {
    const std::string& serverName =
        config_.tlsServerName.empty() ? config_.host : config_.tlsServerName;
    // SNI carries names only; certificates for an IP address are checked against its SANs.
    if (!isIpAddress(serverName) &&
        !SSL_set_tlsext_host_name(secure_->native_handle(), serverName.c_str())) {
      throw boost::system::system_error(
          beast::error_code(static_cast<int>(::ERR_get_error()), net::error::get_ssl_category()));
    }
    if (!config_.insecureSkipTlsVerify) {
      secure_->set_verify_callback(ssl::host_name_verification(serverName));
    }
    co_await secure_->async_handshake(ssl::stream_base::client, use_awaitable);
  }
  open_ = true;
}

net::awaitable<void> ApiConnection::send(http::verb method, const std::string& target,
                                         const std::string& body, std::chrono::seconds timeout) {
  // An answer not read to its end (a watch given up on, a list that failed to decode) leaves
  // the connection mid-body: only a new connection can carry the next request.
  if (answer_) close();
  answer_.reset();
  if (!open_) co_await connect(timeout);
  http::request<http::string_body> request{method, config_.basePath + target, 11};
  request.set(http::field::host, config_.host);
  request.set(http::field::user_agent, "scheduler-extender");
  request.set(http::field::accept, "application/json");
  if (const std::string token = tokens_.token(); !token.empty()) {
    request.set(http::field::authorization, "Bearer " + token);
  }
  if (method != http::verb::get) {
    request.set(http::field::content_type, "application/json");
    request.body() = body;
    request.prepare_payload();
  }
  request.keep_alive(true);
  tcp().expires_after(timeout);
  co_await onStream(plain_, secure_, [&](auto& stream) {
    return http::async_write(stream, request, use_awaitable);
  });
}

net::awaitable<http::status> ApiConnection::readHeader() {
  answer_.emplace();
  answer_->body_limit(boost::none);  // a watch runs for minutes; a list is read in pieces
  co_await onStream(plain_, secure_, [&](auto& stream) {
    return http::async_read_header(stream, buffer_, *answer_, use_awaitable);
  });
  lastUsed_ = std::chrono::steady_clock::now();
  const auto status = answer_->get().result();
  // A rotated service-account token: read the file again rather than wait for the periodic
  // refresh.
  if (status == http::status::unauthorized) tokens_.expire();
  co_return status;
}

net::awaitable<http::status> ApiConnection::get(std::string target, std::chrono::seconds timeout) {
  const std::string noBody;  // named: GCC 12 destroys a temporary in a co_await operand twice
  for (int attempt = 0;; ++attempt) {
    const bool reused = open_;
    try {
      co_await send(http::verb::get, target, noBody, timeout);
      co_return co_await readHeader();
    } catch (const boost::system::system_error&) {
      close();
      // The server may close an idle kept-alive connection just as we use it.
      if (!reused || attempt > 0) throw;
    }
  }
}

net::awaitable<http::status> ApiConnection::post(const std::string& target, const std::string& body,
                                                 std::chrono::seconds timeout) {
  if (open_ && std::chrono::steady_clock::now() - lastUsed_ > kMaxIdleReuse) close();
  try {
    co_await send(http::verb::post, target, body, timeout);
    co_return co_await readHeader();
  } catch (const boost::system::system_error&) {
    close();
    throw;
  }
}

net::awaitable<bool> ApiConnection::readSome(std::string& out, std::chrono::seconds idle) {
  if (!answer_ || answer_->is_done()) co_return false;
  chunk_.resize(kReadChunkBytes);
  auto& body = answer_->get().body();
  body.data = chunk_.data();
  body.size = chunk_.size();
  tcp().expires_after(idle);
  beast::error_code ec;
  co_await onStream(plain_, secure_, [&](auto& stream) {
    return http::async_read_some(stream, buffer_, *answer_, net::redirect_error(use_awaitable, ec));
  });
  if (ec == http::error::need_buffer) ec = {};
  // One read_some parses one element: a chunked list that kube-apiserver (or a proxy) sends
  // in small chunks would cost an asynchronous round trip per chunk. Parse what the buffer
  // already holds as well, never waiting for more bytes: a watch event must reach the cache
  // as soon as its bytes are here.
  while (!ec && body.size > 0 && buffer_.size() > 0 && !answer_->is_done()) {
    const std::size_t used = answer_->put(buffer_.data(), ec);
    buffer_.consume(used);
    if (ec == http::error::need_more || ec == http::error::need_buffer) {
      ec = {};
      break;
    }
    if (used == 0) break;
  }
  if (ec) {
    close();
    throw boost::system::system_error(ec);
  }
  out.append(chunk_.data(), chunk_.size() - body.size);
  if (!answer_->is_done()) co_return true;
  if (!answer_->keep_alive()) close();
  answer_.reset();
  co_return false;
}

std::size_t ApiConnection::unreadBytes() {
  if (!open_) return 0;
  boost::system::error_code ec;
  const std::size_t queued = tcp().socket().available(ec);
  return buffer_.size() + (ec ? 0 : queued);
}

}  // namespace scheduling::informers

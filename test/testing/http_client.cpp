#include "test/testing/http_client.hpp"

#include <unistd.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace testing {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

HttpClient::HttpClient(std::uint16_t port) : stream_(ioc_) {
  stream_.connect(net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
}

std::uint16_t HttpClient::localPort() const { return stream_.socket().local_endpoint().port(); }

HttpReply HttpClient::get(std::string_view target) {
  http::request<http::string_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1");
  return send(std::move(request));
}

namespace {

http::request<http::string_body> postRequest(std::string_view target, std::string body) {
  http::request<http::string_body> request{http::verb::post, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::content_type, "application/json");
  request.body() = std::move(body);
  request.prepare_payload();
  return request;
}

}  // namespace

HttpReply HttpClient::post(std::string_view target, std::string body) {
  return send(postRequest(target, std::move(body)));
}

void HttpClient::writePost(std::string_view target, std::string body) {
  stream_.expires_after(std::chrono::seconds(30));
  http::write(stream_, postRequest(target, std::move(body)));
}

HttpReply HttpClient::readReply() {
  stream_.expires_after(std::chrono::seconds(30));
  return read();
}

HttpReply HttpClient::send(http::request<http::string_body> request) {
  stream_.expires_after(std::chrono::seconds(30));
  http::write(stream_, request);
  return read();
}

HttpReply HttpClient::raw(std::string_view bytes) {
  return rawInPieces(bytes, std::max<std::size_t>(bytes.size(), 1));
}

HttpReply HttpClient::rawInPieces(std::string_view bytes, std::size_t pieceBytes) {
  if (pieceBytes == 0) throw std::invalid_argument("rawInPieces: pieces of 0 bytes");
  stream_.expires_after(std::chrono::seconds(30));
  stream_.socket().set_option(net::ip::tcp::no_delay(true));
  for (std::size_t at = 0; at < bytes.size(); at += pieceBytes) {
    const std::string_view piece = bytes.substr(at, pieceBytes);
    net::write(stream_, net::buffer(piece.data(), piece.size()));
  }
  return read();
}

bool HttpClient::closedByServer() {
  stream_.expires_after(std::chrono::seconds(30));
  char byte;
  beast::error_code ec;
  stream_.read_some(net::buffer(&byte, 1), ec);
  return ec == net::error::eof || ec == net::error::connection_reset;
}

HttpReply HttpClient::read() {
  http::response_parser<http::string_body> parser;
  parser.body_limit(1u << 30);
  http::read(stream_, buffer_, parser);
  auto response = parser.release();
  HttpReply reply;
  reply.status = response.result_int();
  reply.body = std::move(response.body());
  reply.headers = response.base();
  return reply;
}

std::string readSourceFile(std::string_view relativePath) {
  const std::string path = std::string(SX_SOURCE_DIR) + "/" + std::string(relativePath);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string writeTempFile(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/sx-test-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace testing

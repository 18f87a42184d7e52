#include "scheduling/informers/api_connection.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/test/unit_test.hpp>
#include <exception>
#include <string>
#include <thread>

#include "scheduling/informers/token_source.hpp"

namespace net = boost::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(api_connection)

// unreadBytes is the backlog the informers report (scheduler_extender_watch_backlog_bytes):
// what the server has sent that readSome has not handed out. A server writes a body far
// larger than one read; after the first read the rest arrives while the client does not
// read, and must show; once the body has been read whole, nothing is left.
BOOST_AUTO_TEST_CASE(unread_bytes_are_what_arrived_and_was_not_read) {
  constexpr std::size_t kBody = 4u << 20;
  // Well under what the kernel queues for a client that does not read (tcp_rmem's default
  // receive buffer, 128 KiB on recent kernels, 85 KiB on older ones, does not grow then).
  constexpr std::size_t kWaiting = 32u << 10;
  net::io_context io;
  tcp::acceptor acceptor(io, {net::ip::make_address("127.0.0.1"), 0});
  std::thread server([&acceptor] {
    tcp::socket socket = acceptor.accept();
    net::streambuf request;
    net::read_until(socket, request, "\r\n\r\n");
    const std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
        std::to_string(kBody) + "\r\n\r\n";
    net::write(socket, net::buffer(head));
    net::write(socket, net::buffer(std::string(kBody, 'x')));
    boost::system::error_code ignored;
    net::read(socket, request, ignored);  // until the client closes
  });

  scheduling::informers::ClientConfig config;
  config.host = "127.0.0.1";
  config.port = std::to_string(acceptor.local_endpoint().port());
  config.https = false;
  scheduling::informers::TokenSource tokens(config);
  scheduling::informers::ApiConnection connection(io.get_executor(), config, nullptr, tokens);

  std::size_t afterFirstRead = 0, read = 0, afterLastRead = 0;
  std::exception_ptr failure;
  net::co_spawn(
      io,
      [&]() -> net::awaitable<void> {
        co_await connection.get("/api/v1/pods", 5s);
        std::string body;
        co_await connection.readSome(body, 5s);
        net::steady_timer timer(io);
        for (int i = 0; i < 500 && connection.unreadBytes() < kWaiting; ++i) {
          timer.expires_after(10ms);
          co_await timer.async_wait(net::use_awaitable);
        }
        afterFirstRead = connection.unreadBytes();
        while (co_await connection.readSome(body, 5s)) {
        }
        read = body.size();
        afterLastRead = connection.unreadBytes();
        connection.close();
      },
      [&](std::exception_ptr e) { failure = e; });
  io.run();
  server.join();
  if (failure) std::rethrow_exception(failure);

  BOOST_TEST(afterFirstRead >= kWaiting);
  BOOST_TEST(afterFirstRead <= kBody);
  BOOST_TEST(read == kBody);
  BOOST_TEST(afterLastRead == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

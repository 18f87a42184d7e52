#include "scheduling/informers/api_connection.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/test/unit_test.hpp>
#include <exception>
#include <future>
#include <string>
#include <thread>

#include "scheduling/informers/token_source.hpp"
#include "test/testing/sockets.hpp"

namespace net = boost::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(api_connection)

namespace {

// A client of `port` on `io`, as the informers make them.
struct Client {
  explicit Client(net::io_context& io, unsigned short port)
      : config(configFor(port)),
        tokens(config),
        connection(io.get_executor(), config, nullptr, tokens) {}

  static scheduling::informers::ClientConfig configFor(unsigned short port) {
    scheduling::informers::ClientConfig config;
    config.host = "127.0.0.1";
    config.port = std::to_string(port);
    config.https = false;
    return config;
  }

  scheduling::informers::ClientConfig config;
  scheduling::informers::TokenSource tokens;
  scheduling::informers::ApiConnection connection;
};

// Reads the request's head: what a server must do before it answers.
void readRequest(tcp::socket& socket) {
  net::streambuf request;
  net::read_until(socket, request, "\r\n\r\n");
}

constexpr std::string_view kChunkedHead =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";

std::string chunk(std::string_view data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + std::string(data) + "\r\n";
}

// Runs `client` on `io` to its end, joins `server` and rethrows what the client threw.
template <typename Coroutine>
void runClient(net::io_context& io, std::thread& server, Coroutine client) {
  std::exception_ptr failure;
  net::co_spawn(io, std::move(client), [&](std::exception_ptr e) { failure = e; });
  io.run();
  server.join();
  if (failure) std::rethrow_exception(failure);
}

// Waits (at most 5 s) until `bytes` have arrived that `connection` has not handed out.
net::awaitable<void> waitForUnread(scheduling::informers::ApiConnection& connection,
                                   std::size_t bytes) {
  net::steady_timer timer(co_await net::this_coro::executor);
  for (int i = 0; i < 500 && connection.unreadBytes() < bytes; ++i) {
    timer.expires_after(10ms);
    co_await timer.async_wait(net::use_awaitable);
  }
}

}  // namespace

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

  Client client(io, acceptor.local_endpoint().port());
  auto& connection = client.connection;

  std::size_t afterFirstRead = 0, read = 0, afterLastRead = 0;
  runClient(io, server, [&]() -> net::awaitable<void> {
    co_await connection.get("/api/v1/pods", 5s);
    std::string body;
    co_await connection.readSome(body, 5s);
    co_await waitForUnread(connection, kWaiting);
    afterFirstRead = connection.unreadBytes();
    while (co_await connection.readSome(body, 5s)) {
    }
    read = body.size();
    afterLastRead = connection.unreadBytes();
    connection.close();
  });

  BOOST_TEST(afterFirstRead >= kWaiting);
  BOOST_TEST(afterFirstRead <= kBody);
  BOOST_TEST(read == kBody);
  BOOST_TEST(afterLastRead == 0u);
}

// As client-go's connections: Nagle's algorithm off, so that a request written in more than
// one piece never waits for the API server's delayed acknowledgement of the first. The server
// here reads the option off the client's socket (this process's own) while it answers.
BOOST_AUTO_TEST_CASE(the_connection_turns_nagles_algorithm_off) {
  net::io_context io;
  tcp::acceptor acceptor(io, {net::ip::make_address("127.0.0.1"), 0});
  const std::uint16_t serverPort = acceptor.local_endpoint().port();
  std::optional<bool> noDelay;
  std::thread server([&] {
    tcp::socket socket = acceptor.accept();
    readRequest(socket);
    noDelay = testing::noDelayOfConnection(socket.remote_endpoint().port(), serverPort);
    net::write(socket,
               net::buffer(std::string("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                       "Content-Length: 2\r\n\r\n{}")));
    boost::system::error_code ignored;
    net::streambuf rest;
    net::read(socket, rest, ignored);  // until the client closes
  });

  Client client(io, serverPort);
  runClient(io, server, [&]() -> net::awaitable<void> {
    co_await client.connection.get("/api/v1/pods", 5s);
    std::string body;
    while (co_await client.connection.readSome(body, 5s)) {
    }
    client.connection.close();
  });

  BOOST_TEST_REQUIRE(noDelay.has_value(),
                     "no socket of this process is connected to the server's port " << serverPort);
  BOOST_TEST(*noDelay, "Nagle's algorithm is on (no TCP_NODELAY) on the ApiConnection's socket");
}

// kube-apiserver, or a proxy before it, may send a large list in small chunks. A read hands
// out everything that has arrived, not one chunk: a list of a million pods in 1 KiB chunks
// took an asynchronous round trip, a syscall and a wake-up per chunk.
BOOST_AUTO_TEST_CASE(a_read_hands_out_every_chunk_that_has_arrived) {
  constexpr std::size_t kChunks = 300;
  constexpr std::size_t kChunkBytes = 100;  // 30,000 bytes: well within one read's buffer
  net::io_context io;
  tcp::acceptor acceptor(io, {net::ip::make_address("127.0.0.1"), 0});
  std::string answer(kChunkedHead);
  std::string expected;
  for (std::size_t i = 0; i < kChunks; ++i) {
    const std::string data(kChunkBytes, static_cast<char>('a' + i % 26));
    answer += chunk(data);
    expected += data;
  }
  answer += "0\r\n\r\n";
  std::thread server([&] {
    tcp::socket socket = acceptor.accept();
    readRequest(socket);
    net::write(socket, net::buffer(answer));
    boost::system::error_code ignored;
    net::streambuf rest;
    net::read(socket, rest, ignored);  // until the client closes
  });

  Client client(io, acceptor.local_endpoint().port());
  auto& connection = client.connection;
  std::string body;
  int reads = 0;
  runClient(io, server, [&]() -> net::awaitable<void> {
    co_await connection.get("/api/v1/pods", 5s);
    // Let the whole answer arrive before the first read, so that what one read may take
    // does not depend on the scheduler.
    co_await waitForUnread(connection, answer.size() - kChunkedHead.size());
    for (bool more = true; more;) {
      more = co_await connection.readSome(body, 5s);
      ++reads;
    }
    connection.close();
  });

  BOOST_TEST(body == expected);
  // What the header's read took, then the rest: one chunk per read would be 300.
  BOOST_TEST(reads <= 3);
}

// Handing out what has arrived must never wait for what has not: a watch event whose chunk
// is followed by the start of the next chunk's header reaches the cache at once, not when
// the next event (or the idle timeout) completes that header.
BOOST_AUTO_TEST_CASE(a_read_does_not_wait_for_the_rest_of_a_chunk_header) {
  net::io_context io;
  tcp::acceptor acceptor(io, {net::ip::make_address("127.0.0.1"), 0});
  const std::string event = R"({"type":"ADDED","object":{}})";
  const std::string next = R"({"type":"DELETED","object":{}})";
  std::promise<void> eventRead;
  std::thread server([&] {
    tcp::socket socket = acceptor.accept();
    readRequest(socket);
    const std::string first = chunk(event);
    char nextSize[32];
    std::snprintf(nextSize, sizeof nextSize, "%zx", next.size());
    // The event's chunk and the first byte of the next chunk's size, then nothing until the
    // client has the event.
    net::write(socket, net::buffer(std::string(kChunkedHead) + first + nextSize[0]));
    eventRead.get_future().wait_for(10s);
    net::write(socket, net::buffer(std::string(nextSize + 1) + "\r\n" + next + "\r\n0\r\n\r\n"));
    boost::system::error_code ignored;
    net::streambuf rest;
    net::read(socket, rest, ignored);
  });

  Client client(io, acceptor.local_endpoint().port());
  auto& connection = client.connection;
  std::string firstRead, all;
  runClient(io, server, [&]() -> net::awaitable<void> {
    co_await connection.get("/api/v1/pods?watch=true", 5s);
    // A read may end on the chunk's header alone: read until the event is whole.
    while (firstRead.size() < event.size() && co_await connection.readSome(firstRead, 2s)) {
    }
    eventRead.set_value();
    all = firstRead;
    while (co_await connection.readSome(all, 5s)) {
    }
    connection.close();
  });

  BOOST_TEST(firstRead == event);
  BOOST_TEST(all == event + next);
}

BOOST_AUTO_TEST_SUITE_END()

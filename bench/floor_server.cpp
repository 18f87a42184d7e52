// The floor under a request: an HTTP/1.1 server that reads each request's body and answers
// with a canned body, nothing else. Measured with the kit's latency.py like an extender, it
// gives what moving the bytes in and out costs on this machine (client, loopback, kernel),
// which no extender can go below.
//
//   floor_server PORT ANSWER_FILE     (the answer: e.g. the expected /filter response)
//
// One connection at a time, keep-alive, Content-Length bodies only: a measuring tool, not a
// server.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace {

bool writeAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Serves one connection until the client closes it.
void serve(int fd, const std::string& answer) {
  std::string buffer;
  std::string body;
  buffer.reserve(1 << 16);
  char chunk[1 << 16];
  for (;;) {
    std::size_t headerEnd;
    while ((headerEnd = buffer.find("\r\n\r\n")) == std::string::npos) {
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n <= 0) return;
      buffer.append(chunk, static_cast<std::size_t>(n));
    }
    std::size_t length = 0;
    const std::string_view header(buffer.data(), headerEnd);
    for (const char* name : {"Content-Length: ", "content-length: "}) {
      if (const auto at = header.find(name); at != std::string_view::npos) {
        length = std::strtoull(header.data() + at + std::strlen(name), nullptr, 10);
      }
    }
    const std::size_t have = buffer.size() - headerEnd - 4;
    body.assign(buffer, headerEnd + 4, std::min(have, length));
    buffer.erase(0, headerEnd + 4 + std::min(have, length));
    body.resize(length);
    std::size_t got = std::min(have, length);
    while (got < length) {
      const ssize_t n = ::read(fd, body.data() + got, length - got);
      if (n <= 0) return;
      got += static_cast<std::size_t>(n);
    }
    if (header.starts_with("GET")) {
      const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
      if (!writeAll(fd, ok.data(), ok.size())) return;
      continue;
    }
    const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                             std::to_string(answer.size()) + "\r\n\r\n";
    if (!writeAll(fd, head.data(), head.size()) || !writeAll(fd, answer.data(), answer.size())) {
      return;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: floor_server PORT ANSWER_FILE\n");
    return 2;
  }
  std::ifstream in(argv[2], std::ios::binary);
  const std::string answer((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(std::atoi(argv[1])));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener, 16) != 0) {
    std::perror("floor_server");
    return 1;
  }
  for (;;) {
    const int fd = ::accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    serve(fd, answer);
    ::close(fd);
  }
}

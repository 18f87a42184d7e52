#pragma once

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstdlib>
#include <optional>

namespace testing {

// Whether Nagle's algorithm is off (TCP_NODELAY) on this process's IPv4 TCP socket whose own
// port is `localPort` and whose peer's is `peerPort`: how a test sees the option on a socket
// that the code under test owns, since the option never shows on the wire. Nothing when no
// such socket is open.
inline std::optional<bool> noDelayOfConnection(std::uint16_t localPort, std::uint16_t peerPort) {
  DIR* fds = ::opendir("/proc/self/fd");
  if (fds == nullptr) return std::nullopt;
  std::optional<bool> found;
  const auto portOf = [](const sockaddr_in& address) { return ntohs(address.sin_port); };
  while (const dirent* entry = ::readdir(fds)) {
    const int fd = std::atoi(entry->d_name);
    sockaddr_in local{}, peer{};
    socklen_t localSize = sizeof local, peerSize = sizeof peer;
    if (entry->d_name[0] == '.' ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &localSize) != 0 ||
        local.sin_family != AF_INET ||
        ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peerSize) != 0 ||
        portOf(local) != localPort || portOf(peer) != peerPort) {
      continue;
    }
    int noDelay = 0;
    socklen_t size = sizeof noDelay;
    if (::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &noDelay, &size) == 0) found = noDelay != 0;
  }
  ::closedir(fds);
  return found;
}

}  // namespace testing

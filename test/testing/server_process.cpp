#include "test/testing/server_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace testing {
namespace {

// A null-terminated array of the strings, as execve takes argv and envp.
std::vector<char*> pointersTo(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& string : strings) pointers.push_back(string.data());
  pointers.push_back(nullptr);
  return pointers;
}

// Forks `program` with stdout and stderr on pipes; a program that cannot be run exits 127.
// The arrays are built before fork(): the child of a threaded process may not allocate.
pid_t spawn(const std::string& program, std::vector<std::string> args, int* stdoutFd, int* stderrFd,
            std::optional<std::vector<std::string>> environment = std::nullopt) {
  args.insert(args.begin(), program);
  const auto argv = pointersTo(args);
  const auto envp = environment ? pointersTo(*environment) : std::vector<char*>{};
  int outPipe[2], errPipe[2];
  if (pipe(outPipe) != 0 || pipe(errPipe) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(outPipe[1], STDOUT_FILENO);
    dup2(errPipe[1], STDERR_FILENO);
    close(outPipe[0]);
    close(errPipe[0]);
    execve(argv[0], argv.data(), environment ? envp.data() : environ);
    _exit(127);
  }
  close(outPipe[1]);
  close(errPipe[1]);
  *stdoutFd = outPipe[0];
  *stderrFd = errPipe[0];
  return pid;
}

// Reads what is available on fd into out; false at end of file.
bool drainInto(int fd, std::string& out) {
  char buffer[4096];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n <= 0) return false;
  out.append(buffer, static_cast<std::size_t>(n));
  return true;
}

int exitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1;
}

}  // namespace

ProcessResult runProgram(const std::string& program, const std::vector<std::string>& args,
                         const std::optional<std::vector<std::string>>& environment) {
  int outFd = -1, errFd = -1;
  const pid_t pid = spawn(program, args, &outFd, &errFd, environment);
  ProcessResult result;
  pollfd fds[2] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}};
  int open = 2;
  while (open > 0) {
    poll(fds, 2, -1);
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP)) != 0) {
        if (!drainInto(fds[i].fd, i == 0 ? result.out : result.err)) {
          close(fds[i].fd);
          fds[i].fd = -1;
          --open;
        }
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exitCode = exitCodeOf(status);
  return result;
}

ProcessResult runBinary(const std::vector<std::string>& args) {
  return runProgram(SX_BINARY, args);
}

ServerProcess::ServerProcess(std::vector<std::string> args, const std::string& marker) {
  args.insert(args.end(), {"--listen", "127.0.0.1:0"});
  int outFd = -1;
  pid_ = spawn(SX_BINARY, std::move(args), &outFd, &stderrFd_);
  close(outFd);
  readLogUntil(marker);
  const std::string address = "://127.0.0.1:";
  const auto at = log_.find(address);
  if (at == std::string::npos) throw std::runtime_error("no listen line in log:\n" + log_);
  port_ = static_cast<std::uint16_t>(std::stoi(log_.substr(at + address.size())));
  // "serving on http://127.0.0.1:P for the scheduling verbs and http://127.0.0.1:Q for ..."
  const auto second = log_.find(address, at + address.size());
  const auto line = log_.find('\n', at);
  if (second != std::string::npos && second < line) {
    metricsPort_ = static_cast<std::uint16_t>(std::stoi(log_.substr(second + address.size())));
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) stop(SIGKILL);
}

void ServerProcess::readLogUntil(const std::string& marker) {
  // Start-up of the example cluster takes milliseconds; the bound only catches a hang.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (log_.find(marker) == std::string::npos) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("server never logged \"" + marker + "\":\n" + log_);
    }
    pollfd fd{stderrFd_, POLLIN, 0};
    if (poll(&fd, 1, 1000) > 0 && !drainInto(stderrFd_, log_)) {
      throw std::runtime_error("server exited during start-up:\n" + log_);
    }
  }
}

int ServerProcess::stop(int signal) {
  kill(pid_, signal);
  while (drainInto(stderrFd_, log_)) {
  }
  close(stderrFd_);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return exitCodeOf(status);
}

}  // namespace testing

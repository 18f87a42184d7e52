#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace testing {

struct ProcessResult {
  int exitCode = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `program` to completion with these arguments, reading its stdout and stderr together
// so that neither pipe fills up. The exit code is -signal when a signal ended it. With
// `environment` ("NAME=value" each), that is the program's whole environment; without, it
// inherits this process's.
ProcessResult runProgram(const std::string& program, const std::vector<std::string>& args,
                         const std::optional<std::vector<std::string>>& environment = std::nullopt);
// The same for the built scheduler-extender binary.
ProcessResult runBinary(const std::vector<std::string>& args);

// The real binary serving on 127.0.0.1 with a port the kernel picked: started with
// `--listen 127.0.0.1:0`, it is usable once its log says "ready" (the port comes from the
// "serving on" line, and so does the second listener's when `args` asks for one with
// `--metrics-listen 127.0.0.1:0`). The destructor kills it if stop() was not called.
class ServerProcess {
 public:
  // Returns once the log shows `marker`: by default readiness; "serving on" to see the
  // server before its cache is synced.
  explicit ServerProcess(std::vector<std::string> args, const std::string& marker = "] ready");
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  std::uint16_t port() const { return port_; }
  std::uint16_t metricsPort() const { return metricsPort_; }  // 0 without --metrics-listen
  pid_t pid() const { return pid_; }                          // for /proc readings in benchmarks
  // Sends `signal` and waits for the exit; returns the exit code (-signal when killed).
  int stop(int signal);
  // Everything the server wrote to stderr up to now (complete after stop()).
  const std::string& log() const { return log_; }

 private:
  void readLogUntil(const std::string& marker);

  pid_t pid_ = -1;
  int stderrFd_ = -1;
  std::uint16_t port_ = 0;
  std::uint16_t metricsPort_ = 0;
  std::string log_;
};

}  // namespace testing

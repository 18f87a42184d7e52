#include "test/manifests/chart_render.hpp"

#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace manifests {
namespace {

// Reads a child's stdout and stderr together, so that neither pipe fills up and blocks it.
void collect(int outFd, int errFd, std::string& out, std::string& err) {
  pollfd fds[2] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open = 2;
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) throw std::runtime_error("poll failed");
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      char buffer[8192];
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      } else {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      }
    }
  }
}

}  // namespace

RenderResult renderChart(const RenderOptions& options) {
  std::vector<std::string> args = {
      SX_CHART_RENDER, options.chart.empty() ? chartDir() : options.chart,
      "--release",     options.release,
      "--namespace",   options.namespace_};
  for (const auto& file : options.valuesFiles) args.insert(args.end(), {"--values", file});
  for (const auto& set : options.sets) args.insert(args.end(), {"--set", set});
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int outPipe[2], errPipe[2];
  if (pipe(outPipe) != 0 || pipe(errPipe) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, outPipe[0]);
  posix_spawn_file_actions_addclose(&actions, errPipe[0]);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(outPipe[1]);
  close(errPipe[1]);
  if (spawned != 0) {
    close(outPipe[0]);
    close(errPipe[0]);
    throw std::runtime_error(std::string("cannot run ") + SX_CHART_RENDER);
  }
  RenderResult result;
  collect(outPipe[0], errPipe[0], result.manifests, result.error);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string chartDir() { return SX_CHART_DIR; }

std::string chartFile(const std::string& relativePath) { return chartDir() + "/" + relativePath; }

std::vector<std::string> ciScenarios() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(chartFile("ci"))) {
    const auto name = entry.path().filename().string();
    if (name.ends_with("-values.yaml")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace manifests

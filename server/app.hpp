#pragma once

#include "server/options.hpp"

namespace server {

// The process: configuration, framework, cache and its source, the HTTP server, signals.
// Start-up errors are one line naming the flag or file and a non-zero exit; a SIGTERM or
// SIGINT drains in-flight requests and exits 0. Returns the exit code.
int run(const Options& options);

}  // namespace server

#include <malloc.h>

#include <iostream>
#include <string>
#include <vector>

#include "server/app.hpp"
#include "server/options.hpp"

int main(int argc, char** argv) {
  // A full-Nodes request body and its answer are ~50 MB each on a 5000-node cluster, above
  // glibc's largest dynamic mmap threshold (32 MB): every request would map fresh pages and
  // fault them in, then unmap them. Served from the heap instead, they are reused.
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  server::Options options;
  try {
    options = server::parseOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const server::UsageError& e) {
    std::cerr << "scheduler-extender: " << e.what() << "\n";
    return 2;
  }
  if (options.help) {
    std::cout << server::usage();
    return 0;
  }
  if (options.version) {
    std::cout << "scheduler-extender " << SX_VERSION << "\n";
    return 0;
  }
  return server::run(options);
}

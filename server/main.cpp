#include <iostream>
#include <string>
#include <vector>

#include "server/app.hpp"
#include "server/options.hpp"

int main(int argc, char** argv) {
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

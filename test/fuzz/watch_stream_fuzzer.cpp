// libFuzzer entry point: see targets.hpp.
#include "test/fuzz/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::watchStream(data, size);
}

// One libFuzzer executable per target of fuzz_targets.h: CMake builds this file once for each,
// with DFC_FUZZ_TARGET naming the target (fuzz_graphdef_binary, fuzz_graphdef_text, fuzz_npy).
// A defect the target reports is a crash to libFuzzer, so it keeps the input.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string defect = dfc::fuzz::DFC_FUZZ_TARGET(data, size);
  if (!defect.empty()) {
    std::fprintf(stderr, "dfc fuzz: %s\n", defect.c_str());
    std::abort();
  }
  return 0;
}

// The entry points of dfc's fuzz targets, one per input format, shared by the libFuzzer
// executables (fuzz_*.cc, built with -DDFC_FUZZ=ON) and by the regression test that replays
// every input a fuzzer once failed on (tests/fuzz_regression_test.cc, in every build).
//
// Each takes any bytes. A bad input must give an error Status inside, never a crash, a hang or
// a sanitizer report; what a target checks beyond that (a round trip, say) it returns as the
// description of the defect found, and "" when there is none.
#ifndef DFC_TESTS_FUZZ_FUZZ_TARGETS_H_
#define DFC_TESTS_FUZZ_FUZZ_TARGETS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dfc::fuzz {

// A GraphDef in protobuf's binary format (inputs that DetectFormat calls text are skipped):
// parsed, validated and, when valid, translated and compiled for the `amd` device profile (no
// device needed) with everything the graph computes as its fetches.
std::string GraphDefBinary(const uint8_t* data, size_t size);
// The same for the text format (inputs DetectFormat calls binary are skipped).
std::string GraphDefText(const uint8_t* data, size_t size);
// A .npy file: parsed, and when valid written again and parsed back to the same tensor.
std::string Npy(const uint8_t* data, size_t size);
// The differential fuzzer: a random valid graph made from the bytes (graph_gen.h), run by the
// reference executor, by the IR interpreter and as kernels on the OpenCL device (`auto`: the
// first GPU, else the CPU device), whose results must agree. A defect is a result that differs, a
// run that fails where the reference succeeds, or a kernel the device could not build.
std::string GraphDiff(const uint8_t* data, size_t size);

// A SavedModel directory's files: bytes that end with a table's magic number are a checkpoint
// index, put beside the zoo Keras CNN's saved_model.pb and data shard; any other bytes are a
// saved_model.pb, put beside its checkpoint. Loaded as `dfc run DIR` loads it (LoadSavedModel):
// a load that succeeds must have restored what its signature's graph reads.
std::string SavedModelFiles(const uint8_t* data, size_t size);

struct Target {
  const char* name;  // the executable is fuzz_<name>; its regressions are in regressions/<name>/
  std::string (*run)(const uint8_t* data, size_t size);
};
const std::vector<Target>& Targets();

}  // namespace dfc::fuzz

#endif  // DFC_TESTS_FUZZ_FUZZ_TARGETS_H_

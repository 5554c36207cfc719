// The contractions of tests/workloads.h — every MatMul of the MNIST softmax training step at
// batch 100 and 8192, and squares of 256, 512 and 1024 — each as dfc's default kernel, dfc's
// tuned variant (the explorer's pick at that shape) and CLBlast's GEMM alone, timed by the
// OpenCL event times of their kernels, with GFLOP/s and the bandwidth floor measured in the
// same run.
//
//   DFC_CACHE_DIR=build/program-cache build/contraction_bench --benchmark_counters_tabular=true
#include "bench/bench_util.h"

namespace dfc::bench {
namespace {

void RegisterAll() {
  for (const workloads::Contraction& c : workloads::Contractions()) {
    RegisterStrategies(workloads::MatMul(c), "clblast");
  }
}

}  // namespace
}  // namespace dfc::bench

int main(int argc, char** argv) { return dfc::bench::Main(argc, argv, dfc::bench::RegisterAll); }

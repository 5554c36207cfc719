// The benchmark programs' main, and the threads the peer benchmark's (bench/peer: cnn_bench,
// peer_bench) run on.
#ifndef DFC_BENCH_BENCH_MAIN_H_
#define DFC_BENCH_BENCH_MAIN_H_

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

#include "benchmark/benchmark.h"

namespace dfc::bench {

// DFC_BENCH_THREADS (default 2): PoCL's threads (POCL_MAX_PTHREAD_COUNT), the FMA chains' and
// those bench/peer gives bench/torch_peer.py.
inline int Threads() {
  const char* threads = std::getenv("DFC_BENCH_THREADS");
  return threads != nullptr && std::atoi(threads) > 0 ? std::atoi(threads) : 2;
}

// Google Benchmark's main, with the benchmarks `register_all` registers.
inline int RunBenchmarks(int argc, char** argv, void (*register_all)()) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Registers `run` as `<family>/dfc/batch:B`, one end-to-end run of dfc timed by the wall clock
// in ms, `repetitions` times (RESULTS.md takes their median): what bench/peer compares with the
// PyTorch twin `<family>/pytorch/batch:B`.
inline void RegisterDfcRun(const std::string& family, int64_t batch, int repetitions,
                           std::function<void(benchmark::State&)> run) {
  benchmark::RegisterBenchmark((family + "/dfc/batch:" + std::to_string(batch)).c_str(),
                               std::move(run))
      ->UseRealTime()
      ->Repetitions(repetitions)
      ->Unit(benchmark::kMillisecond);
}

// RunBenchmarks on Threads() of PoCL's threads.
inline int PeerMain(int argc, char** argv, void (*register_all)()) {
  // Before any OpenCL call: PoCL reads it when its platform starts.
  setenv("POCL_MAX_PTHREAD_COUNT", std::to_string(Threads()).c_str(), /*overwrite=*/0);
  return RunBenchmarks(argc, argv, register_all);
}

}  // namespace dfc::bench

#endif  // DFC_BENCH_BENCH_MAIN_H_

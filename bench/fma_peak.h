// The machine's float32 FMA peak, measured rather than taken from a data sheet: every thread
// runs independent chains of fused multiply-adds on the widest vectors the CPU has, for as long
// as it takes to hide the start. What the CNN benchmark (cnn_bench) divides its convolutions'
// GFLOP/s by.
#ifndef DFC_BENCH_FMA_PEAK_H_
#define DFC_BENCH_FMA_PEAK_H_

#include <immintrin.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace dfc::bench {

// An FMA's latency is 4 to 5 cycles and a core issues up to two a cycle, so 10 chains in flight
// keep both pipes full; 12 leave room for a slower FMA and still fit AVX2's 16 registers with
// the two operands.
inline constexpr int kFmaChains = 12;

// Each step is one FMA on each chain: acc = acc * a + b, which converges to 1 and so never
// leaves the normal floats (denormals would be slow on some CPUs). Returns the chains' sum so
// that the compiler keeps them.
__attribute__((target("avx2,fma"))) inline float FmaChainsAvx2(int64_t steps) {
  __m256 acc[kFmaChains];
  for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm256_set1_ps(0.5f + 0.01f * c);
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.001f);
  for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 16
    for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kFmaChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  return _mm256_cvtss_f32(sum);
}

__attribute__((target("avx512f"))) inline float FmaChainsAvx512(int64_t steps) {
  __m512 acc[kFmaChains];
  for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm512_set1_ps(0.5f + 0.01f * c);
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
  for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 16
    for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kFmaChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  // Not _mm512_reduce_add_ps: GCC 12 warns that its undefined upper half is uninitialised.
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0;
  for (const float lane : lanes) total += lane;
  return total;
}

// One vector width the CPU can do FMAs on.
struct FmaIsa {
  const char* name;  // "avx2", "avx512"
  int lanes;         // floats a vector
  float (*chains)(int64_t steps);
};

// The widths this CPU supports, narrowest first.
inline std::vector<FmaIsa> SupportedFmaIsas() {
  std::vector<FmaIsa> out;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    out.push_back({"avx2", 8, FmaChainsAvx2});
  }
  if (__builtin_cpu_supports("avx512f")) out.push_back({"avx512", 16, FmaChainsAvx512});
  return out;
}

// The floating-point operations (an FMA is two) that `threads` threads of `steps` steps do.
inline double FmaFlops(const FmaIsa& isa, int64_t steps, int threads) {
  return 2.0 * kFmaChains * isa.lanes * static_cast<double>(steps) * threads;
}

// Runs `isa`'s chains for `steps` steps on `threads` threads at once: the wall seconds from
// the first thread's start to the last one's end. Starting a thread costs tens of
// microseconds, against the tens of milliseconds a call is given.
inline double TimeFmaChains(const FmaIsa& isa, int64_t steps, int threads) {
  std::vector<float> sums(threads);
  std::vector<std::thread> workers;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&isa, &sums, steps, t] { sums[t] = isa.chains(steps); });
  }
  for (std::thread& w : workers) w.join();
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  // Read the sums, so that no thread's work is dead.
  volatile float keep = 0;
  for (const float s : sums) keep = keep + s;
  return seconds.count();
}

}  // namespace dfc::bench

#endif  // DFC_BENCH_FMA_PEAK_H_

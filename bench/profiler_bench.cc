// The profiler's own cost, per span and per mark: with the profiler disabled (one relaxed
// load and a branch), host only, and host and device (a host span does not touch the device,
// so it costs what host only does). Spans are recorded in batches of kBatch, collected between
// batches outside the timed part, so the event blocks stay small; the time per span is the
// "per_span" counter.
#include "benchmark/benchmark.h"
#include "runtime/profiler/profiler.h"

namespace dfc::profiler {
namespace {

constexpr int kBatch = 1000;

void Drain(benchmark::State& state) {
  state.PauseTiming();
  const State saved = GetState();
  SetState(State::kDisabled);
  benchmark::DoNotOptimize(Collect());
  SetState(saved);
  state.ResumeTiming();
}

// Spans per second, inverted: seconds per span (printed with an SI prefix, "88n" is 88 ns).
void PerSpan(benchmark::State& state) {
  state.counters["per_span"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kBatch,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Span(benchmark::State& state) {
  SetState(static_cast<State>(state.range(0)));
  for (auto _ : state) {
    for (int k = 0; k < kBatch; ++k) {
      RecordEvent span("span");
      benchmark::DoNotOptimize(&span);
    }
    if (GetState() != State::kDisabled) Drain(state);
  }
  SetState(State::kDisabled);
  PerSpan(state);
}

void BM_NestedSpans(benchmark::State& state) {
  SetState(static_cast<State>(state.range(0)));
  for (auto _ : state) {
    for (int k = 0; k < kBatch / 2; ++k) {
      RecordEvent outer("a longer span name, allocated");
      RecordEvent inner("inner");
      benchmark::DoNotOptimize(&inner);
    }
    if (GetState() != State::kDisabled) Drain(state);
  }
  SetState(State::kDisabled);
  PerSpan(state);
}

void BM_Mark(benchmark::State& state) {
  SetState(static_cast<State>(state.range(0)));
  for (auto _ : state) {
    for (int k = 0; k < kBatch; ++k) Mark("mark");
    if (GetState() != State::kDisabled) Drain(state);
  }
  SetState(State::kDisabled);
  PerSpan(state);
}

void States(benchmark::internal::Benchmark* b) {
  b->ArgName("state")->Arg(0)->Arg(1)->Arg(2);  // disabled, host, host and device
}

BENCHMARK(BM_Span)->Apply(States);
BENCHMARK(BM_NestedSpans)->Apply(States);
BENCHMARK(BM_Mark)->Apply(States);

}  // namespace
}  // namespace dfc::profiler

BENCHMARK_MAIN();

// The profiler's own cost, per span and per mark: with the profiler disabled (one relaxed
// load and a branch), host only, and host and device (a host span does not touch the device,
// so it costs what host only does). Spans are recorded in batches of kBatch, collected between
// batches outside the timed part, so the event blocks stay small; the time per span is the
// "per_span" counter.
//
// And leveled, as XSP measures it: one MNIST training step (batch 100) on the device, run with
// the profiler off, host only, and host and device. After the benchmarks the program prints
// the overhead per host span ((host - off) / spans a step) and per device event ((host and
// device - host) / device events a step).
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "runtime/device_session.h"
#include "runtime/profiler/profiler.h"

namespace dfc::profiler {
namespace {

using ::dfc::DeviceSession;
using ::dfc::DType;
using ::dfc::Tensor;

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

// Times `record` (kBatch events a call) under the state the benchmark's argument names.
template <typename Record>
void RecordInBatches(benchmark::State& state, Record record) {
  SetState(static_cast<State>(state.range(0)));
  for (auto _ : state) {
    record();
    if (GetState() != State::kDisabled) Drain(state);
  }
  SetState(State::kDisabled);
  PerSpan(state);
}

void BM_Span(benchmark::State& state) {
  RecordInBatches(state, [] {
    for (int k = 0; k < kBatch; ++k) {
      RecordEvent span("span");
      benchmark::DoNotOptimize(&span);
    }
  });
}

void BM_NestedSpans(benchmark::State& state) {
  RecordInBatches(state, [] {
    for (int k = 0; k < kBatch / 2; ++k) {
      RecordEvent outer("a longer span name, allocated");
      RecordEvent inner("inner");
      benchmark::DoNotOptimize(&inner);
    }
  });
}

void BM_Mark(benchmark::State& state) {
  RecordInBatches(state, [] {
    for (int k = 0; k < kBatch; ++k) Mark("mark");
  });
}

void States(benchmark::internal::Benchmark* b) {
  b->ArgName("state");
  for (State s : {State::kDisabled, State::kKernels, State::kHost, State::kHostAndDevice}) {
    b->Arg(static_cast<int>(s));
  }
}

// Per state: seconds a step, and the host spans and device events a step records.
struct StepCost {
  double seconds = 0;
  double spans = 0;
  double device_events = 0;
};
std::map<int, StepCost>& StepCosts() {
  static auto* costs = new std::map<int, StepCost>;
  return *costs;
}

void BM_TrainingStep(benchmark::State& state) {
  static std::unique_ptr<DeviceSession> session = [] {
    absl::StatusOr<std::unique_ptr<DeviceSession>> s = DeviceSession::Open(
        std::string(DFC_SHARED_DIR) + "/models/dl4j_mnist_00_softmax_train.pbtxt", {});
    if (!s.ok() || !(*s)->Run({}, {}, {"init"}).ok()) return std::unique_ptr<DeviceSession>();
    return *std::move(s);
  }();
  if (session == nullptr) {
    state.SkipWithError("the MNIST training graph did not open on the device");
    return;
  }
  const std::vector<Feed> feeds = {{{"input"}, Tensor::Zeros(DType::kFloat, {100, 784})},
                                   {{"Placeholder"}, Tensor::Zeros(DType::kFloat, {100, 10})}};
  std::string error;
  auto step = [&] {
    absl::StatusOr<std::vector<Tensor>> out = session->Run(feeds, {"Mean"}, {"GradientDescent"});
    if (!out.ok()) error = std::string(out.status().message());
    return out.ok();
  };
  if (!step()) {  // builds the kernels
    state.SkipWithError(error.c_str());
    return;
  }
  SetState(static_cast<State>(state.range(0)));
  int64_t spans = 0, device_events = 0;
  for (auto _ : state) {
    if (!step()) {
      state.SkipWithError(error.c_str());
      break;
    }
    state.PauseTiming();
    const State saved = GetState();
    SetState(State::kDisabled);
    absl::StatusOr<Profile> p = Collect();
    SetState(saved);
    if (p.ok()) {
      spans += static_cast<int64_t>(p->host.size());
      device_events += static_cast<int64_t>(p->device.size());
    }
    state.ResumeTiming();
  }
  SetState(State::kDisabled);
  const double n = static_cast<double>(state.iterations());
  state.counters["spans_per_step"] = spans / n;
  state.counters["device_events_per_step"] = device_events / n;
  StepCosts()[static_cast<int>(state.range(0))] = {0, spans / n, device_events / n};
}

BENCHMARK(BM_Span)->Apply(States);
BENCHMARK(BM_NestedSpans)->Apply(States);
BENCHMARK(BM_Mark)->Apply(States);
BENCHMARK(BM_TrainingStep)->Apply(States)->Unit(benchmark::kMillisecond)->MinTime(2);

// Keeps each training-step benchmark's real time a step, for the overheads printed at the end.
class Reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const std::string name = run.benchmark_name();
      if (name.rfind("BM_TrainingStep/state:", 0) != 0 || run.iterations == 0) continue;
      const int s = std::stoi(name.substr(name.find(':') + 1));
      StepCosts()[s].seconds = run.real_accumulated_time / static_cast<double>(run.iterations);
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace
}  // namespace dfc::profiler

int main(int argc, char** argv) {
  using dfc::profiler::StepCosts;
  benchmark::Initialize(&argc, argv);
  dfc::profiler::Reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  auto& c = StepCosts();
  using dfc::profiler::State;
  const int off = static_cast<int>(State::kDisabled), kernels = static_cast<int>(State::kKernels),
            host = static_cast<int>(State::kHost), device = static_cast<int>(State::kHostAndDevice);
  if (c.contains(off) && c.contains(kernels) && c.contains(host) && c.contains(device) &&
      c[host].spans > 0 && c[device].device_events > 0) {
    // A difference smaller than the run-to-run noise can come out negative: it is printed as
    // measured, with that said.
    std::printf(
        "MNIST training step: off %.3f ms, kernels only (a timer's level) %.3f ms, host %.3f ms, "
        "host and device %.3f ms\n"
        "overhead per host span: %.0f ns (%.0f spans a step); per device event: %.0f ns (%.0f "
        "events a step, their launch spans included)\n",
        c[off].seconds * 1e3, c[kernels].seconds * 1e3, c[host].seconds * 1e3,
        c[device].seconds * 1e3, (c[host].seconds - c[off].seconds) / c[host].spans * 1e9,
        c[host].spans, (c[device].seconds - c[host].seconds) / c[device].device_events * 1e9,
        c[device].device_events);
    if (c[host].seconds < c[off].seconds) {
      std::printf("(host only ran faster than off: the spans' cost is below this run's noise)\n");
    }
  }
  return 0;
}

// The real CNNs of ../shared/zoo (LeNet, MobileNet v1 0.25 at 128, the CIFAR-10 ResNet, OpenPose
// with a MobileNetV2-small backbone at 368x432) run as a user runs them, end to end, for the
// comparison with their PyTorch twins that bench/torch_peer.py times on the same machine in the
// same bench/run:
//
// - `cnn_<model>/dfc/batch:B`: the wall time of one DeviceSession::Run at batch 1, 16 and 64
//   (OpenPose at 1: tests/zoo.h), the input uploaded and the output read back inside it. One
//   session per model, whose graph has the batch opened as tests/zoo_test.cc opens it, so that one
//   plan serves every batch; warm-up runs at each batch before any timing; kRepetitions
//   repetitions, of which RESULTS.md takes the median. Counters: the batch, the convolutions' GFLOP
//   a run (bench/conv_flops.h) and their GFLOP/s.
// - `train_deep_mnist/dfc/batch:64`: one training step of deep_mnist_train.pbtxt (forward,
//   gradients, Adam's update, the variables on the device), its loss read back; the
//   convolutions' GFLOP count their two gradients too.
// - `rnn_keras_lstm/dfc/batch:B`: one run of keras_lstm_while.pb (100 steps of a while loop)
//   at batch 1 and 64, with the host's CPU time per loop iteration (BM_Lstm).
// - `fma_peak/<isa>/threads:T`: the machine's float32 FMA peak on T threads
//   (bench/fma_peak.h), for each vector width the CPU has; RESULTS.md divides the convolutions'
//   GFLOP/s by the fastest.
//
// T is DFC_BENCH_THREADS (default 2): the FMA chains' threads, PoCL's (POCL_MAX_PTHREAD_COUNT,
// set here unless already set) and those bench/run gives torch_peer.py.
//
//   DFC_CACHE_DIR=build/program-cache build/cnn_bench --benchmark_counters_tabular=true
#include <time.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_main.h"
#include "bench/conv_flops.h"
#include "bench/fma_peak.h"
#include "bench/held_back.h"
#include "benchmark/benchmark.h"
#include "graph/graph.h"
#include "graph/loader.h"
#include "runtime/device_session.h"
#include "runtime/plan.h"
#include "tests/test_util.h"
#include "tests/zoo.h"

namespace dfc::bench {
namespace {

using testing::ZooModel;

// MobileNet at batch 64 takes a second or more a run, so Google Benchmark's minimum time gives
// it one or two: RESULTS.md takes the median of the repetitions (bench/report).
constexpr int kRepetitions = 5;
// A peak is what the machine reaches at best: RESULTS.md takes the fastest repetition.
constexpr int kPeakRepetitions = 3;

// A session of `graph` on DFC_DEVICE (default the CPU device), `init` run once.
absl::StatusOr<std::unique_ptr<DeviceSession>> OpenSession(Graph graph,
                                                           const std::vector<std::string>& init) {
  const char* device = std::getenv("DFC_DEVICE");
  DFC_ASSIGN_OR_RETURN(std::unique_ptr<DeviceSession> session,
                       DeviceSession::Create(std::make_shared<const Graph>(std::move(graph)),
                                             {.device = device != nullptr ? device : "cpu"}));
  DFC_RETURN_IF_ERROR(session->Run({}, {}, init).status());
  return session;
}

// One session per model, opened on first use (its variables initialised, tests/zoo.h) and kept
// for every batch.
absl::StatusOr<DeviceSession*> SessionFor(const ZooModel& model) {
  static auto* sessions = new std::map<std::string, std::unique_ptr<DeviceSession>>;
  std::unique_ptr<DeviceSession>& slot = (*sessions)[model.family];
  if (slot != nullptr) return slot.get();
  DFC_ASSIGN_OR_RETURN(Graph open, testing::LoadWithOpenBatch(model));
  DFC_ASSIGN_OR_RETURN(const std::vector<std::string> init, VariableInitialisers(open));
  DFC_ASSIGN_OR_RETURN(slot, OpenSession(std::move(open), init));
  return slot.get();
}

std::vector<Feed> FeedsAt(const ZooModel& model, int64_t batch) {
  Shape shape = {batch};
  shape.insert(shape.end(), model.image.begin(), model.image.end());
  return {{{model.input, 0}, testing::UniformFloats(shape, 7, 0, 1)}};
}

// What a model's runs at a batch are timed after, done once (Google Benchmark calls a benchmark
// again for each repetition and each longer try): the convolutions' work, and the warm-up runs —
// a batch's first run may translate the graph again (a batch of 1 is also compiled with the
// batch a constant) and build kernels, and its first kPlacementRuns measure where it runs.
absl::StatusOr<ConvWork> Prepare(DeviceSession& session, const ZooModel& model, int64_t batch,
                                 const std::vector<Feed>& feeds) {
  static auto* prepared = new std::map<std::pair<std::string, int64_t>, ConvWork>;
  const std::pair<std::string, int64_t> key{model.family, batch};
  if (auto it = prepared->find(key); it != prepared->end()) return it->second;
  DFC_ASSIGN_OR_RETURN(const ConvWork work,
                       ConvolutionWork(*session.graph(), {{model.fetch, 0}}, feeds));
  DFC_ASSIGN_OR_RETURN(const std::vector<Tensor> out, session.Run(feeds, {model.fetch}));
  for (int k = 1; k < kPlacementRuns; ++k) {
    DFC_RETURN_IF_ERROR(session.Run(feeds, {model.fetch}).status());
  }
  if (out[0].shape().empty() || out[0].shape()[0] != batch) {
    return absl::InternalError(absl::StrCat(model.fetch, " is not a batch of ", batch));
  }
  // A cluster whose kernel could not be built runs on the host: the time would not be dfc's.
  if (const int64_t fallbacks = session.executor().fallbacks(); fallbacks > 0) {
    return absl::InternalError(
        absl::StrCat(fallbacks, " clusters of ", model.file, " fell back to the host"));
  }
  (*prepared)[key] = work;
  return work;
}

void BM_Cnn(benchmark::State& state, const ZooModel& model, int64_t batch) {
  const auto fail = [&state](const absl::Status& status) {
    state.SkipWithError(std::string(status.message()).c_str());
  };
  absl::StatusOr<DeviceSession*> session = SessionFor(model);
  if (!session.ok()) return fail(session.status());
  const std::vector<Feed> feeds = FeedsAt(model, batch);
  absl::StatusOr<ConvWork> work = Prepare(**session, model, batch, feeds);
  if (!work.ok()) return fail(work.status());
  for (auto _ : state) {
    absl::StatusOr<std::vector<Tensor>> out = (*session)->Run(feeds, {model.fetch});
    if (!out.ok()) return fail(out.status());
    benchmark::DoNotOptimize(out);
  }
  if (absl::Status held =
          RecordHeldBack(model.family, batch, *(*session)->graph(), work->nodes,
                         [&] { return (*session)->Run(feeds, {model.fetch}).status(); });
      !held.ok()) {
    return fail(held);
  }
  state.counters["batch"] = static_cast<double>(batch);
  state.counters["conv_GFLOP"] = work->flops * 1e-9;
  state.counters["GFLOP/s"] =
      benchmark::Counter(work->flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel((*session)->executor().device_name());
}

// deep_mnist_train.pbtxt's training step (tests/zoo_test.cc trains it against the reference):
// forward, gradients and Adam's update of its 8 weights, at keep_prob 0.5, the variables on the
// device. Its batch is random images with one-hot targets of a random class each.
constexpr char kTrainGraph[] = "deep_mnist_train.pbtxt";
constexpr int64_t kTrainBatch = 64;

// The training graph's session, its variables initialised; kept for the process.
absl::StatusOr<DeviceSession*> OpenTrainSession() {
  DFC_ASSIGN_OR_RETURN(Graph graph, LoadGraph(testing::SharedDir() + "/zoo/" + kTrainGraph));
  DFC_ASSIGN_OR_RETURN(std::unique_ptr<DeviceSession> session,
                       OpenSession(std::move(graph), {"init"}));
  return session.release();
}

void BM_TrainStep(benchmark::State& state) {
  const auto fail = [&state](const absl::Status& status) {
    state.SkipWithError(std::string(status.message()).c_str());
  };
  static const absl::StatusOr<DeviceSession*> opened = OpenTrainSession();
  if (!opened.ok()) return fail(opened.status());
  DeviceSession* session = *opened;
  std::vector<float> targets(kTrainBatch * 10, 0.0f);
  for (int64_t b = 0; b < kTrainBatch; ++b) targets[b * 10 + (b * 7) % 10] = 1.0f;
  const std::vector<Feed> feeds = {
      {{"input", 0}, testing::UniformFloats({kTrainBatch, 28, 28, 1}, 7, 0, 1)},
      {{"target", 0}, testing::TN<float>(targets, {kTrainBatch, 10})},
      {{"keep_prob", 0}, testing::TN<float>({0.5f}, {})}};
  const std::vector<std::string> step = {"adam_optimizer/Adam"};
  static const absl::StatusOr<ConvWork> work =
      ConvolutionWork(*session->graph(), {{"Mean", 0}}, feeds, step);
  if (!work.ok()) return fail(work.status());
  // Warm-up steps, which build the kernels and measure where the step runs, before the first
  // repetition.
  static const absl::Status warm = [&] {
    for (int k = 0; k < kPlacementRuns; ++k) {
      DFC_RETURN_IF_ERROR(session->Run(feeds, {"Mean"}, step).status());
    }
    return absl::OkStatus();
  }();
  if (!warm.ok()) return fail(warm);
  for (auto _ : state) {
    absl::StatusOr<std::vector<Tensor>> loss = session->Run(feeds, {"Mean"}, step);
    if (!loss.ok()) return fail(loss.status());
    benchmark::DoNotOptimize(loss);
  }
  if (const int64_t fallbacks = session->executor().fallbacks(); fallbacks > 0) {
    return fail(absl::InternalError(absl::StrCat(fallbacks, " clusters fell back to the host")));
  }
  if (absl::Status held =
          RecordHeldBack("train_deep_mnist", kTrainBatch, *session->graph(), work->nodes,
                         [&] { return session->Run(feeds, {"Mean"}, step).status(); });
      !held.ok()) {
    return fail(held);
  }
  state.counters["batch"] = static_cast<double>(kTrainBatch);
  state.counters["conv_GFLOP"] = work->flops * 1e-9;
  state.counters["GFLOP/s"] =
      benchmark::Counter(work->flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(session->executor().device_name());
}

// keras_lstm_while.pb (tests/zoo_test.cc runs it against the reference): a Keras LSTM of 128
// units over 100 steps of 1000 features, a TF1 while loop over TensorArrays whose body the
// device runs as kernels while the host drives the loop. Counter `host_us_per_step`: the CPU
// time of the calling thread (the host's own work: translation lookups, argument setting,
// enqueues, the condition's read; PoCL's kernels run on its own threads) per loop iteration.
constexpr char kLstmGraph[] = "keras_lstm_while.pb";
constexpr int64_t kLstmSteps = 100;
constexpr char kLstmFetch[] = "lstm_1/TensorArrayReadV3";

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void BM_Lstm(benchmark::State& state, int64_t batch) {
  const auto fail = [&state](const absl::Status& status) {
    state.SkipWithError(std::string(status.message()).c_str());
  };
  static const absl::StatusOr<DeviceSession*> opened = [&]() -> absl::StatusOr<DeviceSession*> {
    DFC_ASSIGN_OR_RETURN(Graph graph, LoadGraph(testing::SharedDir() + "/zoo/" + kLstmGraph));
    DFC_ASSIGN_OR_RETURN(std::unique_ptr<DeviceSession> session,
                         OpenSession(std::move(graph), {"init"}));
    return session.release();
  }();
  if (!opened.ok()) return fail(opened.status());
  DeviceSession* session = *opened;
  const std::vector<Feed> feeds = {
      {{"lstm_1_input", 0}, testing::UniformFloats({batch, kLstmSteps, 1000}, 7, -1, 1)}};
  // A warm-up run translates the body and builds its kernels.
  if (absl::Status warm = session->Run(feeds, {kLstmFetch}).status(); !warm.ok()) {
    return fail(warm);
  }
  double host = 0;
  for (auto _ : state) {
    const double start = ThreadCpuSeconds();
    absl::StatusOr<std::vector<Tensor>> out = session->Run(feeds, {kLstmFetch});
    host += ThreadCpuSeconds() - start;
    if (!out.ok()) return fail(out.status());
    benchmark::DoNotOptimize(out);
  }
  if (const int64_t fallbacks = session->executor().fallbacks(); fallbacks > 0) {
    return fail(absl::InternalError(absl::StrCat(fallbacks, " clusters fell back to the host")));
  }
  state.counters["batch"] = static_cast<double>(batch);
  state.counters["host_us_per_step"] =
      1e6 * host / static_cast<double>(state.iterations() * kLstmSteps);
  state.SetLabel(session->executor().device_name());
}

// The FMA chains on Threads() threads; each call long enough (tens of ms) to hide the threads'
// start.
void BM_FmaPeak(benchmark::State& state, const FmaIsa& isa) {
  constexpr int64_t kSteps = int64_t{1} << 22;
  const int threads = Threads();
  isa.chains(kSteps / 16);  // the clock up, the code paged in
  for (auto _ : state) state.SetIterationTime(TimeFmaChains(isa, kSteps, threads));
  state.counters["GFLOP/s"] = benchmark::Counter(FmaFlops(isa, kSteps, threads) * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
  // No label: RESULTS.md lists the labels as the OpenCL devices the results ran on.
}

void RegisterAll() {
  for (const FmaIsa& isa : SupportedFmaIsas()) {
    benchmark::RegisterBenchmark(
        absl::StrCat("fma_peak/", isa.name, "/threads:", Threads()).c_str(),
        [isa](benchmark::State& state) { BM_FmaPeak(state, isa); })
        ->UseManualTime()
        ->Repetitions(kPeakRepetitions)
        ->Unit(benchmark::kMillisecond);
  }
  RegisterDfcRun("train_deep_mnist", kTrainBatch, kRepetitions, BM_TrainStep);
  for (const int64_t batch : {int64_t{1}, int64_t{64}}) {
    RegisterDfcRun("rnn_keras_lstm", batch, kRepetitions,
                   [batch](benchmark::State& state) { BM_Lstm(state, batch); });
  }
  for (const ZooModel& model : testing::ZooCnns()) {
    for (const int64_t batch : model.batches) {
      RegisterDfcRun(model.family, batch, kRepetitions,
                     [model, batch](benchmark::State& state) { BM_Cnn(state, model, batch); });
    }
  }
}

}  // namespace
}  // namespace dfc::bench

int main(int argc, char** argv) {
  const int ran = dfc::bench::PeerMain(argc, argv, dfc::bench::RegisterAll);
  return dfc::bench::WriteHeldBack() ? ran : 1;
}

// dfc's side of the peer benchmark (bench/peer): the workloads of bench/ as a user runs them,
// end to end, for the comparison with their PyTorch twins that bench/torch_peer.py times in the
// same bench/peer run. Each benchmark `<family>/dfc/batch:B` is the wall time of one
// DeviceSession::Run, the feeds uploaded and the fetches read back inside it:
//
// - `subgraph_seed`, `subgraph_relu`: the thesis' subgraph and the Relu one (models/, as
//   seed_subgraph_bench times their kernels), at batch 1, 16, 64 and 8192;
// - `gemm_1024`: one MatMul of a fed [B,1024] by a fed [1024,1024], at batch 1, 16, 64, 1024 (the
//   1024³ GEMM) and 8192, with its GFLOP/s;
// - `mlp_dl4j` (784-256-10), `mlp_lvfengkun`, `mlp_cppflow`: the frozen MLPs of
//   ../shared/models, at batch 1, 16, 64 and 8192;
// - `train_mnist_softmax`: the MNIST softmax regression's training step (the loss read back,
//   GradientDescent's update of the variables on the device), at batch 1, 16, 64 and 8192.
//
// The zoo's CNNs, LSTM and CNN training step are cnn_bench's, which bench/peer runs beside this.
// One session per family, opened from the plan `dfc compile` would write (the tuning database's
// variants for this device where it records them), whose graph has the batch open, so that one
// plan serves every batch;
// warm-up runs at each batch (the first may translate the graph again and build kernels; the
// first kPlacementRuns measure where the batch runs) before any timing. A run with a cluster that
// fell back to the host is an error: the time would not be dfc's. At batch 1 the counter
// host_overhead_us is a run's host time not covered by device work, as `dfc profile --report`
// gives it: the mean of kOverheadRuns profiled runs after the timed ones.
//
//   DFC_CACHE_DIR=build/program-cache build/peer_bench --benchmark_counters_tabular=true
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/bench_main.h"
#include "bench/held_back.h"
#include "benchmark/benchmark.h"
#include "graph/graph.h"
#include "graph/loader.h"
#include "runtime/device_session.h"
#include "runtime/plan.h"
#include "runtime/tune.h"
#include "runtime/tuning_db.h"
#include "tests/test_util.h"
#include "tests/workloads.h"

namespace dfc::bench {
namespace {

using workloads::Feeds;
using workloads::Workload;

constexpr int64_t kBatches[] = {1, 16, 64, 8192};
constexpr int64_t kGemmBatches[] = {1, 16, 64, 1024, 8192};
constexpr int64_t kGemmSide = 1024;
constexpr int kRepetitions = 3;  // RESULTS.md takes the median (bench/report)
// The profiled runs a batch-1 workload's host overhead is the mean of (host_overhead_us).
constexpr int kOverheadRuns = 20;

// A [B,1024] by [1024,1024] MatMul, both fed: what torch.mm of two tensors does.
std::string GemmGraphText() {
  return absl::StrFormat(R"graph(
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: %d } } } } }
node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: %d } dim { size: %d } } } } }
node { name: "c" op: "MatMul" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "transpose_a" value { b: false } } attr { key: "transpose_b" value { b: false } } }
)graph",
                         kGemmSide, kGemmSide, kGemmSide);
}

absl::StatusOr<Graph> GemmGraph() { return ParseGraph(GemmGraphText(), "gemm_1024"); }

Workload Gemm(int64_t batch) {
  Workload w;
  w.family = "gemm_1024";
  w.name = absl::StrCat(w.family, "/batch:", batch);
  w.size = batch;
  w.graph = GemmGraph;
  w.feeds = [batch] {
    return Feeds{{{"a"}, testing::UniformFloats({batch, kGemmSide}, 5, -1.0f, 1.0f)},
                 {{"b"}, testing::UniformFloats({kGemmSide, kGemmSide}, 6, -1.0f, 1.0f)}};
  };
  w.fetches = {"c"};
  w.flops = 2.0 * batch * kGemmSide * kGemmSide;
  return w;
}

// A family: its name here, its workload at a batch (tests/workloads.h, renamed) and its graph's
// file (a plan keeps a copy).
struct Family {
  std::string name;
  std::function<Workload(int64_t)> at;
  std::vector<int64_t> batches;
  std::string graph_file;
};

// The GEMM's graph as a file, written once into the plans' directory.
std::filesystem::path PlansDir() {
  static const std::filesystem::path* dir = [] {
    auto* d = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                        absl::StrCat("dfc_peer_bench_", getpid()));
    std::filesystem::create_directories(*d);
    return d;
  }();
  return *dir;
}

std::string GemmGraphFile() {
  const std::filesystem::path file = PlansDir() / "gemm_1024.pbtxt";
  std::ofstream(file) << GemmGraphText();
  return file.string();
}

std::vector<Family> Families() {
  const std::vector<int64_t> batches(std::begin(kBatches), std::end(kBatches));
  // workloads::Models' order: the training step, then the three frozen MLPs.
  const auto model = [](size_t i) {
    return [i](int64_t batch) { return workloads::Models(batch)[i]; };
  };
  const std::string models = testing::SharedDir() + "/models/";
  return {{"subgraph_seed", workloads::Seed, batches, DFC_SOURCE_DIR "/models/seed_subgraph.pbtxt"},
          {"subgraph_relu", workloads::Relu, batches, DFC_SOURCE_DIR "/models/relu_subgraph.pbtxt"},
          {"gemm_1024", Gemm, {std::begin(kGemmBatches), std::end(kGemmBatches)}, GemmGraphFile()},
          {"mlp_dl4j", model(1), batches, models + "dl4j_mlp_00_frozen.pb"},
          {"mlp_lvfengkun", model(2), batches, models + "lvfengkun_mnist_mlp_frozen.pb"},
          {"mlp_cppflow", model(3), batches, models + "cppflow_mlp_frozen.pb"},
          {"train_mnist_softmax", model(0), batches, models + "dl4j_mnist_00_softmax_train.pbtxt"}};
}

// One session per family on DFC_DEVICE (default the CPU device), opened as a user deploys a
// graph: the plan `dfc compile` writes (each cluster the variant the tuning database,
// DFC_TUNING_DB or bench/run's bench/tuning.json, records for this device, else the default
// strategy), opened with DeviceSession::OpenPlan, which runs its initialisers.
absl::StatusOr<DeviceSession*> SessionFor(const Family& family, const Workload& w) {
  static auto* sessions = new std::map<std::string, std::unique_ptr<DeviceSession>>;
  std::unique_ptr<DeviceSession>& slot = (*sessions)[family.name];
  if (slot != nullptr) return slot.get();
  const char* device = std::getenv("DFC_DEVICE");
  const std::string kind = device != nullptr ? device : "cpu";
  DFC_ASSIGN_OR_RETURN(std::unique_ptr<DeviceExecutor> executor,
                       DeviceExecutor::Open(kind, -1, {}));
  DFC_ASSIGN_OR_RETURN(Graph graph, w.graph());
  PlanSpec spec{.targets = w.targets, .init = w.init, .profile = executor->profile()};
  for (const std::string& fetch : w.fetches) spec.fetches.push_back({fetch, 0});
  DFC_ASSIGN_OR_RETURN(Plan plan,
                       CompilePlan(std::make_shared<const Graph>(std::move(graph)), spec));
  DFC_ASSIGN_OR_RETURN(const TuningDb db, TuningDb::Load(DefaultTuningDbPath()));
  DFC_ASSIGN_OR_RETURN(const int taken, TakeRecordedVariants(db, executor->device_name(),
                                                             std::nullopt, plan, &std::cerr));
  std::cerr << family.name << ": " << taken << " of " << plan.translated.clusters.size()
            << " clusters take their tuned variant from " << db.path() << "\n";
  const std::filesystem::path dir = PlansDir() / family.name;
  DFC_RETURN_IF_ERROR(WritePlan(plan, family.graph_file, dir));
  DFC_ASSIGN_OR_RETURN(slot, DeviceSession::OpenPlan(dir.string(), {.device = kind}));
  return slot.get();
}

void BM_Peer(benchmark::State& state, const Family& family, int64_t batch) {
  const auto fail = [&state](const absl::Status& status) {
    state.SkipWithError(std::string(status.message()).c_str());
  };
  const Workload w = family.at(batch);
  absl::StatusOr<DeviceSession*> session = SessionFor(family, w);
  if (!session.ok()) return fail(session.status());
  const Feeds feeds = w.feeds();
  // Google Benchmark calls a benchmark again for each repetition: one warm-up per batch.
  static auto* warmed = new std::map<std::string, absl::Status>;
  auto [warm, first] = warmed->try_emplace(w.name);
  for (int k = 0; first && k < kPlacementRuns && warm->second.ok(); ++k) {
    warm->second = (*session)->Run(feeds, w.fetches, w.targets).status();
  }
  if (!warm->second.ok()) return fail(warm->second);
  for (auto _ : state) {
    absl::StatusOr<std::vector<Tensor>> out = (*session)->Run(feeds, w.fetches, w.targets);
    if (!out.ok()) return fail(out.status());
    benchmark::DoNotOptimize(out);
  }
  if (const int64_t fallbacks = (*session)->executor().fallbacks(); fallbacks > 0) {
    return fail(absl::InternalError(
        absl::StrCat(fallbacks, " clusters of ", family.name, " fell back to the host")));
  }
  const auto run = [&] { return (*session)->Run(feeds, w.fetches, w.targets).status(); };
  if (absl::Status held = RecordHeldBack(family.name, batch, *(*session)->graph(), {}, run);
      !held.ok()) {
    return fail(held);
  }
  if (batch == 1) {
    // Measured once per workload (Google Benchmark calls a benchmark once per repetition).
    static auto* overheads = new std::map<std::string, double>;
    auto [overhead, unmeasured] = overheads->try_emplace(w.name);
    if (unmeasured) {
      absl::StatusOr<double> us = MeasureHostOverhead(run, kOverheadRuns);
      if (!us.ok()) return fail(us.status());
      overhead->second = *us;
    }
    state.counters["host_overhead_us"] = overhead->second;
  }
  state.counters["batch"] = static_cast<double>(batch);
  if (w.flops > 0) {
    state.counters["GFLOP"] = w.flops * 1e-9;
    state.counters["GFLOP/s"] =
        benchmark::Counter(w.flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  }
  state.SetLabel((*session)->executor().device_name());
}

void RegisterAll() {
  for (const Family& family : Families()) {
    for (const int64_t batch : family.batches) {
      RegisterDfcRun(family.name, batch, kRepetitions,
                     [family, batch](benchmark::State& state) { BM_Peer(state, family, batch); });
    }
  }
}

}  // namespace
}  // namespace dfc::bench

int main(int argc, char** argv) {
  const int ran = dfc::bench::PeerMain(argc, argv, dfc::bench::RegisterAll);
  return dfc::bench::WriteHeldBack() ? ran : 1;
}

// The reference executor's speed on the thesis' workloads: one MNIST softmax-regression
// training step (TensorFlow's graph, batch 100 by default) and the frozen MLP's forward pass.
// The reference is the oracle, written for exactness; this keeps it usable for testing.
#include <memory>
#include <random>

#include "benchmark/benchmark.h"
#include "graph/loader.h"
#include "runtime/reference/session.h"

namespace dfc {
namespace {

Tensor RandomTensor(Shape shape, uint64_t seed) {
  Tensor t = Tensor::Zeros(DType::kFloat, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (float& v : t.mutable_flat<float>()) v = u(rng);
  return t;
}

std::shared_ptr<const Graph> Load(const std::string& name) {
  absl::StatusOr<Graph> graph = LoadGraph(std::string(DFC_SHARED_DIR) + "/models/" + name);
  if (!graph.ok()) return nullptr;
  return std::make_shared<const Graph>(*std::move(graph));
}

void BM_MnistTrainingStep(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  std::shared_ptr<const Graph> graph = Load("dl4j_mnist_00_softmax_train.pbtxt");
  if (!graph) return state.SkipWithError("cannot load the MNIST training graph");
  reference::Session session(graph);
  if (!session.Run({}, {}, {"init"}).ok()) return state.SkipWithError("init failed");
  Tensor x = RandomTensor({batch, 784}, 1);
  Tensor y = Tensor::Zeros(DType::kFloat, {batch, 10});
  for (int i = 0; i < batch; ++i) y.mutable_data<float>()[i * 10 + i % 10] = 1.0f;
  for (auto _ : state) {
    auto out = session.Run({{{"input"}, x}, {{"Placeholder"}, y}}, {"Mean"}, {"GradientDescent"});
    if (!out.ok()) return state.SkipWithError(std::string(out.status().message()).c_str());
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_MnistTrainingStep)->Arg(1)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_FrozenMlpForward(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  std::shared_ptr<const Graph> graph = Load("dl4j_mlp_00_frozen.pb");
  if (!graph) return state.SkipWithError("cannot load the MLP");
  reference::Session session(graph);
  Tensor x = RandomTensor({batch, 784}, 2);
  for (auto _ : state) {
    auto out = session.Run({{{"input"}, x}}, {"output"});
    if (!out.ok()) return state.SkipWithError(std::string(out.status().message()).c_str());
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_FrozenMlpForward)->Arg(1)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dfc

BENCHMARK_MAIN();

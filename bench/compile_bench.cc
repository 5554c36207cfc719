// How loading and compiling scale with a graph's size, up to 100,000 nodes: the parse of a
// text GraphDef, then CompilePlan (validation, pruning, folding, partitioning, translation and code
// generation for the `amd` profile; nothing runs), and the heap the graph and the plan hold.
// Two shapes of graph, each made here from a pattern repeated:
//   - layers: Const weights [8,8] and bias [8], MatMul, BiasAdd, Tanh, Identity, chained
//     (six nodes a layer, a third of them host constants; clusters cut at kMaxClusterNodes);
//   - chain: one long chain of elementwise ops (Tanh, Sigmoid, Neg, Abs), the deepest nesting
//     a cluster can have.
// Linear growth shows as a flat time and heap per node across the sizes.
#include <malloc.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "rewrite/device_profile.h"
#include "graph/loader.h"
#include "runtime/plan.h"

namespace dfc {
namespace {

constexpr char kFloat[] = R"( attr { key: "T" value { type: DT_FLOAT } })";

std::string Placeholder() {
  return R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } )"
         R"(attr { key: "shape" value { shape { dim { size: -1 } dim { size: 8 } } } } })"
         "\n";
}

std::string FloatConst(const std::string& name, int64_t rows, int64_t cols, float value) {
  std::string dims = absl::StrCat(" dim { size: ", rows, " }");
  if (cols > 0) absl::StrAppend(&dims, " dim { size: ", cols, " }");
  std::string values;
  for (int64_t k = 0; k < rows * std::max<int64_t>(cols, 1); ++k) {
    absl::StrAppend(&values, " float_val: ", value);
  }
  return absl::StrCat("node { name: \"", name,
                      "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
                      "attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape {",
                      dims, " }", values, " } } } }\n");
}

std::string Op(const std::string& name, const std::string& op,
               std::initializer_list<std::string> inputs, const std::string& attrs = kFloat) {
  std::string text = absl::StrCat("node { name: \"", name, "\" op: \"", op, "\"");
  for (const std::string& input : inputs) absl::StrAppend(&text, " input: \"", input, "\"");
  return absl::StrCat(text, attrs, " }\n");
}

// About `nodes` nodes of layers; the last Identity's name in `fetch`.
std::string Layers(int64_t nodes, std::string& fetch) {
  std::string text = Placeholder();
  fetch = "x";
  for (int64_t k = 0; 6 * k + 1 < nodes; ++k) {
    const std::string w = absl::StrCat("w", k), b = absl::StrCat("b", k);
    const std::string mm = absl::StrCat("mm", k), ba = absl::StrCat("ba", k),
                      t = absl::StrCat("t", k), id = absl::StrCat("id", k);
    absl::StrAppend(&text, FloatConst(w, 8, 8, 0.1f), FloatConst(b, 8, 0, 0.01f),
                    Op(mm, "MatMul", {fetch, w},
                       absl::StrCat(kFloat, R"( attr { key: "transpose_a" value { b: false } })",
                                    R"( attr { key: "transpose_b" value { b: false } })")),
                    Op(ba, "BiasAdd", {mm, b}), Op(t, "Tanh", {ba}), Op(id, "Identity", {t}));
    fetch = id;
  }
  return text;
}

std::string Chain(int64_t nodes, std::string& fetch) {
  static const char* kOps[] = {"Tanh", "Sigmoid", "Neg", "Abs"};
  std::string text = Placeholder();
  fetch = "x";
  for (int64_t k = 0; k + 1 < nodes; ++k) {
    const std::string name = absl::StrCat("n", k);
    absl::StrAppend(&text, Op(name, kOps[k % 4], {fetch}));
    fetch = name;
  }
  return text;
}

size_t HeapInUse() { return mallinfo2().uordblks; }

void Compile(benchmark::State& state, std::string (*make)(int64_t, std::string&)) {
  const int64_t nodes = state.range(0);
  std::string fetch;
  const std::string text = make(nodes, fetch);
  absl::StatusOr<rewrite::DeviceProfile> profile = rewrite::NamedProfile("amd");
  if (!profile.ok()) return state.SkipWithError("no amd profile");
  size_t held = 0;
  int clusters = 0;
  for (auto _ : state) {
    const size_t before = HeapInUse();
    absl::StatusOr<Graph> graph = ParseGraph(text, "generated");
    if (!graph.ok()) return state.SkipWithError(std::string(graph.status().message()).c_str());
    PlanSpec spec{.fetches = {{fetch, 0}}, .profile = *profile};
    absl::StatusOr<Plan> plan = CompilePlan(std::make_shared<const Graph>(*std::move(graph)), spec);
    if (!plan.ok()) return state.SkipWithError(std::string(plan.status().message()).c_str());
    held = HeapInUse() - before;
    clusters = static_cast<int>(plan->kernels.size());
    benchmark::DoNotOptimize(plan);
  }
  state.SetItemsProcessed(state.iterations() * nodes);
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["kernels"] = clusters;
  state.counters["heap_MB"] = static_cast<double>(held) / 1e6;
  state.counters["heap_B_per_node"] = static_cast<double>(held) / static_cast<double>(nodes);
}

void BM_CompileLayers(benchmark::State& state) { Compile(state, Layers); }
void BM_CompileChain(benchmark::State& state) { Compile(state, Chain); }
BENCHMARK(BM_CompileLayers)
    ->RangeMultiplier(2)
    ->Range(12500, 100000)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
BENCHMARK(BM_CompileChain)
    ->RangeMultiplier(2)
    ->Range(12500, 100000)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

}  // namespace
}  // namespace dfc

BENCHMARK_MAIN();

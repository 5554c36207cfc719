// The workloads bench/ times and the tests check, each described once: its graph, its inputs
// at a size, what it fetches, and the work it must do — its floating-point operations, and the
// bytes a kernel that reads each input once and writes each output once moves (over the
// device's read bandwidth, the floor under its time).
#ifndef DFC_TESTS_WORKLOADS_H_
#define DFC_TESTS_WORKLOADS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/feed.h"
#include "graph/graph.h"
#include "graph/tensor.h"

namespace dfc::workloads {

using Feeds = std::vector<Feed>;  // a value for each placeholder

struct Workload {
  std::string family;  // what a plot draws as one figure: "seed", "relu", "matmul_x.W"...
  std::string name;    // the family and its size: "seed/N:65536", "matmul_x.W/B:100"
  int64_t size = 0;    // the batch (or side) the family is plotted against
  std::function<absl::StatusOr<Graph>()> graph;
  std::function<Feeds()> feeds;  // seeded: the same values every call
  std::vector<std::string> fetches;
  std::vector<std::string> targets;  // run every time for their effects (a training step)
  std::vector<std::string> init;     // run once before the first time (variable initialisers)
  // 0 for a model: its work is what its fused plan's clusters do (bench_util's WorkOf).
  double flops = 0;
  double bytes = 0;
  // The most terms any one output sums (a contraction's k): what the tolerance of a variant
  // that reorders the sums grows with (runtime/tune.h's VariantTolerance).
  int64_t longest_reduction = 0;
};

// The thesis' subgraph (models/seed_subgraph.pbtxt) at batch n: in1 [n,10] labels, in2 [n,784]
// images, in3 [784,10] weights, in4 [10] bias; 2·784·10 flops a row for the contraction,
// and (10 + 784 + 10)·4 bytes a row, in3 and in4 once.
Workload Seed(int64_t n);

// The second subgraph (models/relu_subgraph.pbtxt: 512 features, 7 classes, Relu, a row sum).
Workload Relu(int64_t n);

// One MatMul of a [m,k] by a [k,n] (each stored transposed where transpose_a / transpose_b),
// a graph of its own with static shapes: 2·m·k·n flops, (m·k + k·n + m·n)·4 bytes.
struct Contraction {
  std::string label;  // "x.W", "xT.dy", "dy.WT", "square"
  int64_t m, k, n;
  bool transpose_a = false, transpose_b = false;
  int64_t size;  // the batch (or side) it is plotted against
};
Workload MatMul(const Contraction& c);

// Every MatMul of the MNIST softmax training step at batch 100 and 8192 — the forward x.W
// (B×784 by 784×10), the weights' gradient xT.dy (784×B by B×10, x stored [B,784]) and the
// input's gradient dy.WT (B×10 by 10×784, W stored [784,10]) — and squares of 256, 512, 1024.
std::vector<Contraction> Contractions();

// The elementwise chain of models/dl4j_transform_0 (Add, Maximum, Minimum, Abs, Acos, Ceil, Cos,
// Cosh, Exp, Log, Rsqrt: 18 ops over input_0 and input_1) on two [elements / 4096, 4096]
// inputs. The model's one MatMul (of two 3x3 matrices) is made a Mul of the same two operands,
// so that every op is elementwise: one flop an element an op, 12 bytes an element.
Workload Chain(int64_t elements);

// A graph of ../shared/models at batch `batch`: each placeholder fed seeded uniform values in
// [0, 1) (the images, the labels), its unknown dimensions set to the batch.
Workload Model(std::string family, std::string file, int64_t batch,
               std::vector<std::string> fetches, std::vector<std::string> targets = {},
               std::vector<std::string> init = {});

// The MNIST softmax regression's training step (dl4j_mnist_00_softmax_train: the loss, and
// GradientDescent's update of W and b, after `init`) and the frozen MLPs (dl4j_mlp_00:
// 784-256-10; lvfengkun_mnist_mlp: 28x28-...-10 with Relu; cppflow_mlp: 5-...-... with Relu
// and Sigmoid), at `batch`.
std::vector<Workload> Models(int64_t batch);

// The reference executor's values of the workload's fetches: the oracle.
absl::StatusOr<std::vector<Tensor>> Reference(const Workload& w, const Feeds& feeds);

}  // namespace dfc::workloads

#endif  // DFC_TESTS_WORKLOADS_H_

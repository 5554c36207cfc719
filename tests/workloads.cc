#include "tests/workloads.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status.h"
#include "dfc_test_paths.h"
#include "graph/loader.h"
#include "graph/ops.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc::workloads {
namespace {

// A subgraph of models/ whose inputs are in1 [n,classes] (labels), in2 [n,features], in3
// [features,classes] and in4 [classes], and whose output is one row of `out_per_row` values.
Workload Subgraph(std::string family, std::string file, int64_t n, int64_t features,
                  int64_t classes, int64_t out_per_row) {
  Workload w;
  w.name = absl::StrCat(family, "/N:", n);
  w.family = std::move(family);
  w.size = n;
  w.graph = [file] { return LoadGraph(absl::StrCat(DFC_SOURCE_DIR, "/models/", file)); };
  w.feeds = [=] {
    return Feeds{{{"in1"}, testing::UniformFloats({n, classes}, 1, -1.0f, 1.0f)},
                 {{"in2"}, testing::UniformFloats({n, features}, 2, -1.0f, 1.0f)},
                 {{"in3"}, testing::UniformFloats({features, classes}, 3, -0.05f, 0.05f)},
                 {{"in4"}, testing::UniformFloats({classes}, 4, -0.1f, 0.1f)}};
  };
  w.fetches = {"out"};
  w.flops = 2.0 * features * classes * n;
  w.bytes = 4.0 * ((classes + features + out_per_row) * n + features * classes + classes);
  w.longest_reduction = features;
  return w;
}

std::string Placeholder(const std::string& name, int64_t rows, int64_t cols) {
  return absl::StrFormat(R"graph(node {
  name: "%s"
  op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: %d } dim { size: %d } } } }
}
)graph",
                         name, rows, cols);
}

}  // namespace

Workload Seed(int64_t n) { return Subgraph("seed", "seed_subgraph.pbtxt", n, 784, 10, 10); }

Workload Relu(int64_t n) { return Subgraph("relu", "relu_subgraph.pbtxt", n, 512, 7, 1); }

Workload MatMul(const Contraction& c) {
  Workload w;
  w.family = absl::StrCat("matmul_", c.label);
  w.name = absl::StrCat(w.family, "/", c.label == "square" ? "side:" : "B:", c.size);
  w.size = c.size;
  // As stored: a is [k,m] when transposed, b is [n,k].
  const int64_t a_rows = c.transpose_a ? c.k : c.m, a_cols = c.transpose_a ? c.m : c.k;
  const int64_t b_rows = c.transpose_b ? c.n : c.k, b_cols = c.transpose_b ? c.k : c.n;
  const std::string text = absl::StrCat(
      Placeholder("a", a_rows, a_cols), Placeholder("b", b_rows, b_cols),
      absl::StrFormat(R"graph(node {
  name: "c"
  op: "MatMul"
  input: "a"
  input: "b"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "transpose_a" value { b: %s } }
  attr { key: "transpose_b" value { b: %s } }
}
)graph",
                      c.transpose_a ? "true" : "false", c.transpose_b ? "true" : "false"));
  const std::string source = w.name;
  w.graph = [text, source] { return ParseGraph(text, source); };
  w.feeds = [=] {
    return Feeds{{{"a"}, testing::UniformFloats({a_rows, a_cols}, 5, -1.0f, 1.0f)},
                 {{"b"}, testing::UniformFloats({b_rows, b_cols}, 6, -1.0f, 1.0f)}};
  };
  w.fetches = {"c"};
  w.flops = 2.0 * c.m * c.k * c.n;
  w.bytes = 4.0 * (c.m * c.k + c.k * c.n + c.m * c.n);
  w.longest_reduction = c.k;
  return w;
}

Workload Chain(int64_t elements) {
  constexpr int64_t kColumns = 4096;
  const int64_t rows = elements / kColumns;
  Workload w;
  w.family = "chain";
  w.name = absl::StrCat("chain/elements:", rows * kColumns);
  w.size = rows * kColumns;
  w.graph = [rows]() -> absl::StatusOr<Graph> {
    DFC_ASSIGN_OR_RETURN(Graph model,
                         LoadGraph(testing::SharedDir() + "/models/dl4j_transform_0_frozen.pb"));
    std::vector<Node> nodes = model.nodes();
    for (Node& node : nodes) {
      if (node.op == "Placeholder") node.attrs["shape"] = PartialShape{.dims = {rows, kColumns}};
      if (node.op == "MatMul") {
        node.op = "Mul";
        node.attrs.erase("transpose_a");
        node.attrs.erase("transpose_b");
      }
    }
    return Graph::FromNodes(std::move(nodes));
  };
  // In [0, 1): Acos's domain, and Rsqrt of a positive product.
  w.feeds = [rows] {
    return Feeds{{{"input_0"}, testing::UniformFloats({rows, kColumns}, 7, 0.0f, 1.0f)},
                 {{"input_1"}, testing::UniformFloats({rows, kColumns}, 8, 0.05f, 1.0f)}};
  };
  w.fetches = {"output"};
  w.flops = 18.0 * w.size;
  w.bytes = 12.0 * w.size;
  w.longest_reduction = 1;
  return w;
}

Workload Model(std::string family, std::string file, int64_t batch,
               std::vector<std::string> fetches, std::vector<std::string> targets,
               std::vector<std::string> init) {
  Workload w;
  w.name = absl::StrCat(family, "/batch:", batch);
  w.family = std::move(family);
  w.size = batch;
  const std::string path = testing::SharedDir() + "/models/" + file;
  w.graph = [path] { return LoadGraph(path); };
  w.feeds = [path, batch] {
    Feeds feeds;
    absl::StatusOr<Graph> graph = LoadGraph(path);
    if (!graph.ok()) return feeds;  // graph() reports the error
    uint64_t seed = 9;
    for (const Node& node : graph->nodes()) {
      if (node.op != "Placeholder") continue;
      Shape shape = PlaceholderShape(node).dims;
      for (int64_t& d : shape) d = d < 0 ? batch : d;
      feeds.push_back({{node.name}, testing::UniformFloats(shape, seed++, 0.0f, 1.0f)});
    }
    return feeds;
  };
  w.fetches = std::move(fetches);
  w.targets = std::move(targets);
  w.init = std::move(init);
  // The longest sum of a MatMul of the models: 784 pixels, or a batch of gradients.
  w.longest_reduction = std::max<int64_t>(784, batch);
  return w;
}

std::vector<Workload> Models(int64_t batch) {
  return {Model("model_mnist_train", "dl4j_mnist_00_softmax_train.pbtxt", batch, {"Mean"},
                {"GradientDescent"}, {"init"}),
          Model("model_dl4j_mlp", "dl4j_mlp_00_frozen.pb", batch, {"output"}),
          Model("model_lvfengkun_mlp", "lvfengkun_mnist_mlp_frozen.pb", batch, {"Identity"}),
          Model("model_cppflow_mlp", "cppflow_mlp_frozen.pb", batch, {"Identity"})};
}

std::vector<Contraction> Contractions() {
  std::vector<Contraction> all;
  for (const int64_t b : {100, 8192}) {
    all.push_back({.label = "x.W", .m = b, .k = 784, .n = 10, .size = b});
    all.push_back({.label = "xT.dy", .m = 784, .k = b, .n = 10, .transpose_a = true, .size = b});
    all.push_back({.label = "dy.WT", .m = b, .k = 10, .n = 784, .transpose_b = true, .size = b});
  }
  for (const int64_t side : {256, 512, 1024}) {
    all.push_back({.label = "square", .m = side, .k = side, .n = side, .size = side});
  }
  return all;
}

absl::StatusOr<std::vector<Tensor>> Reference(const Workload& w, const Feeds& feeds) {
  DFC_ASSIGN_OR_RETURN(Graph graph, w.graph());
  reference::Session session(std::make_shared<const Graph>(std::move(graph)));
  if (!w.init.empty()) DFC_RETURN_IF_ERROR(session.Run({}, {}, w.init).status());
  return session.Run(feeds, w.fetches, w.targets);
}

}  // namespace dfc::workloads

#include "tests/workloads.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "graph/check.h"
#include "graph/loader.h"
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
    return Feeds{{"in1", testing::UniformFloats({n, classes}, 1, -1.0f, 1.0f)},
                 {"in2", testing::UniformFloats({n, features}, 2, -1.0f, 1.0f)},
                 {"in3", testing::UniformFloats({features, classes}, 3, -0.05f, 0.05f)},
                 {"in4", testing::UniformFloats({classes}, 4, -0.1f, 0.1f)}};
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
    return Feeds{{"a", testing::UniformFloats({a_rows, a_cols}, 5, -1.0f, 1.0f)},
                 {"b", testing::UniformFloats({b_rows, b_cols}, 6, -1.0f, 1.0f)}};
  };
  w.fetches = {"c"};
  w.flops = 2.0 * c.m * c.k * c.n;
  w.bytes = 4.0 * (c.m * c.k + c.k * c.n + c.m * c.n);
  w.longest_reduction = c.k;
  return w;
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
  std::vector<reference::Feed> reference_feeds;
  for (const auto& [name, value] : feeds) reference_feeds.push_back({name, value});
  return session.Run(reference_feeds, w.fetches);
}

}  // namespace dfc::workloads

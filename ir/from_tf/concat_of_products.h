// A Concat of products of one matrix by slices of another, translated as one product:
//
//   Concat_{-1}(Reshape?(BiasAdd?(MatMul(A, W[:, c_k]), b[c_k])) for k = 1..n)
//     = Reshape?(BiasAdd?(MatMul(A, W), b))
//
// when the column ranges c_1, ..., c_n are W's columns in order, each once (b's likewise), and
// every A is the same value. TF1's Keras LSTM and GRU cells slice their kernel per gate and
// concatenate the gates' projections; as n narrow products joined by a Concat that selects
// between them per element, the kernel was a scalar dot product per output that no GEMM
// schedule applies to, where one product of the whole kernel is a contraction like any other.
#ifndef DFC_IR_FROM_TF_CONCAT_OF_PRODUCTS_H_
#define DFC_IR_FROM_TF_CONCAT_OF_PRODUCTS_H_

#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "graph/fold.h"
#include "graph/graph.h"
#include "graph/node.h"
#include "ir/expr.h"

namespace dfc::ir {

// The one product a ConcatV2 node stands for, in graph terms.
struct ConcatOfProducts {
  const Node* matmul = nullptr;    // the first operand's MatMul (its attributes serve all)
  const Node* bias_add = nullptr;  // the first operand's BiasAdd, if the operands have one
  TensorId a;                      // the left matrix, the first operand's
  TensorId w;                      // the matrix whose slices the operands multiply by
  std::optional<TensorId> b;       // the vector whose slices they add
  bool reshaped = false;           // whether each operand is a Reshape of its sum
};

// Whether `concat` is such a Concat inside a cluster (`inside` its node names), whose every
// intermediate value (`uses`: how often each is read in the cluster or out of it) only it
// reads, so that leaving the operands' own products unread computes nothing twice.
std::optional<ConcatOfProducts> MatchConcatOfProducts(
    const Graph& graph, const Node& concat, const FoldResult& fold,
    const absl::flat_hash_set<std::string>& inside, const absl::flat_hash_map<TensorId, int>& uses);

// The Concat's value: the translations of MatMul, BiasAdd and Reshape applied to `values`' A,
// W and b, under the Concat's name (errors name it).
absl::StatusOr<ExprPtr> TranslateConcatOfProducts(
    const Node& concat, const ConcatOfProducts& match, const FoldResult& fold, const Graph& graph,
    const absl::flat_hash_map<TensorId, ExprPtr>& values);

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_CONCAT_OF_PRODUCTS_H_

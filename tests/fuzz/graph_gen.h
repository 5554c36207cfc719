// Random valid TensorFlow graphs made from a fuzzer's bytes: the structure-aware half of the
// differential fuzzer (fuzz_targets.h's GraphDiff). The bytes are read as a sequence of
// choices (which op, which operand, which shape, which axes), so that libFuzzer's mutations of
// the bytes become small edits of a graph that is still valid, rather than a GraphDef the
// loader refuses at its first byte.
//
// The graphs use the float32 ops of ../shared/OPS.md that are continuous in their inputs
// (comparisons, Floor, Sign... are left out: an ulp of difference between two correct
// implementations would flip them), with random shapes, broadcasts, zero-size dimensions and
// placeholders whose first dimension is declared unknown, and the convolutions, pools and batch
// norms of image models on values reshaped to NHWC, and the tail table's smooth math (the
// special functions, Xdivy Xlogy Xlog1py, ClipByValue). Its bitwise ops, exact on every
// executor, run on integer placeholders of every integer dtype in a side chain that is masked
// to a byte, cast to float32 and added in. (ApproximateEqual, Bucketize and FakeQuant, like
// comparisons, are left out: an ulp of difference upstream flips them.) Ops with a restricted
// domain get an operand made valid first (Log of Abs(x) + 0.5), and a value that could grow
// past 1e4 goes through Tanh, so that every result is finite and well conditioned and two
// correct implementations agree within the tolerance GraphDiff states.
#ifndef DFC_TESTS_FUZZ_GRAPH_GEN_H_
#define DFC_TESTS_FUZZ_GRAPH_GEN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/feed.h"
#include "graph/tensor.h"

namespace dfc::fuzz {

// Choices read from bytes, each from the front of what is left. When the bytes run out every
// choice is its first option, so any input (the empty one included) makes a graph.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // A number in [0, n), n >= 1.
  int Below(int n);
  bool OneIn(int n) { return Below(n) == 0; }
  template <typename T>
  const T& Pick(const std::vector<T>& options) {
    return options[Below(static_cast<int>(options.size()))];
  }
  // Eight bytes, for a random number generator that fills tensors.
  uint64_t Seed();

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

struct GeneratedNode {
  std::string name;
  std::vector<std::string> inputs;  // its data inputs (a node's name: every output is :0)
};

struct GeneratedGraph {
  std::string text;                  // the GraphDef in text format
  std::vector<Feed> feeds;           // a value for every placeholder
  std::vector<std::string> fetches;  // the tensors to compare
  std::vector<GeneratedNode> nodes;  // every node, inputs before readers
};

GeneratedGraph GenerateGraph(Choices& choices);

}  // namespace dfc::fuzz

#endif  // DFC_TESTS_FUZZ_GRAPH_GEN_H_

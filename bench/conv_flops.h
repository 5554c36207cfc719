// The floating-point work of a graph's convolutions: 2 x the multiply-adds of every Conv2D,
// DepthwiseConv2dNative, Conv2DBackpropInput and Conv2DBackpropFilter a run computes, from the
// shapes the translation infers for its feeds. cnn_bench reports its CNNs' GFLOP/s and their
// fraction of the machine's FMA peak from it. Only the convolutions: they are nearly all of a
// CNN's arithmetic, and the part whose speed a CPU's FMA peak bounds (pools, biases and
// activations are bounded by memory).
#ifndef DFC_BENCH_CONV_FLOPS_H_
#define DFC_BENCH_CONV_FLOPS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/status.h"
#include "graph/feed.h"
#include "graph/graph.h"
#include "runtime/size_bindings.h"
#include "runtime/translate_for_feeds.h"

namespace dfc::bench {

struct ConvNode {
  std::vector<int64_t> filter;
  double flops = 0;
};

struct ConvWork {
  double flops = 0;      // 2 x multiply-adds
  int convolutions = 0;  // the Conv2D and DepthwiseConv2dNative nodes counted
  // Each counted node: its filter, [kh, kw, in, out] (a depthwise one's out: its multiplier),
  // and its flops.
  std::map<std::string, ConvNode> nodes;
};

// The convolutions that a run of `graph` fetching `fetches` and running `targets` from `feeds`
// computes. Each forward output element is one window's dot product: kh x kw x in_channels
// multiply-adds for Conv2D (filter [kh, kw, in, out]), kh x kw for DepthwiseConv2dNative (filter
// [kh, kw, in, multiplier]: each output channel reads one input channel), whatever the data
// format. Each of a Conv2D's gradients does its forward's multiply-adds: every element of the
// output gradient (input 2, [N, out_h, out_w, out]) meets kh x kw x in filter taps, the filter
// input 1 of Conv2DBackpropInput and the output of Conv2DBackpropFilter.
inline absl::StatusOr<ConvWork> ConvolutionWork(const Graph& graph,
                                                const std::vector<TensorId>& fetches,
                                                const std::vector<Feed>& feeds,
                                                const std::vector<std::string>& targets = {}) {
  DFC_ASSIGN_OR_RETURN(const ir::TranslatedGraph translated,
                       TranslateForFeeds(graph, fetches, feeds, targets));
  DFC_ASSIGN_OR_RETURN(const SizeBindings sizes, BindSizes(translated, feeds));
  ConvWork work;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = graph.nodes()[i];
    const bool depthwise = node.op == "DepthwiseConv2dNative";
    const bool input_grad = node.op == "Conv2DBackpropInput";
    const bool filter_grad = node.op == "Conv2DBackpropFilter";
    if (node.op != "Conv2D" && !depthwise && !input_grad && !filter_grad) continue;
    if (translated.fold.info[i].empty()) continue;  // not needed by the fetches
    const TensorInfo& output = translated.fold.info[i][0];
    // Each multiply-add's count: the elements met, and the filter whose taps each one meets.
    const TensorInfo& elements =
        input_grad || filter_grad ? translated.fold.Info(graph, node.inputs[2]) : output;
    const TensorInfo& filter = filter_grad ? output : translated.fold.Info(graph, node.inputs[1]);
    if (!elements.shape || !filter.shape || filter.shape->size() != 4) {
      return node.Error("the shapes of its output and 4-d filter are not known at compile time");
    }
    DFC_ASSIGN_OR_RETURN(const std::vector<int64_t> out, EvaluateShape(*elements.shape, sizes));
    DFC_ASSIGN_OR_RETURN(const std::vector<int64_t> f, EvaluateShape(*filter.shape, sizes));
    double outputs = 1;
    for (const int64_t d : out) outputs *= static_cast<double>(d);
    const double window = static_cast<double>(f[0] * f[1] * (depthwise ? 1 : f[2]));
    work.flops += 2 * outputs * window;
    work.nodes[node.name] = {.filter = f, .flops = 2 * outputs * window};
    ++work.convolutions;
  }
  return work;
}

}  // namespace dfc::bench

#endif  // DFC_BENCH_CONV_FLOPS_H_

// Estimates of the work in a cluster and in each of its nodes, at bound sizes: the bytes a
// kernel must read and write, and its floating-point operations. `dfc bench` reports GB/s and
// GFLOP/s from them, and the profiler shares a fused kernel's time among its nodes by them.
#ifndef DFC_RUNTIME_WORK_ESTIMATE_H_
#define DFC_RUNTIME_WORK_ESTIMATE_H_

#include <cstdint>

#include "graph/arith.h"
#include "graph/graph.h"
#include "ir/from_tf/cluster.h"

namespace dfc {

// The bytes of the cluster's parameters and outputs: what a kernel that reads each input once
// and writes each output once moves.
int64_t ClusterBytes(const ir::TranslatedCluster& cluster, const SizeBindings& sizes);

// An estimate of a node's floating-point operations: 2·M·N·K for a MatMul, one per output
// element of any other node (0 where its shape is unknown).
int64_t NodeFlops(const Graph& graph, const ir::TranslatedGraph& translated, const Node& node,
                  const SizeBindings& sizes);

// The bytes of a node's first output.
int64_t NodeOutputBytes(const Graph& graph, const ir::TranslatedGraph& translated, const Node& node,
                        const SizeBindings& sizes);

// The sum of NodeFlops over cluster `c`'s nodes.
int64_t ClusterFlops(const Graph& graph, const ir::TranslatedGraph& translated, int c,
                     const SizeBindings& sizes);

}  // namespace dfc

#endif  // DFC_RUNTIME_WORK_ESTIMATE_H_

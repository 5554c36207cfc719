// What holds an end-to-end run back, for RESULTS.md's missed targets: one run of a workload
// profiled (runtime/profiler), its kernels grouped by what their heaviest graph node computes
// (its op and, for a convolution, its window), and of the group with the most device time its
// largest kernel, its number of kernels, its share of the kernel time and its GFLOP/s; and the
// share of the run's host time the device was busy at all. cnn_bench and peer_bench profile one
// run per workload and batch after timing it, and write what they found to DFC_BENCH_HELD_BACK
// (bench/peer sets it) as
//
//   {"held_back": [{"workload", "batch", "kernel", "kernels", "kernel_ms", "kernel_share",
//                   "gflops", "node", "op", "window", "run_ms", "device_busy_ms"}, ...]}
//
// which bench/report reads beside the benchmarks' JSON and matches to a missed target by
// workload and batch.
#ifndef DFC_BENCH_HELD_BACK_H_
#define DFC_BENCH_HELD_BACK_H_

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "bench/conv_flops.h"
#include "graph/graph.h"
#include "nlohmann/json.hpp"
#include "runtime/profiler/profiler.h"
#include "runtime/profiler/report.h"

namespace dfc::bench {

struct HeldBack {
  std::string workload;
  int64_t batch = 0;
  // The kernels whose heaviest node computes the same op over the same window, the group with the
  // most device time in the run: the largest of them, their number, time and share.
  std::string kernel;
  int kernels = 0;
  double kernel_ms = 0;       // their device time, all their calls
  double kernel_share = 0;    // of the run's kernel time
  double gflops = 0;          // their graph nodes' operations over their time; 0 where unknown
  std::string node;           // the largest kernel's heaviest node (HeaviestNode)
  std::string op;             // that node's op
  std::string window;         // a convolution's window, "3x3" (Window)
  double run_ms = 0;          // the run's host time
  double device_busy_ms = 0;  // the union of the device's intervals in it
};

// A kernel's heaviest node. A kernel names every node of its cluster, one of the several kernels
// a cluster may run (runtime/device_run.cc), so of the convolutions (`convolutions`, with their
// flops) the one whose flops are nearest the kernel's own operations; failing those, a MatMul;
// failing that, the node with the most estimated work.
inline std::string HeaviestNode(const profiler::DeviceEventInfo& info, const Graph& graph,
                                const std::map<std::string, ConvNode>& convolutions) {
  std::string nearest, product, heaviest;
  double nearest_gap = std::numeric_limits<double>::infinity(), most = -1;
  for (size_t k = 0; k < info.nodes.size(); ++k) {
    const std::string& name = info.nodes[k];
    const double work = k < info.node_work.size() ? info.node_work[k] : 0;
    if (work > most) {
      most = work;
      heaviest = name;
    }
    if (auto it = convolutions.find(name); it != convolutions.end()) {
      if (std::abs(it->second.flops - info.flops) < nearest_gap) {
        nearest_gap = std::abs(it->second.flops - info.flops);
        nearest = name;
      }
    }
    const Node* node = graph.FindNode(name);
    if (product.empty() && node != nullptr &&
        (node->op == "MatMul" || node->op.starts_with("BatchMatMul"))) {
      product = name;
    }
  }
  return !nearest.empty() ? nearest : !product.empty() ? product : heaviest;
}

// A convolution's window, "3x3": what groups its kernels. Its channels are not: a CNN's stages
// halve the positions as they double the channels, so that their convolutions' flops, all a
// kernel says of what it computes, cannot tell them apart.
inline std::string Window(const ConvNode& conv) {
  return conv.filter.size() >= 2 ? absl::StrCat(conv.filter[0], "x", conv.filter[1]) : "";
}

// `calls` calls of `run` profiled on the host and device, stopping at the first that fails, and
// the profiler's report of them.
struct Profiled {
  profiler::Profile profile;
  profiler::Report report;
};
inline absl::StatusOr<Profiled> ProfileCalls(const std::function<absl::Status()>& run, int calls) {
  profiler::SetState(profiler::State::kHostAndDevice);
  absl::Status ran;
  for (int k = 0; k < calls && ran.ok(); ++k) ran = run();
  profiler::SetState(profiler::State::kDisabled);
  DFC_ASSIGN_OR_RETURN(profiler::Profile profile, profiler::Collect());
  DFC_RETURN_IF_ERROR(ran);
  DFC_ASSIGN_OR_RETURN(profiler::Report report, profiler::BuildReport(profile));
  return Profiled{std::move(profile), std::move(report)};
}

// Profiles one call of `run` on the host and device. Kernels are grouped by what their heaviest
// node computes (its op and window: a ResNet's 3x3 convolutions are one group), and the group
// with the most device time is what holds the run back.
inline absl::StatusOr<HeldBack> ProfileHeldBack(std::string workload, int64_t batch,
                                                const Graph& graph,
                                                const std::map<std::string, ConvNode>& convolutions,
                                                const std::function<absl::Status()>& run) {
  const auto spanned = [&] {
    profiler::RecordEvent span("run");
    return run();
  };
  DFC_ASSIGN_OR_RETURN(const Profiled profiled, ProfileCalls(spanned, 1));
  const profiler::Profile& profile = profiled.profile;
  const profiler::Report& report = profiled.report;
  HeldBack h{.workload = std::move(workload),
             .batch = batch,
             .run_ms = report.summary.host_ms,
             .device_busy_ms = report.summary.device_busy_ms};
  std::map<std::string, std::string> heaviest;  // kernel -> its heaviest node
  for (const profiler::DeviceEvent& e : profile.device) {
    if (e.info.kind == profiler::DeviceEventKind::kKernel && !heaviest.contains(e.info.name)) {
      heaviest[e.info.name] = HeaviestNode(e.info, graph, convolutions);
    }
  }
  struct Group {
    double ms = 0, gflop = 0;
    const profiler::ReportRow* largest = nullptr;
    int kernels = 0;
  };
  std::map<std::string, Group> groups;
  double kernels_ms = 0;
  for (const profiler::ReportRow& row : report.rows) {
    if (row.category != "kernel") continue;
    kernels_ms += row.total_ms;
    const Node* node = graph.FindNode(heaviest[row.name]);
    const auto conv = node != nullptr ? convolutions.find(node->name) : convolutions.end();
    const std::string key =
        node == nullptr
            ? row.name
            : absl::StrCat(node->op, " ", conv != convolutions.end() ? Window(conv->second) : "");
    Group& g = groups[key];
    g.ms += row.total_ms;
    g.gflop += row.gflops * row.total_ms * 1e-3;
    ++g.kernels;
    if (g.largest == nullptr || row.total_ms > g.largest->total_ms) g.largest = &row;
  }
  const Group* top = nullptr;
  for (const auto& [key, g] : groups) {
    if (top == nullptr || g.ms > top->ms) top = &g;
  }
  if (top == nullptr) return h;  // no kernel ran: the run is the host's
  h.kernel = top->largest->name;
  h.kernels = top->kernels;
  h.kernel_ms = top->ms;
  h.kernel_share = kernels_ms > 0 ? top->ms / kernels_ms : 0;
  h.gflops = top->ms > 0 ? top->gflop / (top->ms * 1e-3) : 0;
  h.node = heaviest[h.kernel];
  if (const Node* node = graph.FindNode(h.node); node != nullptr) h.op = node->op;
  if (auto it = convolutions.find(h.node); it != convolutions.end()) {
    h.window = Window(it->second);
  }
  return h;
}

// A run's host time not covered by device work, in µs, as the profiler's report gives it
// ("host overhead ... a run"): the mean over `runs` calls of `run`, each profiled, after one
// profiled call left out (the first makes the queues that record event times).
inline absl::StatusOr<double> MeasureHostOverhead(const std::function<absl::Status()>& run,
                                                  int runs) {
  DFC_RETURN_IF_ERROR(ProfileCalls(run, 1).status());
  DFC_ASSIGN_OR_RETURN(const Profiled profiled, ProfileCalls(run, runs));
  const profiler::ReportSummary& summary = profiled.report.summary;
  if (summary.runs <= 0) return absl::InternalError("the profile holds no run");
  return summary.run_overhead_ms * 1e3 / static_cast<double>(summary.runs);
}

// What the program's workloads were held back by, in the order they were profiled.
inline std::vector<HeldBack>& HeldBackRecords() {
  static auto* records = new std::vector<HeldBack>;
  return *records;
}

// Profiles `run` for `workload` at `batch` unless DFC_BENCH_HELD_BACK is unset or it was done
// before (Google Benchmark calls a benchmark once per repetition). A failure is the benchmark's.
inline absl::Status RecordHeldBack(const std::string& workload, int64_t batch, const Graph& graph,
                                   const std::map<std::string, ConvNode>& convolutions,
                                   const std::function<absl::Status()>& run) {
  if (std::getenv("DFC_BENCH_HELD_BACK") == nullptr) return absl::OkStatus();
  for (const HeldBack& h : HeldBackRecords()) {
    if (h.workload == workload && h.batch == batch) return absl::OkStatus();
  }
  DFC_ASSIGN_OR_RETURN(HeldBack h, ProfileHeldBack(workload, batch, graph, convolutions, run));
  HeldBackRecords().push_back(std::move(h));
  return absl::OkStatus();
}

// Writes the records to DFC_BENCH_HELD_BACK, if set; false if it cannot be written.
inline bool WriteHeldBack() {
  const char* path = std::getenv("DFC_BENCH_HELD_BACK");
  if (path == nullptr) return true;
  nlohmann::json rows = nlohmann::json::array();
  for (const HeldBack& h : HeldBackRecords()) {
    rows.push_back({{"workload", h.workload},
                    {"batch", h.batch},
                    {"kernel", h.kernel},
                    {"kernels", h.kernels},
                    {"kernel_ms", h.kernel_ms},
                    {"kernel_share", h.kernel_share},
                    {"gflops", h.gflops},
                    {"node", h.node},
                    {"op", h.op},
                    {"window", h.window},
                    {"run_ms", h.run_ms},
                    {"device_busy_ms", h.device_busy_ms}});
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << nlohmann::json{{"held_back", rows}}.dump(1) << "\n";
  return static_cast<bool>(out);
}

}  // namespace dfc::bench

#endif  // DFC_BENCH_HELD_BACK_H_

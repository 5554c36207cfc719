// The profiler's report, as PaddlePaddle's: one row per event name — kernel, transfer, host
// span, mark — with Calls, Total, Min, Max, Ave and Ratio, plus for kernels the device time's
// GB/s, GFLOP/s, fraction of the bandwidth floor and the work its code does over its graph
// nodes' (above 1 where it computes a value again for each read); rows per graph node on
// request; and a summary of host, device, transfer and idle device time, and of each run's
// host time not covered by device work.
#ifndef DFC_RUNTIME_PROFILER_REPORT_H_
#define DFC_RUNTIME_PROFILER_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/profiler/profiler.h"

namespace dfc::profiler {

struct ReportRow {
  std::string category;  // "kernel", "transfer", "span", "mark" or "node"
  std::string name;
  int64_t calls = 0;
  double total_ms = 0, min_ms = 0, max_ms = 0, ave_ms = 0;
  double ratio = 0;  // total over the total of its category
  // Kernels (and transfers, for GB/s): 0 where unknown.
  double gbps = 0, gflops = 0;
  double floor_fraction = 0;  // ave over the time the bytes take at the read bandwidth
  // Generated kernels: the operations their code performs over those of their graph nodes
  // (DeviceEventInfo::work over flops), each at least what the kernel's stores are worth
  // (store_work), so that a few operations repeated in a kernel bound by its memory traffic
  // do not count as recomputation; 0 where either is unknown.
  double work_ratio = 0;
  std::vector<std::string> nodes;  // kernels: the graph nodes fused into it
};

struct ReportSummary {
  double wall_ms = 0;         // from the first event to the last
  double host_ms = 0;         // the outermost spans, summed over threads
  double kernel_ms = 0;       // device time in kernels
  double transfer_ms = 0;     // device time in transfers
  double device_busy_ms = 0;  // the union of the device's intervals
  double device_idle_ms = 0;  // wall minus busy
  // Runs: the host spans named ReportOptions::run_span. A run's host overhead is its length
  // less the device's busy time within it: launches, copies, hand-offs to the device's threads,
  // waits and the runtime's own work, which a run pays whatever its kernels cost.
  int64_t runs = 0;
  double run_ms = 0;               // summed over the runs
  double run_overhead_ms = 0;      // summed over the runs
  double run_overhead_min_ms = 0;  // the least of one run
};

struct Report {
  std::vector<ReportRow> rows;
  ReportSummary summary;
  std::vector<std::string> notes;
};

struct ReportOptions {
  // calls, total, min, max, ave, ratio, gbps, gflops, floor, work (descending) or name
  // (ascending).
  std::string sort_by = "total";
  // Adds a row per graph node: each kernel's time shared among the nodes fused into it by
  // their estimated work (DeviceEventInfo::node_work; equal shares where it is not given).
  bool by_node = false;
  double read_bandwidth_gbps = 0;  // for the floor fraction; 0: not shown
  // The host span each run of a graph is (dfc's executor records one named "run").
  std::string run_span = "run";
};

// A kernel whose code does more than this many times its graph nodes' operations is named in
// a note: it recomputes what it reads (a fusion that multiplies work).
inline constexpr double kRecomputationNoted = 1.5;

// Fails on an unknown sort column, naming the ones there are.
absl::StatusOr<Report> BuildReport(const Profile& profile, const ReportOptions& options = {});

// The report as text tables, one per category.
std::string FormatReport(const Report& report);

// The report as JSON text: {"summary": {wall_ms, host_ms, kernel_ms, transfer_ms,
// device_busy_ms, device_idle_ms, runs, run_ms, run_overhead_ms, run_overhead_min_ms}, "rows":
// [ReportRow's fields: category, name, calls, total_ms, min_ms, max_ms, ave_ms, ratio, gbps,
// gflops, floor, work, nodes], "notes": [...]}.
std::string ReportJson(const Report& report);

}  // namespace dfc::profiler

#endif  // DFC_RUNTIME_PROFILER_REPORT_H_

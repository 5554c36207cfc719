// The profiler's report (see report.h).
#include "runtime/profiler/report.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace dfc::profiler {
namespace {

double Ms(int64_t ns) { return static_cast<double>(ns) * 1e-6; }

// Accumulates rows keyed by (category, name), in the order first seen.
class Rows {
 public:
  ReportRow& At(const std::string& category, const std::string& name) {
    auto [it, fresh] = index_.try_emplace({category, name}, rows_.size());
    if (fresh) {
      rows_.push_back({.category = category, .name = name});
      rows_.back().min_ms = std::numeric_limits<double>::infinity();
    }
    return rows_[it->second];
  }
  void Add(const std::string& category, const std::string& name, double ms) {
    ReportRow& r = At(category, name);
    ++r.calls;
    r.total_ms += ms;
    r.min_ms = std::min(r.min_ms, ms);
    r.max_ms = std::max(r.max_ms, ms);
  }
  std::vector<ReportRow> Take() { return std::move(rows_); }

 private:
  std::map<std::pair<std::string, std::string>, size_t> index_;
  std::vector<ReportRow> rows_;
};

// The disjoint, sorted intervals covering the same time as `intervals`.
std::vector<std::pair<int64_t, int64_t>> Merged(
    std::vector<std::pair<int64_t, int64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (const auto& [s, e] : intervals) {
    if (!merged.empty() && s <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, e);
    } else if (e > s) {
      merged.emplace_back(s, e);
    }
  }
  return merged;
}

// How much of [start, end) the disjoint sorted intervals `merged` cover.
int64_t CoveredWithin(const std::vector<std::pair<int64_t, int64_t>>& merged, int64_t start,
                      int64_t end) {
  auto it = std::lower_bound(merged.begin(), merged.end(), start,
                             [](const auto& interval, int64_t t) { return interval.second <= t; });
  int64_t covered = 0;
  for (; it != merged.end() && it->first < end; ++it) {
    covered += std::min(end, it->second) - std::max(start, it->first);
  }
  return covered;
}

const std::map<std::string, std::function<double(const ReportRow&)>>& SortKeys() {
  static const auto* keys = new std::map<std::string, std::function<double(const ReportRow&)>>{
      {"calls", [](const ReportRow& r) { return static_cast<double>(r.calls); }},
      {"total", [](const ReportRow& r) { return r.total_ms; }},
      {"min", [](const ReportRow& r) { return r.min_ms; }},
      {"max", [](const ReportRow& r) { return r.max_ms; }},
      {"ave", [](const ReportRow& r) { return r.ave_ms; }},
      {"ratio", [](const ReportRow& r) { return r.ratio; }},
      {"gbps", [](const ReportRow& r) { return r.gbps; }},
      {"gflops", [](const ReportRow& r) { return r.gflops; }},
      {"floor", [](const ReportRow& r) { return r.floor_fraction; }},
      {"work", [](const ReportRow& r) { return r.work_ratio; }},
  };
  return *keys;
}

}  // namespace

absl::StatusOr<Report> BuildReport(const Profile& profile, const ReportOptions& options) {
  const auto& keys = SortKeys();
  if (options.sort_by != "name" && !keys.contains(options.sort_by)) {
    std::vector<std::string> names = {"name"};
    for (const auto& [k, f] : keys) names.push_back(k);
    return absl::InvalidArgumentError(absl::StrCat("cannot sort the report by \"", options.sort_by,
                                                   "\": the columns are ",
                                                   absl::StrJoin(names, ", ")));
  }
  Report report;
  Rows rows;
  // Per kernel or transfer name, summed.
  std::map<std::string, double> bytes, flops, work, store_work;
  int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (const HostEvent& e : profile.host) {
    first = std::min(first, e.start_ns);
    last = std::max(last, e.end_ns);
    if (e.kind == HostEvent::Kind::kMark) {
      rows.Add("mark", e.name, 0);
      continue;
    }
    rows.Add("span", e.name, Ms(e.end_ns - e.start_ns));
    if (e.depth == 0) report.summary.host_ms += Ms(e.end_ns - e.start_ns);
  }
  bool estimated = false;
  for (const DeviceEvent& d : profile.device) {
    first = std::min(first, d.start_ns);
    last = std::max(last, d.end_ns);
    busy.emplace_back(d.start_ns, d.end_ns);
    const double ms = Ms(d.end_ns - d.start_ns);
    const bool kernel = d.info.kind == DeviceEventKind::kKernel;
    const std::string category = kernel ? "kernel" : "transfer";
    const std::string name =
        kernel ? d.info.name
               : absl::StrCat(d.info.name, " (", DirectionName(d.info.direction), ")");
    rows.Add(category, name, ms);
    bytes[category + name] += static_cast<double>(d.info.bytes);
    flops[category + name] += d.info.flops;
    work[category + name] += d.info.work;
    store_work[category + name] += d.info.store_work;
    (kernel ? report.summary.kernel_ms : report.summary.transfer_ms) += ms;
    if (kernel) {
      ReportRow& row = rows.At(category, name);
      if (row.nodes.empty()) row.nodes = d.info.nodes;
    }
    if (!options.by_node || !kernel || d.info.nodes.empty()) continue;
    const size_t n = d.info.nodes.size();
    const bool weighted = d.info.node_work.size() == n;
    double work = 0;
    for (size_t k = 0; weighted && k < n; ++k) work += d.info.node_work[k];
    for (size_t k = 0; k < n; ++k) {
      const double share = weighted && work > 0 ? d.info.node_work[k] / work : 1.0 / n;
      rows.Add("node", d.info.nodes[k], ms * share);
    }
    estimated = estimated || n > 1;
  }
  if (profile.host.empty() && profile.device.empty()) first = last = 0;

  report.rows = rows.Take();
  std::map<std::string, double> category_total;
  for (const ReportRow& r : report.rows) category_total[r.category] += r.total_ms;
  for (ReportRow& r : report.rows) {
    r.ave_ms = r.calls > 0 ? r.total_ms / r.calls : 0;
    if (r.min_ms == std::numeric_limits<double>::infinity()) r.min_ms = 0;
    const double total = category_total[r.category];
    r.ratio = total > 0 ? r.total_ms / total : 0;
    if (r.category != "kernel" && r.category != "transfer") continue;
    const double b = bytes[r.category + r.name], f = flops[r.category + r.name];
    const double seconds = r.total_ms * 1e-3;
    if (seconds > 0) {
      r.gbps = b / seconds * 1e-9;
      r.gflops = f / seconds * 1e-9;
    }
    if (r.category == "kernel" && options.read_bandwidth_gbps > 0 && b > 0) {
      const double floor_ms = b / r.calls / (options.read_bandwidth_gbps * 1e9) * 1e3;
      r.floor_fraction = r.ave_ms / floor_ms;
    }
    if (const double w = work[r.category + r.name]; r.category == "kernel" && w > 0 && f > 0) {
      // Over the kernel's floor: its graph nodes' operations, or its stores' worth where more.
      const double s = store_work[r.category + r.name];
      r.work_ratio = std::max(w, s) / std::max(f, s);
    }
  }
  std::vector<const ReportRow*> recomputing;
  for (const ReportRow& r : report.rows) {
    if (r.work_ratio > kRecomputationNoted) recomputing.push_back(&r);
  }
  std::sort(recomputing.begin(), recomputing.end(),
            [](const ReportRow* a, const ReportRow* b) { return a->total_ms > b->total_ms; });
  for (const ReportRow* r : recomputing) {
    report.notes.push_back(absl::StrFormat(
        "%s does %.1fx the operations of its graph nodes (or of what its stores are worth, "
        "where more): it computes values again where it reads them (%.1f%% of kernel time)",
        r->name, r->work_ratio, 100 * r->ratio));
  }
  const std::string& key = options.sort_by;
  std::stable_sort(report.rows.begin(), report.rows.end(),
                   [&](const ReportRow& a, const ReportRow& b) {
                     if (a.category != b.category) return a.category < b.category;
                     if (key == "name") return a.name < b.name;
                     return keys.at(key)(a) > keys.at(key)(b);
                   });

  report.summary.wall_ms = Ms(last - first);
  const std::vector<std::pair<int64_t, int64_t>> merged = Merged(std::move(busy));
  int64_t busy_ns = 0;
  for (const auto& [s, e] : merged) busy_ns += e - s;
  report.summary.device_busy_ms = Ms(busy_ns);
  int64_t least_overhead = std::numeric_limits<int64_t>::max();
  for (const HostEvent& e : profile.host) {
    if (e.kind != HostEvent::Kind::kSpan || e.name != options.run_span) continue;
    const int64_t overhead = e.end_ns - e.start_ns - CoveredWithin(merged, e.start_ns, e.end_ns);
    ++report.summary.runs;
    report.summary.run_ms += Ms(e.end_ns - e.start_ns);
    report.summary.run_overhead_ms += Ms(overhead);
    least_overhead = std::min(least_overhead, overhead);
  }
  if (report.summary.runs > 0) report.summary.run_overhead_min_ms = Ms(least_overhead);
  report.summary.device_idle_ms =
      std::max(0.0, report.summary.wall_ms - report.summary.device_busy_ms);
  if (estimated) {
    report.notes.push_back(
        "node rows share each fused kernel's time among its nodes by an estimate of their work "
        "(flops and bytes); the kernel row is the measured whole");
  }
  if (profile.dropped > 0) {
    report.notes.push_back(absl::StrCat(profile.dropped, " events were dropped: the cap of ",
                                        profile.cap, " events was reached"));
  }
  for (const DeviceEvent& d : profile.device) {
    if (d.error.empty()) continue;
    report.notes.push_back(absl::StrCat(d.info.name, ": ", d.error));
    break;
  }
  return report;
}

std::string ReportJson(const Report& report) {
  using nlohmann::json;
  json rows = json::array();
  for (const ReportRow& r : report.rows) {
    rows.push_back({{"category", r.category},
                    {"name", r.name},
                    {"calls", r.calls},
                    {"total_ms", r.total_ms},
                    {"min_ms", r.min_ms},
                    {"max_ms", r.max_ms},
                    {"ave_ms", r.ave_ms},
                    {"ratio", r.ratio},
                    {"gbps", r.gbps},
                    {"gflops", r.gflops},
                    {"floor", r.floor_fraction},
                    {"work", r.work_ratio},
                    {"nodes", r.nodes}});
  }
  const ReportSummary& s = report.summary;
  const json out = {{"rows", std::move(rows)},
                    {"notes", report.notes},
                    {"summary",
                     {{"wall_ms", s.wall_ms},
                      {"host_ms", s.host_ms},
                      {"kernel_ms", s.kernel_ms},
                      {"transfer_ms", s.transfer_ms},
                      {"device_busy_ms", s.device_busy_ms},
                      {"device_idle_ms", s.device_idle_ms},
                      {"runs", s.runs},
                      {"run_ms", s.run_ms},
                      {"run_overhead_ms", s.run_overhead_ms},
                      {"run_overhead_min_ms", s.run_overhead_min_ms}}}};
  // Node names come from user files and need not be UTF-8: invalid bytes become U+FFFD.
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string FormatReport(const Report& report) {
  std::string out;
  const ReportSummary& s = report.summary;
  absl::StrAppendFormat(&out,
                        "Summary: wall %.3f ms, host %.3f ms, device busy %.3f ms (kernels %.3f "
                        "ms, transfers %.3f ms), device idle %.3f ms\n",
                        s.wall_ms, s.host_ms, s.device_busy_ms, s.kernel_ms, s.transfer_ms,
                        s.device_idle_ms);
  if (s.runs > 0) {
    const auto runs = static_cast<double>(s.runs);
    absl::StrAppendFormat(&out,
                          "Runs: %d, %.3f ms each; host overhead (a run's time not covered by "
                          "device work) %.1f us a run, %.1f us the least\n",
                          s.runs, s.run_ms / runs, s.run_overhead_ms * 1e3 / runs,
                          s.run_overhead_min_ms * 1e3);
  }
  std::string category;
  for (const ReportRow& r : report.rows) {
    if (r.category != category) {
      category = r.category;
      absl::StrAppendFormat(&out, "\n%-40s %8s %12s %10s %10s %10s %7s", category, "Calls",
                            "Total(ms)", "Min(ms)", "Max(ms)", "Ave(ms)", "Ratio");
      if (category == "kernel" || category == "transfer") {
        absl::StrAppendFormat(&out, " %9s %9s %7s %7s  %s", "GB/s", "GFLOP/s", "floor×", "work×",
                              category == "kernel" ? "nodes" : "");
      }
      out += "\n";
    }
    std::string name = r.name.size() > 40 ? r.name.substr(0, 37) + "..." : r.name;
    absl::StrAppendFormat(&out, "%-40s %8d %12.3f %10.3f %10.3f %10.3f %6.1f%%", name, r.calls,
                          r.total_ms, r.min_ms, r.max_ms, r.ave_ms, 100 * r.ratio);
    if (r.category == "kernel" || r.category == "transfer") {
      absl::StrAppendFormat(&out, " %9.2f %9.2f %7s %7s  %s", r.gbps, r.gflops,
                            r.floor_fraction > 0 ? absl::StrFormat("%.2f", r.floor_fraction) : "-",
                            r.work_ratio > 0 ? absl::StrFormat("%.2f", r.work_ratio) : "-",
                            absl::StrJoin(r.nodes, ", "));
    }
    out += "\n";
  }
  for (const std::string& note : report.notes) absl::StrAppend(&out, "\nNote: ", note);
  if (!report.notes.empty()) out += "\n";
  return out;
}

}  // namespace dfc::profiler

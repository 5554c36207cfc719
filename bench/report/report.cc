// The benchmark report (see report.h): parsing Google Benchmark JSON, and the CSV, gnuplot and
// markdown renderings (the targets are in targets.cc, the lookups they share in section.cc).
#include "bench/report/report.h"

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/report/section.h"
#include "nlohmann/json.hpp"

namespace dfc::bench::report {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// ---- Parsing ----------------------------------------------------------------------------------

// Milliseconds per unit of Google Benchmark's time_unit.
std::optional<double> MsPerUnit(const std::string& unit) {
  if (unit == "ns") return 1e-6;
  if (unit == "us") return 1e-3;
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1e3;
  return std::nullopt;
}

// Google Benchmark appends these to a name, after the arguments.
bool IsBenchmarkSuffix(const std::string& part) {
  static const char* const kWhole[] = {"manual_time", "real_time", "process_time"};
  static const char* const kPrefix[] = {
      "min_time:", "min_warmup_time:", "iterations:", "repeats:", "threads:"};
  for (const char* w : kWhole) {
    if (part == w) return true;
  }
  for (const char* p : kPrefix) {
    if (part.starts_with(p)) return true;
  }
  return false;
}

// Fills family, variant, size_key and size from `name`.
absl::Status ParseName(const std::string& name, const std::string& source, Result& r) {
  std::vector<std::string> parts = absl::StrSplit(name, '/');
  while (parts.size() > 3 && IsBenchmarkSuffix(parts.back())) parts.pop_back();
  const auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": benchmark \"", name,
                     "\": name is not family/variant/key:size (e.g. seed/tuned/N:65536)"));
  };
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty()) return bad();
  const size_t colon = parts[2].find(':');
  if (colon == std::string::npos || colon == 0) return bad();
  if (!absl::SimpleAtoi(parts[2].substr(colon + 1), &r.size)) return bad();
  r.family = parts[0];
  r.variant = parts[1];
  r.size_key = parts[2].substr(0, colon);
  return absl::OkStatus();
}

std::optional<double> Counter(const json& b, const char* key) {
  const auto it = b.find(key);
  if (it == b.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string StringField(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

absl::StatusOr<Result> ParseBenchmark(const json& b, const std::string& source,
                                      const std::string& section) {
  Result r;
  r.section = section;
  const std::string name = StringField(b, "name");
  if (absl::Status s = ParseName(name, source, r); !s.ok()) return s;
  const std::string unit = b.contains("time_unit") ? StringField(b, "time_unit") : "ns";
  const std::optional<double> ms_per_unit = MsPerUnit(unit);
  if (!ms_per_unit) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": benchmark \"", name, "\": unknown time_unit \"", unit, "\""));
  }
  r.time_ms = Counter(b, "real_time").value_or(0) * *ms_per_unit;
  r.gb_per_s = Counter(b, "GB/s");
  r.gflop_per_s = Counter(b, "GFLOP/s");
  r.floor_ms = Counter(b, "floor_ms");
  r.floor_fraction = Counter(b, "floor_fraction");
  r.read_gb_per_s = Counter(b, "read_GB/s");
  r.host_overhead_us = Counter(b, "host_overhead_us");
  r.device = StringField(b, "label");
  if (b.value("error_occurred", false)) {
    r.error = StringField(b, "error_message");
    if (r.error.empty()) r.error = "failed";
  }
  return r;
}

// "L1d 48 KiB, L1i 32 KiB, L2 2 MiB, L3 32 MiB shared by 2"
std::string SummariseCaches(const json& caches) {
  std::vector<std::string> out;
  if (!caches.is_array()) return "";
  for (const json& c : caches) {
    if (!c.is_object()) continue;
    const std::string type = StringField(c, "type");
    const int64_t size = c.value("size", int64_t{0});
    const int sharing = c.value("num_sharing", 0);
    std::string text = absl::StrCat("L", c.value("level", 0),
                                    type == "Data"          ? "d"
                                    : type == "Instruction" ? "i"
                                                            : "",
                                    " ");
    if (size % (1 << 20) == 0) {
      absl::StrAppend(&text, size >> 20, " MiB");
    } else if (size % (1 << 10) == 0) {
      absl::StrAppend(&text, size >> 10, " KiB");
    } else {
      absl::StrAppend(&text, size, " B");
    }
    if (sharing > 1) absl::StrAppend(&text, " shared by ", sharing);
    out.push_back(text);
  }
  return absl::StrJoin(out, ", ");
}

Context ParseContext(const json& c) {
  Context ctx;
  if (!c.is_object()) return ctx;
  ctx.date = StringField(c, "date");
  ctx.host_name = StringField(c, "host_name");
  ctx.num_cpus = c.value("num_cpus", 0);
  ctx.mhz_per_cpu = c.value("mhz_per_cpu", 0.0);
  if (c.contains("caches")) ctx.caches = SummariseCaches(c["caches"]);
  ctx.peer = StringField(c, "peer");
  return ctx;
}

bool IsAggregate(const json& b) {
  return StringField(b, "run_type") == "aggregate" || b.contains("aggregate_name");
}

absl::StatusOr<BenchmarkFile> ParseHeldBack(const json& root, const std::string& source,
                                            const std::string& section) {
  BenchmarkFile file{.source = source, .section = section};
  if (!root["held_back"].is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": \"held_back\" is not an array"));
  }
  for (const json& h : root["held_back"]) {
    if (!h.is_object() || StringField(h, "workload").empty() || !Counter(h, "batch")) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": a held_back row has no \"workload\" and \"batch\""));
    }
    file.held_back.push_back({.workload = StringField(h, "workload"),
                              .batch = h["batch"].get<int64_t>(),
                              .kernel = StringField(h, "kernel"),
                              .kernels = static_cast<int>(Counter(h, "kernels").value_or(0)),
                              .kernel_share = Counter(h, "kernel_share").value_or(0),
                              .gflops = Counter(h, "gflops").value_or(0),
                              .op = StringField(h, "op"),
                              .window = StringField(h, "window"),
                              .run_ms = Counter(h, "run_ms").value_or(0),
                              .device_busy_ms = Counter(h, "device_busy_ms").value_or(0)});
  }
  return file;
}

}  // namespace

absl::StatusOr<BenchmarkFile> ParseBenchmarkJson(const std::string& text, const std::string& source,
                                                 const std::string& section) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    // The parser's message carries the byte offset of the fault.
    return absl::InvalidArgumentError(absl::StrCat(source, ": malformed JSON: ", e.what()));
  }
  if (root.is_object() && root.contains("held_back")) return ParseHeldBack(root, source, section);
  if (!root.is_object() || !root.contains("benchmarks") || !root["benchmarks"].is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source,
                     ": not Google Benchmark JSON output (no \"benchmarks\" array); write it with "
                     "--benchmark_out=FILE --benchmark_out_format=json"));
  }
  BenchmarkFile file{.source = source, .section = section, .context = {}, .results = {}};
  if (root.contains("context")) file.context = ParseContext(root["context"]);
  for (const json& b : root["benchmarks"]) {
    if (!b.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(source, ": a benchmark is not an object"));
    }
    if (IsAggregate(b)) continue;
    absl::StatusOr<Result> r = ParseBenchmark(b, source, section);
    if (!r.ok()) return r.status();
    file.results.push_back(*std::move(r));
  }
  return file;
}

std::vector<std::string> Sections(const Report& report) {
  std::vector<std::string> out;
  for (const BenchmarkFile& f : report.files) {
    if (std::find(out.begin(), out.end(), f.section) == out.end()) out.push_back(f.section);
  }
  return out;
}

std::vector<Result> SectionResults(const Report& report, const std::string& section) {
  std::vector<Result> out;
  for (const BenchmarkFile& f : report.files) {
    if (f.section == section) out.insert(out.end(), f.results.begin(), f.results.end());
  }
  return out;
}

std::vector<Result> AllResults(const Report& report) {
  std::vector<Result> out;
  for (const BenchmarkFile& f : report.files) {
    out.insert(out.end(), f.results.begin(), f.results.end());
  }
  return out;
}

// ---- CSV --------------------------------------------------------------------------------------

namespace {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

}  // namespace

std::string ToCsv(const std::vector<Result>& results) {
  std::string out =
      "section,family,variant,size_key,size,time_ms,gb_per_s,gflop_per_s,floor_ms,"
      "floor_fraction,read_gb_per_s,device,error\n";
  for (const Result& r : results) {
    const bool ok = r.error.empty();  // a failed run's time is Google Benchmark's zero
    const std::vector<std::string> row = {r.section,
                                          r.family,
                                          r.variant,
                                          r.size_key,
                                          absl::StrCat(r.size),
                                          ok ? Exact(r.time_ms) : "",
                                          ExactOr(r.gb_per_s, ""),
                                          ExactOr(r.gflop_per_s, ""),
                                          ExactOr(r.floor_ms, ""),
                                          ExactOr(r.floor_fraction, ""),
                                          ExactOr(r.read_gb_per_s, ""),
                                          r.device,
                                          r.error};
    absl::StrAppend(
        &out,
        absl::StrJoin(row, ",",
                      [](std::string* o, const std::string& f) { o->append(CsvField(f)); }),
        "\n");
  }
  return out;
}

std::string RuleThatWouldMove(const HeldBack& h) {
  // Below half the run on the device, launching and handing work over is what the run costs.
  if (h.run_ms > 0 && h.device_busy_ms < 0.5 * h.run_ms) {
    return "the run's host overhead, not a kernel: launches recorded once and replayed, small "
           "runs without the scheduler's hand-off";
  }
  if (h.op == "Conv2D" && h.window == "1x1") {
    return "the pointwise convolution as a contraction: cache blocking over k, its filter packed "
           "in the tile's order at compile time";
  }
  // By the op of the kernels' heaviest node.
  static constexpr std::pair<const char*, const char*> kRules[] = {
      {"Conv2D",
       "a register tile over output positions whose window's interior is split from its border, "
       "so that no tap of a block checks padding (blockPositions checks every tap's rows)"},
      {"DepthwiseConv2dNative",
       "a position tile with channel vectors, in a blocked NCHW[x]c layout kept across layers"},
      {"Conv2DBackpropInput",
       "the input gradient as a transposed convolution through the forward schedule's register "
       "tile"},
      {"Conv2DBackpropFilter",
       "the filter gradient as a contraction over an implicit im2col view, through the "
       "contraction's register blocks"},
      {"MatMul",
       "cache blocking over k, B packed in the panel's order (at compile time where it is "
       "constant)"},
  };
  const std::string op = h.op.starts_with("BatchMatMul") ? "MatMul" : h.op;
  for (const auto& [named, rule] : kRules) {
    if (op == named) return rule;
  }
  return absl::StrCat("none named for ", h.op.empty() ? "this kernel" : h.op,
                      ": `dfc profile --report` shows its floor");
}

std::string PeerJson(const std::vector<Result>& results) {
  json out = json::array();
  const auto ms = [](const Result* r) {
    return r != nullptr && r->error.empty() ? json(r->time_ms) : json(nullptr);
  };
  for (const std::string& family : Families(results)) {
    const std::vector<std::string> peers = PeersOf(results, {family});
    for (const int64_t batch : Sizes(results, family)) {
      for (const std::string& peer : peers) {
        out.push_back({{"workload", family},
                       {"batch", batch},
                       {"dfc_ms", ms(Find(results, family, kSubjectVariant, batch))},
                       {"peer", peer},
                       {"peer_ms", ms(Find(results, family, peer, batch))}});
      }
    }
  }
  return out.dump(2) + "\n";
}

using Verdict = TargetResult::Verdict;

std::string VerdictText(Verdict verdict) {
  switch (verdict) {
    case Verdict::kMet:
      return "met";
    case Verdict::kMissed:
      return "**MISSED**";
    case Verdict::kNotRun:
      return "not run";
  }
  return "?";
}

// ---- Plots ------------------------------------------------------------------------------------

namespace {

// Lower-case letters and digits, runs of anything else as one '-'.
std::string Slug(const std::string& s) {
  std::string out;
  for (const unsigned char c : s) {
    if (std::isalnum(c)) {
      out += static_cast<char>(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "section" : out;
}

// A gnuplot single-quoted string: no escapes are interpreted, a quote is doubled.
std::string GnuplotQuote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

bool SpansOver8(double lo, double hi) { return lo > 0 && hi / lo > 8; }

// The smallest and largest successful time of a family, for the y scale.
std::pair<double, double> TimeRange(const std::vector<Result>& rs, const std::string& family) {
  double lo = HUGE_VAL, hi = 0;
  for (const Result& r : rs) {
    if (r.family != family || !r.error.empty() || r.time_ms <= 0) continue;
    lo = std::min(lo, r.time_ms);
    hi = std::max(hi, r.time_ms);
  }
  return {lo, hi};
}

// Whether the variant succeeded at some size: has a point to plot.
bool HasTime(const std::vector<Result>& rs, const std::string& family, const std::string& variant) {
  for (const Result& r : rs) {
    if (r.family == family && r.variant == variant && r.error.empty()) return true;
  }
  return false;
}

}  // namespace

std::string PlotStem(const std::string& section, const std::string& family) {
  std::string f = family;
  for (char& c : f) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  return absl::StrCat(Slug(section), "_", f);
}

std::string GnuplotData(const std::vector<Result>& rs, const std::string& family) {
  const std::vector<std::string> variants = Variants(rs, family);
  std::string out = absl::StrCat("# ", family, ": time (ms) against ", SizeKey(rs, family),
                                 "; ? = not measured or failed\n# ", SizeKey(rs, family), " ",
                                 absl::StrJoin(variants, " "), " floor\n");
  for (const int64_t size : Sizes(rs, family)) {
    absl::StrAppend(&out, size);
    for (const std::string& v : variants) {
      const Result* r = Find(rs, family, v, size);
      absl::StrAppend(&out, " ", r != nullptr && r->error.empty() ? Exact(r->time_ms) : "?");
    }
    absl::StrAppend(&out, " ", ExactOr(FloorAt(rs, family, size), "?"), "\n");
  }
  return out;
}

std::string GnuplotScript(const std::vector<Result>& rs, const std::string& family,
                          const std::string& stem) {
  const std::vector<std::string> variants = Variants(rs, family);
  const std::vector<int64_t> sizes = Sizes(rs, family);
  const auto [t_lo, t_hi] = TimeRange(rs, family);
  std::string out = absl::StrCat(
      "# ", family, ": written by dfc_bench_report (bench/report); run in this directory.\n",
      // noenhanced: family and variant names hold '_', which enhanced text makes a subscript.
      "set terminal pngcairo size 800,500 noenhanced\n", "set output ", GnuplotQuote(stem + ".png"),
      "\n", "set title ", GnuplotQuote(family), " noenhanced\n", "set xlabel ",
      GnuplotQuote(SizeKey(rs, family)), "\n", "set ylabel 'time (ms)'\n",
      "set key outside right top noenhanced\n", "set grid\n", "set datafile missing '?'\n");
  if (sizes.empty()) return out;
  if (SpansOver8(static_cast<double>(sizes.front()), static_cast<double>(sizes.back()))) {
    absl::StrAppend(&out, "set logscale x 2\n");
  }
  // A linear time axis starts at zero, so that the heights of the points compare honestly.
  absl::StrAppend(&out, SpansOver8(t_lo, t_hi) ? "set logscale y\n" : "set yrange [0:*]\n");
  if (sizes.size() == 1) {  // a range of zero width: centre the lone size
    absl::StrAppend(&out, absl::StrFormat("set xrange [%d:%d]\n", sizes[0] / 2, sizes[0] * 3 / 2));
  } else {
    absl::StrAppend(&out, "set offsets graph 0.03, graph 0.03, 0, 0\n");
  }
  // Tics at the sizes run, not at powers of the log base, which may fall between them.
  absl::StrAppend(&out, "set xtics (", absl::StrJoin(sizes, ", "), ")\n");
  const std::string data = GnuplotQuote(stem + ".dat");
  std::vector<std::string> lines;
  for (size_t i = 0; i < variants.size(); ++i) {
    // gnuplot fails on a column with no valid point: a variant that failed at every size.
    if (!HasTime(rs, family, variants[i])) continue;
    // Colours and points follow the variant's place, so that a missing variant shifts no other.
    lines.push_back(absl::StrCat(data, " using 1:", i + 2, " title ", GnuplotQuote(variants[i]),
                                 " with linespoints lw 2 lc ", i + 1, " pt ", i + 5));
  }
  int floors = 0;
  for (const int64_t size : sizes) floors += FloorAt(rs, family, size).has_value();
  if (floors > 0) {
    lines.push_back(
        absl::StrCat(data, " using 1:", variants.size() + 2, " title 'bandwidth floor' with ",
                     floors > 1 ? "lines" : "points pt 1", " dashtype 2 lw 2 lc rgb 'black'"));
  }
  if (lines.empty()) {
    return absl::StrCat(out, "unset logscale\n",
                        "set label 1 'every run failed' at graph 0.5, graph 0.5 center\n",
                        "plot [0:1][0:1] NaN notitle\n");
  }
  absl::StrAppend(&out, "plot ", absl::StrJoin(lines, ", \\\n     "), "\n");
  return out;
}

// ---- Files ------------------------------------------------------------------------------------

namespace {

absl::Status WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

// A POSIX shell single-quoted word.
std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

absl::Status RunGnuplot(const fs::path& dir, const std::string& stem) {
  const std::string command = absl::StrCat("cd ", ShellQuote(dir.string()), " && gnuplot ",
                                           ShellQuote(stem + ".gp"), " 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError(absl::StrCat("cannot run: ", command));
  std::string output;
  char buf[512];
  while (fgets(buf, sizeof(buf), pipe) != nullptr) output += buf;
  const int status = pclose(pipe);
  if (status != 0) {
    return absl::InternalError(absl::StrCat("gnuplot failed on ", (dir / stem).string(),
                                            ".gp (status ", status, "): ", output));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteReport(const Report& report, const std::string& out_dir) {
  const fs::path plots = fs::path(out_dir) / "plots";
  std::error_code ec;
  fs::create_directories(plots, ec);
  if (ec)
    return absl::InternalError(absl::StrCat("cannot create ", plots.string(), ": ", ec.message()));
  if (absl::Status s = WriteFile(fs::path(out_dir) / "results.csv", ToCsv(AllResults(report)));
      !s.ok()) {
    return s;
  }
  std::vector<std::string> stems;
  for (const std::string& section : Sections(report)) {
    const std::vector<Result> rs = SectionResults(report, section);
    for (const std::string& family : PlottedFamilies(rs)) {
      const std::string stem = PlotStem(section, family);
      if (absl::Status s = WriteFile(plots / (stem + ".dat"), GnuplotData(rs, family)); !s.ok()) {
        return s;
      }
      if (absl::Status s = WriteFile(plots / (stem + ".gp"), GnuplotScript(rs, family, stem));
          !s.ok()) {
        return s;
      }
      stems.push_back(stem);
    }
  }
  if (absl::Status s = WriteFile(fs::path(out_dir) / "RESULTS.md", RenderMarkdown(report));
      !s.ok()) {
    return s;
  }
  if (stems.empty()) return absl::OkStatus();
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    return absl::FailedPreconditionError(
        "gnuplot not found on PATH: install gnuplot (5.x, with the pngcairo terminal) to draw "
        "plots/*.png; results.csv, RESULTS.md and the plot scripts were written");
  }
  for (const std::string& stem : stems) {
    if (absl::Status s = RunGnuplot(plots, stem); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace dfc::bench::report

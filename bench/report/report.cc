// The benchmark report (see report.h): parsing Google Benchmark JSON, the targets, and the
// CSV, gnuplot and markdown renderings.
#include "bench/report/report.h"

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace dfc::bench::report {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// ---- The targets ------------------------------------------------------------------------------

// What a target's figure is.
enum class Measure {
  kFloorFraction,     // floor_fraction(subject): its time over the bandwidth floor
  kSpeedup,           // time(baseline) / time(subject)
  kBandwidthRatio,    // GB/s(subject) / GB/s(baseline)
  kSpeedupOverPeers,  // the faster of every kPeerVariants' times / time(subject): all must run
  kTime,              // time(subject) in ms
  kPeakFraction,      // GFLOP/s(subject) / the section's FMA peak (MeasuredPeak)
  kHostOverhead,      // host_overhead_us(subject), in µs
};

// Which sizes of a family a target is checked at.
enum class At {
  kLargestSize,  // the largest size the family was run at, whichever variants ran there
  kEverySize,    // each size, one row each, so that every shape's figure is visible
  kGivenSize,    // Target::size
  kFromSize,     // each size of at least Target::size, one row each
};

// Which sections a target is judged in: a peer's figures on a GPU are not its figures on a CPU.
enum class Device {
  kAny,
  kCpu,  // sections whose name does not hold "GPU"
  kGpu,  // sections whose name holds "GPU" (bench/run --section GPU ...)
};

// A subject that stands for the fastest variant at the size other than the baseline.
constexpr char kFastestOther[] = "*";

struct Target {
  // The group whose promise it is: a section is judged on the targets of every group one of
  // whose families it ran (the device sections on the device kernels', the CNN sections on
  // theirs).
  std::string group;
  std::string name;    // the promise, as RESULTS.md prints it
  std::string family;  // the family, or with family_prefix every family that starts with it
  bool family_prefix = false;
  std::string subject = kSubjectVariant;  // the variant judged, or kFastestOther
  std::string baseline;
  Measure measure = Measure::kSpeedup;
  At at = At::kGivenSize;
  int64_t size = 0;      // for At::kGivenSize and At::kFromSize
  bool at_most = false;  // the figure must be <= bound; otherwise >= bound
  double bound = 0;
  Device device = Device::kAny;
};

// `value`'s entry among `names` (text, enum), or an error naming `what` and the choices.
template <typename E>
absl::StatusOr<E> OneOf(const std::string& value,
                        const std::vector<std::pair<std::string, E>>& names,
                        const std::string& what) {
  std::vector<std::string> choices;
  for (const auto& [name, e] : names) {
    if (name == value) return e;
    choices.push_back(name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat(what, " is \"", value, "\", expected one of ", absl::StrJoin(choices, ", ")));
}

// One target of bench/targets.json (see its "about" for the defaults).
absl::StatusOr<Target> ParseTarget(const json& j, const std::string& group) {
  Target t{.group = group};
  if (!j.is_object()) return absl::InvalidArgumentError("a target is not an object");
  t.name = j.value("name", "");
  if (t.name.empty()) return absl::InvalidArgumentError("a target has no name");
  const auto error = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("target \"", t.name, "\": ", what));
  };
  t.family = j.value("family", "");
  if (t.family.empty()) return error("no family");
  if (t.family.ends_with('*')) {
    t.family.pop_back();
    t.family_prefix = true;
  }
  t.subject = j.value("subject", std::string(kSubjectVariant));
  t.baseline = j.value("baseline", "");
  absl::StatusOr<Measure> measure =
      OneOf<Measure>(j.value("measure", ""),
                     {{"floor_fraction", Measure::kFloorFraction},
                      {"speedup", Measure::kSpeedup},
                      {"bandwidth_ratio", Measure::kBandwidthRatio},
                      {"speedup_over_peers", Measure::kSpeedupOverPeers},
                      {"time", Measure::kTime},
                      {"peak_fraction", Measure::kPeakFraction},
                      {"host_overhead", Measure::kHostOverhead}},
                     "the measure");
  if (!measure.ok()) return error(std::string(measure.status().message()));
  t.measure = *measure;
  absl::StatusOr<At> at = OneOf<At>(j.value("at", ""),
                                    {{"largest", At::kLargestSize},
                                     {"every", At::kEverySize},
                                     {"given", At::kGivenSize},
                                     {"from", At::kFromSize}},
                                    "\"at\"");
  if (!at.ok()) return error(std::string(at.status().message()));
  t.at = *at;
  absl::StatusOr<Device> device = OneOf<Device>(
      j.value("device", "any"),
      {{"any", Device::kAny}, {"cpu", Device::kCpu}, {"gpu", Device::kGpu}}, "the device");
  if (!device.ok()) return error(std::string(device.status().message()));
  t.device = *device;
  const bool sized = t.at == At::kGivenSize || t.at == At::kFromSize;
  if (sized != j.contains("size")) {
    return error(sized ? "no size, which \"at\" needs" : "a size, which \"at\" ignores");
  }
  if (sized && (!j["size"].is_number_integer() || j["size"].get<int64_t>() < 1)) {
    return error("the size is not a positive integer");
  }
  t.size = j.value("size", int64_t{0});
  if (!j.contains("bound") || !j["bound"].is_number()) return error("no bound");
  t.bound = j["bound"].get<double>();
  t.at_most = j.value("at_most", false);
  return t;
}

// Every target of `text`, a table in bench/targets.json's form.
absl::StatusOr<std::vector<Target>> ParseTargets(absl::string_view text) {
  const json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return absl::InvalidArgumentError("not JSON");
  if (!root.is_object() || !root.contains("groups") || !root["groups"].is_array()) {
    return absl::InvalidArgumentError("no array \"groups\"");
  }
  std::vector<Target> targets;
  for (const json& g : root["groups"]) {
    if (!g.is_object() || !g.contains("group") || !g["group"].is_string() ||
        !g.contains("targets") || !g["targets"].is_array()) {
      return absl::InvalidArgumentError("a group without a name or its \"targets\"");
    }
    for (const json& j : g["targets"]) {
      absl::StatusOr<Target> t;
      try {  // a field of the wrong type
        t = ParseTarget(j, g["group"].get<std::string>());
      } catch (const json::exception& e) {
        t = absl::InvalidArgumentError(
            absl::StrCat("a target of group \"", g["group"].get<std::string>(), "\": ", e.what()));
      }
      if (!t.ok()) return t.status();
      targets.push_back(*std::move(t));
    }
  }
  return targets;
}

// The targets: bench/targets.json, embedded at build time, read once.
const std::vector<Target>& Targets() {
  static const std::vector<Target>* targets = [] {
    absl::StatusOr<std::vector<Target>> parsed = ParseTargets(kTargetsJson);
    if (!parsed.ok()) {
      std::fprintf(stderr, "bench/targets.json: %s\n",
                   std::string(parsed.status().message()).c_str());
      std::abort();
    }
    return new std::vector<Target>(*std::move(parsed));
  }();
  return *targets;
}

// ---- Number formatting ------------------------------------------------------------------------

// Three significant digits, without an exponent for numbers of 1000 and over.
std::string Sig3(double x) {
  std::string s = absl::StrFormat("%.3g", x);
  if (s.find('e') != std::string::npos && std::abs(x) >= 1) s = absl::StrFormat("%.0f", x);
  return s;
}

// The shortest text that reads back as the same double: CSV and gnuplot data lose nothing.
std::string Exact(double x) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), x);
  return ec == std::errc() ? std::string(buf, end) : absl::StrCat(x);
}

std::string ExactOr(const std::optional<double>& x, const std::string& missing) {
  return x ? Exact(*x) : missing;
}

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

// ---- Lookups over one section's results -------------------------------------------------------

namespace {

std::vector<std::string> Families(const std::vector<Result>& rs) {
  std::vector<std::string> out;
  for (const Result& r : rs) {
    if (std::find(out.begin(), out.end(), r.family) == out.end()) out.push_back(r.family);
  }
  return out;
}

// In order of first appearance, as the benchmark program registered them.
std::vector<std::string> Variants(const std::vector<Result>& rs, const std::string& family) {
  std::vector<std::string> out;
  for (const Result& r : rs) {
    if (r.family == family && std::find(out.begin(), out.end(), r.variant) == out.end()) {
      out.push_back(r.variant);
    }
  }
  return out;
}

std::vector<int64_t> Sizes(const std::vector<Result>& rs, const std::string& family) {
  std::set<int64_t> sizes;
  for (const Result& r : rs) {
    if (r.family == family) sizes.insert(r.size);
  }
  return {sizes.begin(), sizes.end()};
}

std::string SizeKey(const std::vector<Result>& rs, const std::string& family) {
  for (const Result& r : rs) {
    if (r.family == family) return r.size_key;
  }
  return "size";
}

// The run of family/variant/size. Of repeated runs, the one with the median time, so that one
// noisy repetition neither flatters nor sinks a figure; a failed run only when none succeeded.
const Result* Find(const std::vector<Result>& rs, const std::string& family,
                   const std::string& variant, int64_t size) {
  std::vector<const Result*> ok;
  const Result* failed = nullptr;
  for (const Result& r : rs) {
    if (r.family != family || r.variant != variant || r.size != size) continue;
    if (r.error.empty()) {
      ok.push_back(&r);
    } else if (failed == nullptr) {
      failed = &r;
    }
  }
  if (ok.empty()) return failed;
  std::sort(ok.begin(), ok.end(),
            [](const Result* a, const Result* b) { return a->time_ms < b->time_ms; });
  return ok[(ok.size() - 1) / 2];
}

// The bandwidth floor at a size. Each variant measures the read bandwidth after its own
// kernels, and the bandwidth drifts; the floor is a lower bound on a kernel's time, so the
// tightest of them, from the fastest read bandwidth the run measured at the size. A variant's
// own sample, taken while the machine streamed slowly, made its kernel look closer to the
// floor than it was: the seed's tuned kernel at 1.12x, its sample 23.6 GB/s where the
// hand-written kernel's, minutes apart, was 49.
std::optional<double> FloorAt(const std::vector<Result>& rs, const std::string& family,
                              int64_t size) {
  std::optional<double> floor;
  for (const std::string& v : Variants(rs, family)) {
    const Result* r = Find(rs, family, v, size);
    if (r != nullptr && r->error.empty() && r->floor_ms && (!floor || *r->floor_ms < *floor)) {
      floor = r->floor_ms;
    }
  }
  return floor;
}

// `r`'s time over the floor at its size (FloorAt), or its own floor_fraction where the run
// recorded no floor_ms.
std::optional<double> FloorFraction(const std::vector<Result>& rs, const Result& r) {
  if (const std::optional<double> floor = FloorAt(rs, r.family, r.size); floor && *floor > 0) {
    return r.time_ms / *floor;
  }
  return r.floor_fraction;
}

// The machine's FMA peak that the section measured: the fastest of kPeakFamily's results (one
// per vector width), or nullptr.
const Result* MeasuredPeak(const std::vector<Result>& rs) {
  const Result* peak = nullptr;
  for (const Result& r : rs) {
    if (r.family != kPeakFamily || !r.error.empty() || !r.gflop_per_s) continue;
    if (peak == nullptr || *r.gflop_per_s > *peak->gflop_per_s) peak = &r;
  }
  return peak;
}

// Whether `family` has a run of `variant` (at any size).
bool HasVariant(const std::vector<Result>& rs, const std::string& family,
                const std::string& variant) {
  const std::vector<std::string> variants = Variants(rs, family);
  return std::find(variants.begin(), variants.end(), variant) != variants.end();
}

// A family timed by a peer too (it has a variant of kPeerVariants).
bool IsPeerFamily(const std::vector<Result>& rs, const std::string& family) {
  return std::any_of(std::begin(kPeerVariants), std::end(kPeerVariants),
                     [&](const char* peer) { return HasVariant(rs, family, peer); });
}

// The peers (kPeerVariants, in that order) that timed at least one of `families`.
std::vector<std::string> PeersOf(const std::vector<Result>& rs,
                                 const std::vector<std::string>& families) {
  std::vector<std::string> out;
  for (const char* peer : kPeerVariants) {
    if (std::any_of(families.begin(), families.end(),
                    [&](const std::string& f) { return HasVariant(rs, f, peer); })) {
      out.push_back(peer);
    }
  }
  return out;
}

// The families drawn: all but the FMA peak, a figure beside the others rather than a workload.
std::vector<std::string> PlottedFamilies(const std::vector<Result>& rs) {
  std::vector<std::string> out = Families(rs);
  std::erase(out, std::string(kPeakFamily));
  return out;
}

}  // namespace

// ---- Targets ----------------------------------------------------------------------------------

namespace {

using Verdict = TargetResult::Verdict;

std::string Shape(const std::string& family, const std::string& key, int64_t size) {
  return absl::StrCat("`", family, "` ", key, ":", size);
}

// A run a target needs, or why it cannot be judged: absent (not run) or failed (missed).
struct Needed {
  const Result* result = nullptr;
  std::optional<TargetResult> verdict;
};

Needed Need(const std::vector<Result>& rs, const std::string& target, const std::string& family,
            const std::string& variant, int64_t size) {
  const Result* r = Find(rs, family, variant, size);
  const std::string what =
      absl::StrCat("`", family, "/", variant, "` at ", SizeKey(rs, family), ":", size);
  if (r == nullptr) return {.verdict = TargetResult{target, "no " + what, Verdict::kNotRun}};
  if (!r->error.empty()) {
    return {.verdict =
                TargetResult{target, absl::StrCat(what, " failed: ", r->error), Verdict::kMissed}};
  }
  return {.result = r, .verdict = std::nullopt};
}

// The fastest variant at `size` other than the target's baseline. With none that succeeded, a
// failure (the target is missed) says more than an absence (not run).
Needed NeedFastestOther(const std::vector<Result>& rs, const std::string& target,
                        const std::string& family, const std::string& baseline, int64_t size) {
  Needed best, failed;
  for (const std::string& v : Variants(rs, family)) {
    if (v == baseline) continue;
    Needed n = Need(rs, target, family, v, size);
    if (n.result == nullptr) {
      if (n.verdict->verdict == Verdict::kMissed && !failed.verdict) failed = n;
    } else if (best.result == nullptr || n.result->time_ms < best.result->time_ms) {
      best = n;
    }
  }
  if (best.result != nullptr) return best;
  if (failed.verdict) return failed;
  return {.verdict = TargetResult{target,
                                  absl::StrCat("no variant of `", family, "` but ", baseline,
                                               " at ", SizeKey(rs, family), ":", size),
                                  Verdict::kNotRun}};
}

TargetResult Judge(const Target& t, const std::string& target, double figure,
                   std::string measured) {
  const bool met = t.at_most ? figure <= t.bound : figure >= t.bound;
  return {target, std::move(measured), met ? Verdict::kMet : Verdict::kMissed};
}

// The faster peer's time over `s`'s. A peer absent or failed (ort_peer.js records a model it
// could not load, or whose output differed from PyTorch's, as failed) leaves the target not
// run: dfc cannot be judged faster than a peer that did not run.
TargetResult CheckOverPeers(const Target& t, const std::vector<Result>& rs, const Result& s,
                            const std::string& at, const std::string& target) {
  std::vector<std::string> peers;
  const Result* fastest = nullptr;
  for (const char* peer : kPeerVariants) {
    Needed n = Need(rs, target, s.family, peer, s.size);
    if (n.verdict) return {target, n.verdict->measured, Verdict::kNotRun};
    peers.push_back(absl::StrCat(peer, " ", Sig3(n.result->time_ms), " ms"));
    if (fastest == nullptr || n.result->time_ms < fastest->time_ms) fastest = n.result;
  }
  const double ratio = fastest->time_ms / s.time_ms;
  return Judge(t, target, ratio,
               absl::StrCat(absl::StrJoin(peers, ", "), "; ", fastest->variant, " / ", s.variant,
                            " ", Sig3(s.time_ms), " ms = ", Sig3(ratio), "×", at));
}

TargetResult CheckAt(const Target& t, const std::vector<Result>& rs, const std::string& family,
                     int64_t size, const std::string& target) {
  const std::string at = absl::StrCat(" at ", SizeKey(rs, family), ":", size);
  const bool fastest = t.subject == kFastestOther;
  const Needed subject = fastest ? NeedFastestOther(rs, target, family, t.baseline, size)
                                 : Need(rs, target, family, t.subject, size);
  if (subject.verdict) return *subject.verdict;
  const Result& s = *subject.result;
  if (t.measure == Measure::kFloorFraction) {
    const std::optional<double> fraction = FloorFraction(rs, s);
    if (!fraction) {
      return {target, s.variant + " has no floor_fraction" + at, Verdict::kNotRun};
    }
    return Judge(t, target, *fraction,
                 absl::StrCat(s.variant, " ", Sig3(s.time_ms), " ms = ", Sig3(*fraction),
                              "× the floor", at));
  }
  if (t.measure == Measure::kTime) {
    return Judge(t, target, s.time_ms, absl::StrCat(s.variant, " ", Sig3(s.time_ms), " ms", at));
  }
  if (t.measure == Measure::kPeakFraction) {
    const Result* peak = MeasuredPeak(rs);
    if (!s.gflop_per_s) return {target, s.variant + " has no GFLOP/s" + at, Verdict::kNotRun};
    if (peak == nullptr || *peak->gflop_per_s <= 0) {
      return {target, absl::StrCat("no `", kPeakFamily, "` measured in the section"),
              Verdict::kNotRun};
    }
    const double fraction = *s.gflop_per_s / *peak->gflop_per_s;
    return Judge(t, target, fraction,
                 absl::StrCat(s.variant, " ", Sig3(*s.gflop_per_s), " GFLOP/s / `", peak->family,
                              "/", peak->variant, "/", peak->size_key, ":", peak->size, "` ",
                              Sig3(*peak->gflop_per_s), " GFLOP/s = ", Sig3(fraction), at));
  }
  if (t.measure == Measure::kHostOverhead) {
    if (!s.host_overhead_us) {
      return {target, s.variant + " has no host_overhead_us" + at, Verdict::kNotRun};
    }
    return Judge(t, target, *s.host_overhead_us,
                 absl::StrCat(s.variant, " ", Sig3(*s.host_overhead_us), " µs a run", at));
  }
  if (t.measure == Measure::kSpeedupOverPeers) return CheckOverPeers(t, rs, s, at, target);
  const Needed baseline = Need(rs, target, family, t.baseline, size);
  if (baseline.verdict) return *baseline.verdict;
  const Result& b = *baseline.result;
  if (t.measure == Measure::kSpeedup) {
    const double ratio = b.time_ms / s.time_ms;
    return Judge(t, target, ratio,
                 absl::StrCat(b.variant, " ", Sig3(b.time_ms), " ms / ", s.variant, " ",
                              Sig3(s.time_ms), " ms = ", Sig3(ratio), "×", at,
                              fastest ? absl::StrCat(" (fastest: ", s.variant, ")") : ""));
  }
  if (!s.gb_per_s || !b.gb_per_s) return {target, "no GB/s counter" + at, Verdict::kNotRun};
  const double ratio = *s.gb_per_s / *b.gb_per_s;
  return Judge(t, target, ratio,
               absl::StrCat(s.variant, " ", Sig3(*s.gb_per_s), " GB/s / ", b.variant, " ",
                            Sig3(*b.gb_per_s), " GB/s = ", Sig3(ratio), at));
}

bool InTarget(const Target& t, const std::string& family) {
  return t.family_prefix ? family.starts_with(t.family) : family == t.family;
}

// Whether `t` is judged in the section of `rs` (every result of a section names it).
bool ForDevice(const Target& t, const std::vector<Result>& rs) {
  if (t.device == Device::kAny || rs.empty()) return true;
  return IsGpuSection(rs.front().section) == (t.device == Device::kGpu);
}

void Check(const Target& t, const std::vector<Result>& rs, std::vector<TargetResult>& out) {
  bool named = false;  // a family the target names ran
  bool any = false;    // and was judged
  for (const std::string& family : Families(rs)) {
    // Each row of this family names the family and size it judged, for what held it back.
    const auto judged = [&](TargetResult r, int64_t size) {
      r.family = family;
      r.size = size;
      out.push_back(std::move(r));
    };
    if (!InTarget(t, family)) continue;
    named = true;
    const std::vector<int64_t> sizes = Sizes(rs, family);
    // A family a prefix names but that runs at other sizes only (OpenPose, at batch 1) is not
    // one of the target's at this size.
    if (t.family_prefix && t.at == At::kGivenSize &&
        std::find(sizes.begin(), sizes.end(), t.size) == sizes.end()) {
      continue;
    }
    any = true;
    if (t.at == At::kLargestSize) {
      judged(CheckAt(t, rs, family, sizes.back(), t.name), sizes.back());
    } else if (t.at == At::kEverySize || t.at == At::kFromSize) {
      bool checked = false;
      for (const int64_t size : sizes) {
        if (t.at == At::kFromSize && size < t.size) continue;
        checked = true;
        judged(CheckAt(t, rs, family, size,
                       absl::StrCat(t.name, ": ", Shape(family, SizeKey(rs, family), size))),
               size);
      }
      if (!checked) {
        out.push_back({absl::StrCat(t.name, ": `", family, "`"),
                       absl::StrCat("no `", family, "` run at ", t.size, " or more"),
                       Verdict::kNotRun});
      }
    } else if (std::find(sizes.begin(), sizes.end(), t.size) != sizes.end()) {
      // A target over several families names the one each row judges.
      judged(CheckAt(t, rs, family, t.size,
                     t.family_prefix ? absl::StrCat(t.name, ": `", family, "`") : t.name),
             t.size);
    } else {
      out.push_back({t.name, absl::StrCat("no `", family, "` run at ", t.size), Verdict::kNotRun});
    }
  }
  if (!any) {
    out.push_back({t.name,
                   absl::StrCat("no `", t.family, t.family_prefix ? "*" : "", "` run",
                                named ? absl::StrCat(" at ", t.size) : "s"),
                   Verdict::kNotRun});
  }
}

}  // namespace

std::vector<TargetResult> EvaluateTargets(const std::vector<Result>& section_results) {
  std::set<std::string> groups;
  for (const Target& t : Targets()) {
    for (const std::string& family : Families(section_results)) {
      if (InTarget(t, family)) groups.insert(t.group);
    }
  }
  std::vector<TargetResult> out;
  for (const Target& t : Targets()) {
    if (groups.contains(t.group) && ForDevice(t, section_results)) Check(t, section_results, out);
  }
  return out;
}

absl::Status ValidateTargets(absl::string_view text) { return ParseTargets(text).status(); }

bool IsGpuSection(const std::string& section) { return absl::StrContains(section, "GPU"); }

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

std::string VerdictText(TargetResult::Verdict verdict) {
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

// ---- Markdown ---------------------------------------------------------------------------------

namespace {

// Safe inside a markdown table cell: one line, no column breaks, at most `max` characters.
std::string CellText(const std::string& s, size_t max) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = s[i];
    const bool starts_char = (c & 0xC0) != 0x80;  // not a UTF-8 continuation byte
    if (starts_char && ++chars > max) return out + "…";
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (c == '|') {
      out += "\\|";
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::vector<std::string> Distinct(const std::vector<std::string>& v) {
  std::vector<std::string> out;
  for (const std::string& s : v) {
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

std::string Code(const std::string& s) { return absl::StrCat("`", s, "`"); }

std::string CodeList(const std::vector<std::string>& v) {
  return v.empty() ? "unknown" : absl::StrJoin(v, ", ", [](std::string* o, const std::string& s) {
    o->append(Code(s));
  });
}

std::string MachineText(const Context& c) {
  std::string out = Code(c.host_name.empty() ? "unknown host" : c.host_name);
  if (c.num_cpus > 0) absl::StrAppend(&out, ", ", c.num_cpus, " CPUs");
  if (c.mhz_per_cpu > 0) absl::StrAppend(&out, " at ", Sig3(c.mhz_per_cpu), " MHz");
  if (!c.caches.empty()) absl::StrAppend(&out, "; caches ", c.caches);
  return out;
}

std::vector<std::string> Devices(const std::vector<Result>& rs) {
  std::vector<std::string> labels;
  for (const Result& r : rs) labels.push_back(r.device);
  return Distinct(labels);
}

std::string Header(const Report& report) {
  std::vector<std::string> dates, sources, machines;
  for (const BenchmarkFile& f : report.files) {
    dates.push_back(f.context.date);
    sources.push_back(f.source);
    if (!f.results.empty()) machines.push_back(MachineText(f.context));
  }
  machines = Distinct(machines);
  std::string out =
      absl::StrCat("# ", report.title, "\n\n", "Generated by `bench/run` on ",
                   absl::StrJoin(Distinct(dates), ", "), " from ", CodeList(sources), ".\n\n");
  if (machines.size() == 1) {
    absl::StrAppend(&out, "Machine: ", machines[0], ".\n\n");
  } else {
    absl::StrAppend(&out, "Machines:\n\n- ", absl::StrJoin(machines, "\n- "), "\n\n");
  }
  absl::StrAppend(&out, "OpenCL device(s): ", CodeList(Devices(AllResults(report))), ".\n\n");
  return out;
}

std::string TargetsTable(const std::vector<TargetResult>& targets) {
  std::string out = "### Targets\n\n| target | measured | verdict |\n|---|---|---|\n";
  for (const TargetResult& t : targets) {
    absl::StrAppend(&out, "| ", CellText(t.target, 200), " | ", CellText(t.measured, 200), " | ",
                    VerdictText(t.verdict), " |\n");
  }
  return out + "\n";
}

std::string TimeCell(const std::vector<Result>& rs, const Result* r) {
  if (r == nullptr) return "";
  if (!r->error.empty()) return CellText("error: " + r->error, 60);
  std::string out = Sig3(r->time_ms);
  if (const std::optional<double> fraction = FloorFraction(rs, *r)) {
    absl::StrAppend(&out, " (", Sig3(*fraction), "×)");
  }
  return out;
}

std::string FamilySection(const std::vector<Result>& rs, const std::string& section,
                          const std::string& family) {
  const std::vector<std::string> variants = Variants(rs, family);
  const std::vector<int64_t> sizes = Sizes(rs, family);
  bool has_floor = false;
  for (const int64_t size : sizes) has_floor |= FloorAt(rs, family, size).has_value();
  std::string out =
      absl::StrCat("### ", family, "\n\n![", family, ": time against ", SizeKey(rs, family),
                   "](plots/", PlotStem(section, family), ".png)\n\n");
  absl::StrAppend(&out, has_floor ? "Time in ms; in brackets, over the bandwidth floor.\n\n"
                                  : "Time in ms.\n\n");
  absl::StrAppend(&out, "| ", SizeKey(rs, family), " | ", absl::StrJoin(variants, " | "),
                  has_floor ? " | floor |\n|---|" : " |\n|---|");
  for (size_t i = 0; i < variants.size() + (has_floor ? 1 : 0); ++i) {
    absl::StrAppend(&out, "---|");
  }
  absl::StrAppend(&out, "\n");
  for (const int64_t size : sizes) {
    absl::StrAppend(&out, "| ", size, " |");
    for (const std::string& v : variants) {
      absl::StrAppend(&out, " ", TimeCell(rs, Find(rs, family, v, size)), " |");
    }
    if (has_floor) {
      const std::optional<double> floor = FloorAt(rs, family, size);
      absl::StrAppend(&out, " ", floor ? Sig3(*floor) : "", " |");
    }
    absl::StrAppend(&out, "\n");
  }
  return out + "\n";
}

bool HasTargetFamily(const std::vector<Result>& rs) {
  for (const Target& t : Targets()) {
    for (const std::string& family : Families(rs)) {
      if (InTarget(t, family)) return true;
    }
  }
  return false;
}

// `gflop_per_s` as a fraction of the FMA peak's; "" without either.
std::string OfPeak(const std::optional<double>& gflop_per_s, const Result* peak) {
  if (!gflop_per_s || peak == nullptr || *peak->gflop_per_s <= 0) return "";
  return Sig3(*gflop_per_s / *peak->gflop_per_s);
}

// The held-back record of `family` at `size` among the section's files, or nullptr.
const HeldBack* HeldBackOf(const Report& report, const std::string& section,
                           const std::string& family, int64_t size) {
  for (const BenchmarkFile& f : report.files) {
    if (f.section != section) continue;
    for (const HeldBack& h : f.held_back) {
      if (h.workload == family && h.batch == size) return &h;
    }
  }
  return nullptr;
}

// For each workload and size one of `targets` missed at, what held its run back: the group of
// kernels with the most device time, what it computes, its GFLOP/s against the section's FMA
// peak, and the rule that would move it. Empty where no target was missed or no run was profiled.
std::string HeldBackTable(const Report& report, const std::string& section,
                          const std::vector<Result>& rs, const std::vector<TargetResult>& targets) {
  std::vector<std::pair<std::string, int64_t>> missed;
  for (const TargetResult& t : targets) {
    if (t.verdict != Verdict::kMissed || t.family.empty()) continue;
    const std::pair<std::string, int64_t> at{t.family, t.size};
    if (std::find(missed.begin(), missed.end(), at) == missed.end()) missed.push_back(at);
  }
  const Result* peak = MeasuredPeak(rs);
  std::string rows;
  for (const auto& [family, size] : missed) {
    const HeldBack* found = HeldBackOf(report, section, family, size);
    if (found == nullptr) continue;
    // The device's share of dfc's timed run rather than of the profiled one, whose host time
    // the profiler's own recording inflates (MobileNet's 83 launches: 55 ms against 24).
    HeldBack h = *found;
    if (const Result* timed = Find(rs, family, kSubjectVariant, size);
        timed != nullptr && timed->error.empty() && timed->time_ms > 0) {
      h.run_ms = timed->time_ms;
    }
    const std::string computes =
        h.op.empty() ? "" : absl::StrCat(h.op, h.window.empty() ? "" : ", window " + h.window);
    const std::string busy =
        h.run_ms > 0 ? absl::StrCat(Sig3(h.device_busy_ms), " of ", Sig3(h.run_ms)) : "";
    const std::string kernel =
        h.kernel.empty() ? ""
        : h.kernels > 1  ? absl::StrCat(Code(h.kernel), " and ", h.kernels - 1, " like it")
                         : Code(h.kernel);
    absl::StrAppend(&rows, "| ", family, " | ", size, " | ", kernel, " | ",
                    h.kernel.empty() ? "" : Sig3(h.kernel_share), " | ", computes, " | ",
                    h.gflops > 0 ? Sig3(h.gflops) : "", " | ",
                    h.gflops > 0 ? OfPeak(h.gflops, peak) : "", " | ", busy, " | ",
                    RuleThatWouldMove(h), " |\n");
  }
  if (rows.empty()) return "";
  return absl::StrCat(
      "### What holds the missed targets back\n\n"
      "For each workload and size a missed target was judged at, one run profiled right after it "
      "was timed (`bench/held_back.h`). Its kernels are grouped by what their heaviest graph "
      "node computes (the op, and a convolution's window); of the group with the most device "
      "time: its largest kernel, the group's share of the run's kernel time, what it computes, "
      "the group's GFLOP/s (its nodes' operations over its time) and their fraction of the FMA "
      "peak; then the device's busy time in the profiled run over dfc's timed run, in ms (a run "
      "the device is idle in most of is held back by the host, not a kernel); and the rule that "
      "would move it.\n\n"
      "| workload | size | kernels | share of kernel time | computing | GFLOP/s | of peak | "
      "device busy / dfc ms | the rule that would move it |\n"
      "|---|---|---|---|---|---|---|---|---|\n",
      rows, "\n");
}

// The families timed by dfc and a peer, in one table: per family and batch, dfc's time and each
// peer's, dfc's ratio to each peer (and, with two, to the faster), and the GFLOP/s of each with
// its fraction of the FMA peak; then each family's plot. Only the peers that ran in the section
// get columns. Empty without such families.
std::string PeerSection(const Report& report, const std::vector<Result>& rs,
                        const std::string& section) {
  std::vector<std::string> families;
  for (const std::string& family : PlottedFamilies(rs)) {
    if (IsPeerFamily(rs, family)) families.push_back(family);
  }
  if (families.empty()) return "";
  const std::vector<std::string> peers = PeersOf(rs, families);
  std::vector<std::string> ran_with;
  for (const BenchmarkFile& f : report.files) {
    if (f.section == section) ran_with.push_back(f.context.peer);
  }
  const bool has_onnx = std::find(peers.begin(), peers.end(), kOnnxPeerVariant) != peers.end();
  const Result* peak = MeasuredPeak(rs);
  std::string out = absl::StrCat(
      "### dfc against ", absl::StrJoin(peers, " and "), "\n\n",
      "End to end, on the same machine in the same run: `", kSubjectVariant,
      "` is one `DeviceSession::Run` with the input uploaded and the output read back, `",
      kPeerVariant, "` one forward in eval mode under `no_grad`",
      has_onnx ? absl::StrCat(", `", kOnnxPeerVariant,
                              "` one `session.run` of the same twin exported to ONNX, by ONNX "
                              "Runtime's CPU execution provider")
               : "",
      " (", CodeList(Distinct(ran_with)),
      "); for a `train_` family, each one training step (forward, gradients, the optimizer's "
      "update) with the loss read back; for `gemm_1024`, one product of a fed [batch,1024] and a "
      "fed [1024,1024] (`torch.mm`). Times in ms: `",
      kSubjectVariant,
      "`'s the median of its repetitions, a peer's the median of its runs; the "
      "same figures are in `peer.json` beside the section's files. GFLOP/s are those of a CNN's "
      "convolutions (2 × their multiply-adds) or of the GEMM; \"of peak\" divides them by the "
      "machine's float32 FMA peak, ",
      peak != nullptr ? absl::StrCat(Sig3(*peak->gflop_per_s), " GFLOP/s as `", peak->family, "/",
                                     peak->variant, "/", peak->size_key, ":", peak->size,
                                     "` measured it in the same run")
                      : "not measured in this section",
      ".\n\n");
  const std::string dfc_over = absl::StrCat(kSubjectVariant, " / ");
  std::vector<std::string> header = {"model", SizeKey(rs, families[0]),
                                     absl::StrCat(kSubjectVariant, " ms")};
  for (const std::string& peer : peers) header.push_back(peer + " ms");
  for (const std::string& peer : peers) header.push_back(dfc_over + peer);
  if (peers.size() > 1) header.push_back(dfc_over + "faster peer");
  header.push_back(absl::StrCat(kSubjectVariant, " GFLOP/s"));
  header.push_back(absl::StrCat(kSubjectVariant, " of peak"));
  for (const std::string& peer : peers) {
    header.push_back(peer + " GFLOP/s");
    header.push_back(peer + " of peak");
  }
  absl::StrAppend(&out, "| ", absl::StrJoin(header, " | "), " |\n|");
  for (size_t i = 0; i < header.size(); ++i) absl::StrAppend(&out, "---|");
  absl::StrAppend(&out, "\n");
  const auto ok = [](const Result* r) { return r != nullptr && r->error.empty(); };
  const auto gflops = [&](const Result* r) {
    return ok(r) && r->gflop_per_s ? Sig3(*r->gflop_per_s) : "";
  };
  const auto of_peak = [&](const Result* r) { return ok(r) ? OfPeak(r->gflop_per_s, peak) : ""; };
  for (const std::string& family : families) {
    for (const int64_t size : Sizes(rs, family)) {
      const Result* dfc = Find(rs, family, kSubjectVariant, size);
      std::vector<const Result*> timed;
      for (const std::string& peer : peers) timed.push_back(Find(rs, family, peer, size));
      // dfc's time over a peer's: where both succeeded.
      const auto ratio = [&](const Result* peer) {
        return ok(dfc) && ok(peer) && peer->time_ms > 0 ? Sig3(dfc->time_ms / peer->time_ms) : "";
      };
      absl::StrAppend(&out, "| ", family, " | ", size, " | ", TimeCell(rs, dfc), " |");
      for (const Result* peer : timed) absl::StrAppend(&out, " ", TimeCell(rs, peer), " |");
      for (const Result* peer : timed) absl::StrAppend(&out, " ", ratio(peer), " |");
      if (peers.size() > 1) {
        // Against the faster only where every peer ran: one alone is not the faster.
        const bool all = std::all_of(timed.begin(), timed.end(), ok);
        const Result* faster = nullptr;
        for (const Result* peer : timed) {
          if (ok(peer) && (faster == nullptr || peer->time_ms < faster->time_ms)) faster = peer;
        }
        absl::StrAppend(&out, " ", all ? ratio(faster) : "", " |");
      }
      absl::StrAppend(&out, " ", gflops(dfc), " | ", of_peak(dfc), " |");
      for (const Result* peer : timed) {
        absl::StrAppend(&out, " ", gflops(peer), " | ", of_peak(peer), " |");
      }
      absl::StrAppend(&out, "\n");
    }
  }
  absl::StrAppend(&out, "\n");
  for (const std::string& family : families) {
    absl::StrAppend(&out, "![", family, ": time against ", SizeKey(rs, family), "](plots/",
                    PlotStem(section, family), ".png)\n\n");
  }
  return out;
}

std::string SectionText(const Report& report, const std::string& section) {
  const std::vector<Result> rs = SectionResults(report, section);
  std::vector<std::string> sources, hosts;
  for (const BenchmarkFile& f : report.files) {
    if (f.section != section) continue;
    sources.push_back(f.source);
    hosts.push_back(f.context.host_name);
  }
  std::string out = absl::StrCat("## ", section, "\n\nFrom ", CodeList(sources), " on ",
                                 CodeList(Distinct(hosts)), ", OpenCL device(s) ",
                                 CodeList(Devices(rs)), ".\n\n");
  // A section of other workloads only (the CNNs against PyTorch) has no target to check.
  if (HasTargetFamily(rs)) {
    const std::vector<TargetResult> targets = EvaluateTargets(rs);
    absl::StrAppend(&out, TargetsTable(targets), HeldBackTable(report, section, rs, targets));
  }
  absl::StrAppend(&out, PeerSection(report, rs, section));
  for (const std::string& family : PlottedFamilies(rs)) {
    if (!IsPeerFamily(rs, family)) absl::StrAppend(&out, FamilySection(rs, section, family));
  }
  return out;
}

}  // namespace

std::string RenderMarkdown(const Report& report) {
  std::string out = Header(report);
  for (const std::string& section : Sections(report)) {
    absl::StrAppend(&out, SectionText(report, section));
  }
  // One trailing newline, as editors and diffs expect.
  while (out.size() > 1 && out.back() == '\n' && out[out.size() - 2] == '\n') out.pop_back();
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

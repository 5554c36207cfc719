// The performance targets (bench/targets.json): reading the table, and judging a section's
// results against it (report.h's EvaluateTargets).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "bench/report/report.h"
#include "bench/report/section.h"
#include "nlohmann/json.hpp"

namespace dfc::bench::report {
namespace {

using json = nlohmann::json;

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

// `value`'s entry among `names` (text, enum), or an error naming target `target`, `what` and
// the choices.
template <typename E>
absl::StatusOr<E> OneOf(const std::string& value,
                        const std::vector<std::pair<std::string, E>>& names,
                        const std::string& what, const std::string& target) {
  std::vector<std::string> choices;
  for (const auto& [name, e] : names) {
    if (name == value) return e;
    choices.push_back(name);
  }
  return absl::InvalidArgumentError(absl::StrCat("target \"", target, "\": ", what, " is \"", value,
                                                 "\", expected one of ",
                                                 absl::StrJoin(choices, ", ")));
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
  DFC_ASSIGN_OR_RETURN(t.measure,
                       OneOf<Measure>(j.value("measure", ""),
                                      {{"floor_fraction", Measure::kFloorFraction},
                                       {"speedup", Measure::kSpeedup},
                                       {"bandwidth_ratio", Measure::kBandwidthRatio},
                                       {"speedup_over_peers", Measure::kSpeedupOverPeers},
                                       {"time", Measure::kTime},
                                       {"peak_fraction", Measure::kPeakFraction},
                                       {"host_overhead", Measure::kHostOverhead}},
                                      "the measure", t.name));
  DFC_ASSIGN_OR_RETURN(t.at, OneOf<At>(j.value("at", ""),
                                       {{"largest", At::kLargestSize},
                                        {"every", At::kEverySize},
                                        {"given", At::kGivenSize},
                                        {"from", At::kFromSize}},
                                       "\"at\"", t.name));
  DFC_ASSIGN_OR_RETURN(
      t.device, OneOf<Device>(j.value("device", "any"),
                              {{"any", Device::kAny}, {"cpu", Device::kCpu}, {"gpu", Device::kGpu}},
                              "the device", t.name));
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

bool HasTargetFamily(const std::vector<Result>& rs) {
  for (const Target& t : Targets()) {
    for (const std::string& family : Families(rs)) {
      if (InTarget(t, family)) return true;
    }
  }
  return false;
}

}  // namespace dfc::bench::report

// Lookups over one section's results and the report's number formats (section.h).
#include "bench/report/section.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dfc::bench::report {

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

}  // namespace dfc::bench::report

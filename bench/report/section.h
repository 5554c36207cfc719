// What the report's parts (report.cc, targets.cc) share: lookups over one section's results and
// the report's number formats. Internal to bench/report/.
#ifndef DFC_BENCH_REPORT_SECTION_H_
#define DFC_BENCH_REPORT_SECTION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/report/report.h"

namespace dfc::bench::report {

// ---- Lookups over one section's results (the families and variants in order of first
// appearance, as the benchmark program registered them) ----------------------------------------

std::vector<std::string> Families(const std::vector<Result>& rs);
std::vector<std::string> Variants(const std::vector<Result>& rs, const std::string& family);
std::vector<int64_t> Sizes(const std::vector<Result>& rs, const std::string& family);
// The name of the size's key (batch, n, ...), as the family's runs give it.
std::string SizeKey(const std::vector<Result>& rs, const std::string& family);

// The run of family/variant/size. Of repeated runs, the one with the median time, so that one
// noisy repetition neither flatters nor sinks a figure; a failed run only when none succeeded.
const Result* Find(const std::vector<Result>& rs, const std::string& family,
                   const std::string& variant, int64_t size);

// The bandwidth floor at a size: the tightest of the variants' floors, from the fastest read
// bandwidth the run measured at the size.
std::optional<double> FloorAt(const std::vector<Result>& rs, const std::string& family,
                              int64_t size);

// `r`'s time over the floor at its size (FloorAt), or its own floor_fraction where the run
// recorded no floor_ms.
std::optional<double> FloorFraction(const std::vector<Result>& rs, const Result& r);

// The machine's FMA peak that the section measured: the fastest of kPeakFamily's results (one
// per vector width), or nullptr.
const Result* MeasuredPeak(const std::vector<Result>& rs);

// Whether `family` has a run of `variant` (at any size).
bool HasVariant(const std::vector<Result>& rs, const std::string& family,
                const std::string& variant);

// A family timed by a peer too (it has a variant of kPeerVariants).
bool IsPeerFamily(const std::vector<Result>& rs, const std::string& family);

// The peers (kPeerVariants, in that order) that timed at least one of `families`.
std::vector<std::string> PeersOf(const std::vector<Result>& rs,
                                 const std::vector<std::string>& families);

// The families drawn: all but the FMA peak, a figure beside the others rather than a workload.
std::vector<std::string> PlottedFamilies(const std::vector<Result>& rs);

// ---- Number formatting ------------------------------------------------------------------------

// Three significant digits, without an exponent for numbers of 1000 and over.
std::string Sig3(double x);
// The shortest text that reads back as the same double: CSV and gnuplot data lose nothing.
std::string Exact(double x);
// Exact(*x), or `missing`.
std::string ExactOr(const std::optional<double>& x, const std::string& missing);

// ---- Targets (targets.cc) ---------------------------------------------------------------------

// Whether some target names a family of `rs`.
bool HasTargetFamily(const std::vector<Result>& rs);

}  // namespace dfc::bench::report

#endif  // DFC_BENCH_REPORT_SECTION_H_

// The benchmark report: reads Google Benchmark JSON files (`--benchmark_out_format=json`) of the
// programs in bench/, whose benchmarks are named `family/variant/key:size`, and renders what
// `bench/run` publishes: results.csv, one gnuplot figure per family and section, and
// RESULTS.md with the project's performance targets checked against the numbers. Every figure
// in RESULTS.md comes from the files, so that no result is ever typed by hand.
//
// Everything but WriteReport is pure, so tests need neither files nor gnuplot.
#ifndef DFC_BENCH_REPORT_REPORT_H_
#define DFC_BENCH_REPORT_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfc::bench::report {

inline constexpr char kDefaultTitle[] = "dfc benchmark results";
inline constexpr char kDefaultSection[] = "CPU OpenCL device";

// The machine a file was recorded on, from its "context".
struct Context {
  std::string date;
  std::string host_name;
  int num_cpus = 0;
  double mhz_per_cpu = 0;
  std::string caches;  // summarised: "L1d 48 KiB, L1i 32 KiB, L2 2 MiB, L3 32 MiB shared by 2"
  std::string peer;    // what a peer's file was timed with (torch_peer.py: "PyTorch ...")
};

// The comparison with the peers (bench/peer_bench.cc and bench/cnn_bench.cc against
// bench/torch_peer.py and bench/ort_peer.js): a family with a variant of kPeerVariants is timed
// end to end both by dfc (kSubjectVariant) and by that peer, and RESULTS.md gives their ratios
// and each one's GFLOP/s as a fraction of the machine's FMA peak, the fastest result of the
// family kPeakFamily in the same section.
inline constexpr char kPeerVariant[] = "pytorch";          // PyTorch (bench/torch_peer.py)
inline constexpr char kOnnxPeerVariant[] = "onnxruntime";  // ONNX Runtime (bench/ort_peer.js)
inline constexpr const char* kPeerVariants[] = {kPeerVariant, kOnnxPeerVariant};
inline constexpr char kSubjectVariant[] = "dfc";
// dfc built at an earlier commit and this build, timed in turn (bench/peer's --before): what a
// target that dfc be no slower than before compares.
inline constexpr char kBeforeVariant[] = "before";
inline constexpr char kAfterVariant[] = "after";
inline constexpr char kPeakFamily[] = "fma_peak";

// One benchmark run, `family/variant/size_key:size`. Times are in milliseconds whatever the
// file's time_unit; a counter the benchmark did not set is empty.
struct Result {
  std::string section;
  std::string family;
  std::string variant;
  std::string size_key;  // "N", "B", "side", ...
  int64_t size = 0;
  double time_ms = 0;  // real (or manual) time per iteration; meaningless when error is set
  std::optional<double> gb_per_s;
  std::optional<double> gflop_per_s;
  std::optional<double> floor_ms;
  std::optional<double> floor_fraction;
  std::optional<double> read_gb_per_s;
  // A run's host time not covered by device work, as the profiler measures it (its report's
  // "host overhead ... a run"), in µs: the counter host_overhead_us.
  std::optional<double> host_overhead_us;
  std::string device;  // the benchmark's label: the OpenCL device name
  std::string error;   // empty unless the benchmark failed (error_occurred)
};

// What held one end-to-end run of a workload back, from a profiled run (bench/held_back.h): the
// group of kernels with the most device time, their heaviest graph node's op and window alike.
// The file's other fields (the group's milliseconds, the heaviest node's name) are for readers.
struct HeldBack {
  std::string workload;     // a family
  int64_t batch = 0;        // its size
  std::string kernel;       // the group's largest kernel
  int kernels = 0;          // the group's kernels
  double kernel_share = 0;  // of the run's kernel time
  double gflops = 0;        // the group's graph nodes' operations over its time; 0: unknown
  std::string op;           // the largest kernel's heaviest node's
  std::string window;       // a convolution's, "3x3"; empty otherwise
  double run_ms = 0;        // the run's host time
  double device_busy_ms = 0;
};

// One Google Benchmark JSON file, or one file of what held runs back ({"held_back": [...]}).
struct BenchmarkFile {
  std::string source;   // the path it was read from, as given
  std::string section;  // the report section it belongs to
  Context context;
  std::vector<Result> results;  // in file order; aggregates (mean, median, ...) left out
  std::vector<HeldBack> held_back;
};

// What a report is made from: files in command-line order, each with its section.
struct Report {
  std::string title = kDefaultTitle;
  std::vector<BenchmarkFile> files;
};

// Parses Google Benchmark JSON `text` read from `source` (named in errors), or a held-back file
// (bench/held_back.h). Fails on malformed JSON, on a held-back row without its workload and
// batch, and on a benchmark name that is not `family/variant/key:integer` once Google
// Benchmark's suffixes (`/manual_time`, `/real_time`, `/repeats:3`, ...) are stripped.
absl::StatusOr<BenchmarkFile> ParseBenchmarkJson(const std::string& text, const std::string& source,
                                                 const std::string& section = kDefaultSection);

// Sections in order of first appearance, and every result of one of them.
std::vector<std::string> Sections(const Report& report);
std::vector<Result> SectionResults(const Report& report, const std::string& section);
std::vector<Result> AllResults(const Report& report);

// results.csv: one row per result, empty cells for missing values, RFC 4180 quoting.
std::string ToCsv(const std::vector<Result>& results);

// One checked target row. A target over several shapes gives one row per shape.
struct TargetResult {
  enum class Verdict { kMet, kMissed, kNotRun };
  std::string target;    // what is promised, with the shape where it names one
  std::string measured;  // the figures it was judged on
  Verdict verdict = Verdict::kNotRun;
  std::string family;  // the family and size judged; empty where none was
  int64_t size = 0;
};

// The rule that would move a kernel held back as `h` says, from the op of its heaviest node and
// the share of the run the device was busy.
std::string RuleThatWouldMove(const HeldBack& h);

// The performance targets: bench/targets.json's text, embedded at build time.
extern const char kTargetsJson[];

// OK if `text` is a table of targets in bench/targets.json's form, each complete and of known
// measures, sizes and devices; else an error naming the first target that is not.
absl::Status ValidateTargets(absl::string_view text);

// Checks the targets (bench/targets.json) against the results of one section. A benchmark
// that failed misses its target; one that is absent leaves it "not run".
std::vector<TargetResult> EvaluateTargets(const std::vector<Result>& section_results);

// Whether `section` holds a GPU's results: its name holds "GPU" (bench/run --section GPU ...).
// The GPU targets are judged there: the peer is PyTorch CUDA.
bool IsGpuSection(const std::string& section);

// bench/results/peer.json: for each family timed by dfc (kSubjectVariant) and a peer (a variant
// of kPeerVariants), each batch either ran at and each peer the family has, {"workload",
// "batch", "dfc_ms", "peer", "peer_ms"}, each time the median of its repetitions (as RESULTS.md
// takes it); a side that did not run or failed is null. "peer" is the peer's variant
// ("pytorch", "onnxruntime"). In the order the families ran, then by batch, then peer.
std::string PeerJson(const std::vector<Result>& results);

// "met", "**MISSED**" or "not run", as RESULTS.md prints them.
std::string VerdictText(TargetResult::Verdict verdict);

// The file stem of a family's plot in a section: "<section-slug>_<family>", with characters a
// file name should not hold replaced by '_'.
std::string PlotStem(const std::string& section, const std::string& family);

// A family's plot of one section: time (ms) against size, a line per variant, and the bandwidth
// floor dashed. GnuplotData is the `<stem>.dat` that GnuplotScript's `<stem>.gp` reads; the
// script writes `<stem>.png`, all three in one directory.
std::string GnuplotData(const std::vector<Result>& section_results, const std::string& family);
std::string GnuplotScript(const std::vector<Result>& section_results, const std::string& family,
                          const std::string& stem);

// RESULTS.md, whole.
std::string RenderMarkdown(const Report& report);

// Writes `out_dir`/results.csv, RESULTS.md and plots/<stem>.{dat,gp}, then runs gnuplot in
// plots/ for each <stem>.png. Fails if a file cannot be written, or if gnuplot is missing or
// fails (the other files are written first).
absl::Status WriteReport(const Report& report, const std::string& out_dir);

}  // namespace dfc::bench::report

#endif  // DFC_BENCH_REPORT_REPORT_H_

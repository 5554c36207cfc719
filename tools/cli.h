// Shared pieces of the dfc command line: argument parsing and exit codes.
#ifndef DFC_TOOLS_CLI_H_
#define DFC_TOOLS_CLI_H_

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/feed.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "graph/saved_model.h"
#include "nlohmann/json.hpp"
#include "runtime/device_executor.h"

namespace dfc::cli {

// Exit status: 0 success, 1 a problem with the input, 2 bad usage.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInput = 1;
inline constexpr int kExitUsage = 2;

struct FlagSpec {
  std::string name;  // without the leading "--"
  bool takes_value = false;
  bool repeatable = false;
};

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> values;  // flag -> its values, in order

  bool Has(const std::string& flag) const { return values.contains(flag); }
  // The flag's single value, or `fallback` when absent.
  std::string Get(const std::string& flag, const std::string& fallback = "") const;
  const std::vector<std::string>& All(const std::string& flag) const;
};

// Parses `--flag value`, `--flag=value` and positional arguments; an unknown flag, a missing
// value or a repeated non-repeatable flag is an InvalidArgument error (a usage error).
absl::StatusOr<Args> ParseArgs(const std::vector<std::string>& argv,
                               const std::vector<FlagSpec>& specs);

// By default, everything the graph computes: the outputs of the nodes nothing consumes, and
// the no-output ones (a training step's NoOp) and the unconsumed variable writes (Assign) as
// targets, where all they need is supported.
void DefaultFetches(const Graph& graph, std::vector<TensorId>& fetches,
                    std::vector<std::string>& targets);

// With `--init-variables`, appends every variable's initialiser (VariableInitialisers) to
// `init`; an error names a variable that has none.
absl::Status AddVariableInitialisers(const Args& args, const Graph& graph,
                                     std::vector<std::string>& init);

// `--shapes` text: "keep_prob=[];X=[?,784]" -> {keep_prob: [], X: [-1,784]}.
absl::StatusOr<absl::flat_hash_map<std::string, PartialShape>> ParseShapes(absl::string_view text);

// `--platform N` (default -1: any platform); an error if N is not a number.
absl::StatusOr<int> PlatformIndex(const Args& args);

// The OpenCL device that `--device KIND` (default auto) and `--platform N` name, with a program
// cache in DefaultCacheDir(), ready to run translated graphs.
absl::StatusOr<std::unique_ptr<DeviceExecutor>> OpenDeviceExecutor(const Args& args,
                                                                   DeviceExecutor::Options options);

// The tensors `--fetch T[,T...]` names (the flag may repeat); an error for a bad name.
absl::StatusOr<std::vector<TensorId>> FetchList(const Args& args);

// Seeded uniform [-1, 1) values for every placeholder of `graph`, unknown dims set to `n`:
// what `dfc bench` and `dfc compile --tune` time with. Float placeholders of known rank only.
// Placeholders named in `skip` get none; one declared without a shape takes its shape from
// `shapes` (`--shape`) where given.
absl::StatusOr<std::vector<Feed>> RandomFeeds(
    const Graph& graph, int64_t n, const std::set<std::string>& skip = {},
    const absl::flat_hash_map<std::string, PartialShape>& shapes = {});

// The integer value of `--flag` (`fallback` when absent), at least `min`; an InvalidArgument
// error naming the flag otherwise.
absl::StatusOr<int> CountFlag(const Args& args, const std::string& flag, int fallback, int min);

// The tensors `--feed NAME=FILE.npy` give (the flag may repeat), each NAME parsed (ParseFeed).
// A malformed flag is an InvalidArgument error that starts with "--feed"; an unreadable file,
// the file's error. The sessions they go to check them against the graph (CheckFeeds).
absl::StatusOr<std::vector<Feed>> ReadFeeds(const Args& args);
// Reports ReadFeeds' error: a malformed flag as a usage error with `usage`, a file's error as
// an input error. Returns the exit status.
int ReportFeedsError(const absl::Status& status, const std::string& usage);

// JSON text of `j`, two-space indented. Node names and messages come from user files and
// need not be UTF-8: invalid bytes become U+FFFD instead of an exception.
std::string DumpJson(const nlohmann::json& j);

// An InvalidArgument error that a command reports as a usage error, with its usage text.
absl::Status UsageError(absl::string_view message);
bool IsUsageError(const absl::Status& status);

// Prints "dfc: error: MESSAGE" on stderr and returns kExitInput.
int ReportError(const absl::Status& status);
// Prints "dfc: usage error: MESSAGE" and the command's usage on stderr; returns kExitUsage.
int ReportUsage(const std::string& message, const std::string& usage);

// The commands; argv excludes "dfc" and the command name.
int Inspect(const std::vector<std::string>& argv);
int Compile(const std::vector<std::string>& argv);
// `dfc compile` on parsed flags (CompileFlags), for the command and the Python module: writes
// the plan, prints what it did to `out` and the tuner's progress to `progress` (may be null).
std::vector<FlagSpec> CompileFlags();
absl::Status CompileWithArgs(const Args& args, std::ostream& out, std::ostream* progress);
int Run(const std::vector<std::string>& argv);
int Conformance(const std::vector<std::string>& argv);
int Bench(const std::vector<std::string>& argv);
int Profile(const std::vector<std::string>& argv);

}  // namespace dfc::cli

#endif  // DFC_TOOLS_CLI_H_

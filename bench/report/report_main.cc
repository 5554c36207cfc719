// dfc_bench_report: turns the Google Benchmark JSON files of a `bench/run` into results.csv,
// plots/*.png and RESULTS.md (see report.h).
//
//   dfc_bench_report --out DIR [--title T] [--section NAME] FILE.json... [--section NAME FILE...]
//   dfc_bench_report --peer-json FILE FILE.json...
//
// A --section applies to the files after it, up to the next --section. --peer-json writes the
// comparison with the peer of every file given (report.h's PeerJson), with --out or without.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/report/report.h"

namespace {

using dfc::bench::report::BenchmarkFile;
using dfc::bench::report::Report;

constexpr char kUsage[] =
    "usage: dfc_bench_report --out DIR [--title T] [--section NAME] FILE.json... "
    "[--section NAME FILE.json...]\n"
    "       dfc_bench_report --peer-json FILE FILE.json...\n";

struct Args {
  std::string out_dir;
  std::string peer_json;
  Report report;
};

absl::StatusOr<BenchmarkFile> ReadFile(const std::string& path, const std::string& section) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("error reading ", path));
  return dfc::bench::report::ParseBenchmarkJson(text.str(), path, section);
}

// Takes the value of `--flag VALUE` or `--flag=VALUE`; false if `arg` is not that flag.
absl::StatusOr<bool> FlagValue(const std::string& flag, int argc, char** argv, int& i,
                               std::string& value) {
  const std::string arg = argv[i];
  if (arg.starts_with(flag + "=")) {
    value = arg.substr(flag.size() + 1);
    return true;
  }
  if (arg != flag) return false;
  if (i + 1 >= argc) return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
  value = argv[++i];
  return true;
}

absl::StatusOr<Args> ParseArgs(int argc, char** argv) {
  Args args;
  std::string section = dfc::bench::report::kDefaultSection;
  for (int i = 1; i < argc; ++i) {
    bool matched = false;
    for (auto [flag, value] : {std::pair<const char*, std::string*>{"--out", &args.out_dir},
                               {"--peer-json", &args.peer_json},
                               {"--title", &args.report.title},
                               {"--section", &section}}) {
      absl::StatusOr<bool> m = FlagValue(flag, argc, argv, i, *value);
      if (!m.ok()) return m.status();
      if ((matched = *m)) break;
    }
    if (matched) continue;
    const std::string arg = argv[i];
    if (arg.starts_with("--")) return absl::InvalidArgumentError("unknown flag " + arg);
    absl::StatusOr<BenchmarkFile> file = ReadFile(arg, section);
    if (!file.ok()) return file.status();
    args.report.files.push_back(*std::move(file));
  }
  if (args.out_dir.empty() && args.peer_json.empty()) {
    return absl::InvalidArgumentError("--out DIR or --peer-json FILE is required");
  }
  if (args.report.files.empty()) return absl::InvalidArgumentError("no benchmark JSON files");
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << kUsage;
      return 0;
    }
  }
  absl::StatusOr<Args> args = ParseArgs(argc, argv);
  if (!args.ok()) {
    std::cerr << "dfc_bench_report: " << args.status().message() << "\n" << kUsage;
    return 1;
  }
  if (!args->peer_json.empty()) {
    std::ofstream out(args->peer_json, std::ios::binary | std::ios::trunc);
    out << dfc::bench::report::PeerJson(dfc::bench::report::AllResults(args->report));
    out.close();
    if (!out) {
      std::cerr << "dfc_bench_report: cannot write " << args->peer_json << "\n";
      return 1;
    }
    std::cout << "wrote " << args->peer_json << "\n";
  }
  if (args->out_dir.empty()) return 0;
  if (absl::Status s = dfc::bench::report::WriteReport(args->report, args->out_dir); !s.ok()) {
    std::cerr << "dfc_bench_report: " << s.message() << "\n";
    return 1;
  }
  std::cout << "wrote " << args->out_dir << "/RESULTS.md, results.csv and plots/\n";
  return 0;
}

// The kernel corpus: the OpenCL C of every kernel dfc generates for the graphs it is tested and
// benchmarked on, written to a folder, so that a change to the compiler can be diffed kernel by
// kernel (tools/kernel-diff). It covers every cluster of ../shared/models (compiled as
// `dfc compile` does), of the conformance cases (translated for their feeds, as `dfc conformance`
// runs them) and of tests/workloads (under each fusion strategy bench/ times), for every named
// device profile, with the default strategy and with every entry of bench/tuning.json whose
// cluster is one of them. A cluster whose kernel cannot be generated leaves a `.error` file with
// the message instead, so a change in what is refused shows in the diff too.
//
//   kernel_corpus OUT_DIR [--filter REGEX] [--no-refusals]
// REGEX selects items by their path ("models/|seed"); with --no-refusals a refusal fails the
// run (exit 1): CTest checks that every cluster of the corpus generates for every profile.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/kernel_gen.h"
#include "graph/loader.h"
#include "graph/npy.h"
#include "nlohmann/json.hpp"
#include "rewrite/device_profile.h"
#include "rewrite/explore.h"
#include "runtime/compile.h"
#include "runtime/device_executor.h"
#include "runtime/plan.h"
#include "runtime/translate_for_feeds.h"
#include "runtime/tuning_db.h"
#include "tests/workloads.h"
#include "tools/cli.h"

namespace dfc {
namespace {

namespace fs = std::filesystem;

struct Corpus {
  fs::path out;
  std::regex filter;
  std::vector<rewrite::DeviceProfile> profiles;
  int64_t kernels = 0;
  int64_t errors = 0;

  bool Wants(const std::string& item) const { return std::regex_search(item, filter); }

  void Write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }

  // Writes cluster c's kernel, or why it has none, under `dir`.
  void WriteKernel(const fs::path& dir, size_t c, const absl::StatusOr<codegen::KernelSource>& k) {
    const std::string stem = absl::StrCat("cluster_", c);
    if (k.ok()) {
      Write(dir / (stem + ".cl"), k->source);
      ++kernels;
    } else {
      Write(dir / (stem + ".error"), absl::StrCat(k.status().ToString(), "\n"));
      ++errors;
    }
  }
};

// The kernels of `translated`'s clusters for every profile, as a device run generates them.
void WriteTranslated(Corpus& corpus, const fs::path& dir, const Graph& graph,
                     const ir::TranslatedGraph& translated) {
  for (const rewrite::DeviceProfile& profile : corpus.profiles) {
    for (size_t c = 0; c < translated.clusters.size(); ++c) {
      absl::StatusOr<ClusterKernel> kernel =
          CompileCluster(translated.clusters[c], {},
                         {.name = absl::StrCat("dfc_cluster_", c),
                          .nodes = ClusterNodeNames(graph, translated.partition.clusters[c]),
                          .profile = profile});
      corpus.WriteKernel(
          dir / profile.name, c,
          kernel.ok() ? absl::StatusOr<codegen::KernelSource>(kernel->source) : kernel.status());
    }
  }
}

// The kernels CompilePlan makes of `spec` for every profile: every cluster's, or those in
// `only` (with the steps spec gives them).
void WritePlans(Corpus& corpus, const fs::path& dir, const std::shared_ptr<const Graph>& graph,
                PlanSpec spec, const std::vector<size_t>& only = {}) {
  for (const rewrite::DeviceProfile& profile : corpus.profiles) {
    spec.profile = profile;
    absl::StatusOr<Plan> plan = CompilePlan(graph, spec);
    if (!plan.ok()) {
      corpus.Write(dir / profile.name / "plan.error", absl::StrCat(plan.status().ToString(), "\n"));
      ++corpus.errors;
      continue;
    }
    for (size_t c = 0; c < plan->kernels.size(); ++c) {
      if (!only.empty() && std::find(only.begin(), only.end(), c) == only.end()) continue;
      corpus.WriteKernel(dir / profile.name, c, plan->kernels[c]);
    }
  }
}

void WriteModels(Corpus& corpus, const fs::path& models) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(models)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".pb" || ext == ".pbtxt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const std::string item = absl::StrCat("models/", file.filename().string());
    if (!corpus.Wants(item)) continue;
    absl::StatusOr<Graph> graph = LoadGraph(file.string());
    if (!graph.ok()) {
      corpus.Write(corpus.out / item / "load.error", graph.status().ToString());
      continue;
    }
    PlanSpec spec;
    cli::DefaultFetches(*graph, spec.fetches, spec.targets);
    for (std::string& node : SplitInitialisers(*graph, spec.targets)) {
      spec.init.push_back(std::move(node));
    }
    WritePlans(corpus, corpus.out / item, std::make_shared<const Graph>(*std::move(graph)), spec);
  }
}

void WriteConformance(Corpus& corpus, const fs::path& cases) {
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(cases)) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    const std::string item = absl::StrCat("conformance/", dir.filename().string());
    if (!corpus.Wants(item)) continue;
    std::ifstream manifest_file(dir / "manifest.json");
    const nlohmann::json manifest = nlohmann::json::parse(manifest_file, nullptr, false);
    absl::StatusOr<Graph> graph = LoadGraph((dir / "graph.pb").string());
    if (manifest.is_discarded() || !graph.ok()) {
      corpus.Write(corpus.out / item / "load.error", "unreadable case\n");
      continue;
    }
    std::vector<Feed> feeds;
    if (manifest.contains("inputs")) {
      for (const auto& [name, file] : manifest["inputs"].items()) {
        absl::StatusOr<Tensor> value = ReadNpy((dir / file.get<std::string>()).string());
        if (!value.ok()) continue;
        absl::StatusOr<Feed> feed = ParseFeed(name, *std::move(value));
        if (feed.ok()) feeds.push_back(*std::move(feed));
      }
    }
    std::vector<TensorId> fetches;
    for (const auto& [name, file] : manifest["outputs"].items()) {
      if (absl::StatusOr<TensorId> id = TensorId::Parse(name); id.ok()) fetches.push_back(*id);
    }
    absl::StatusOr<ir::TranslatedGraph> translated = TranslateForFeeds(*graph, fetches, feeds);
    if (!translated.ok()) {
      corpus.Write(corpus.out / item / "translate.error", translated.status().ToString());
      continue;
    }
    WriteTranslated(corpus, corpus.out / item, *graph, *translated);
  }
}

// Every workload of tests/workloads at one size each (a plan's kernels do not depend on the
// batch), under the three fusion strategies; then every tuning entry whose cluster one of the
// fused plans holds, with its steps and work-group size.
void WriteWorkloads(Corpus& corpus, const TuningDb& db) {
  std::vector<workloads::Workload> all = {workloads::Seed(64), workloads::Relu(64),
                                          workloads::Chain(1 << 16)};
  for (const workloads::Contraction& c : workloads::Contractions()) {
    all.push_back(workloads::MatMul(c));
  }
  for (workloads::Workload& model : workloads::Models(64)) all.push_back(std::move(model));
  std::map<std::string, bool> written;  // tuning entries, by cluster, bucket and device
  for (const workloads::Workload& w : all) {
    const std::string item = absl::StrCat("workloads/", w.name);
    if (!corpus.Wants(item)) continue;
    absl::StatusOr<Graph> graph = w.graph();
    if (!graph.ok()) {
      corpus.Write(corpus.out / item / "load.error", graph.status().ToString());
      continue;
    }
    auto shared = std::make_shared<const Graph>(*std::move(graph));
    PlanSpec spec{.targets = w.targets, .init = w.init};
    for (const std::string& fetch : w.fetches) spec.fetches.push_back({fetch, 0});
    for (const auto& [fusion, name] : {std::pair{Fusion::kAll, "fused"},
                                       {Fusion::kSeparateContractions, "split"},
                                       {Fusion::kNone, "unfused"}}) {
      spec.fusion = fusion;
      WritePlans(corpus, corpus.out / item / name, shared, spec);
    }
    spec.fusion = Fusion::kAll;
    spec.profile = *rewrite::NamedProfile("cpu");
    absl::StatusOr<Plan> plan = CompilePlan(shared, spec);
    if (!plan.ok()) continue;
    for (size_t c = 0; c < plan->translated.clusters.size(); ++c) {
      const ir::TranslatedCluster& cluster = plan->translated.clusters[c];
      const std::string hash = ClusterHash(cluster);
      for (const TuningEntry& entry : db.entries()) {
        // Clusters of other workloads may print alike (ClusterHash) and differ in their types:
        // an entry is this cluster's if its steps make the variant it recorded here.
        if (entry.cluster != hash || !CheckReplays(entry, cluster).ok()) continue;
        std::string key = absl::StrCat(hash, "_", entry.bucket, "_", entry.device);
        std::replace_if(
            key.begin(), key.end(), [](char ch) { return !std::isalnum(ch); }, '_');
        if (written[key]) continue;
        written[key] = true;
        PlanSpec tuned = spec;
        tuned.steps.assign(plan->translated.clusters.size(), {});
        tuned.work_group_sizes.assign(plan->translated.clusters.size(), -1);
        tuned.steps[c] = entry.steps;
        tuned.work_group_sizes[c] = entry.work_group_size;
        WritePlans(corpus, corpus.out / "tuned" / key, shared, tuned, {c});
      }
    }
  }
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: kernel_corpus OUT_DIR [--filter REGEX] [--no-refusals]\n";
    return 2;
  }
  Corpus corpus{.out = argv[1], .filter = std::regex("")};
  bool no_refusals = false;
  for (int k = 2; k < argc; ++k) {
    const std::string flag = argv[k];
    if (flag == "--filter" && k + 1 < argc) {
      corpus.filter = std::regex(argv[++k]);
    } else if (flag == "--no-refusals") {
      no_refusals = true;
    } else {
      std::cerr << "kernel_corpus: unknown argument " << flag << "\n";
      return 2;
    }
  }
  for (const std::string& name : rewrite::NamedProfiles()) {
    corpus.profiles.push_back(*rewrite::NamedProfile(name));
  }
  const fs::path shared = DFC_SHARED_DIR;
  absl::StatusOr<TuningDb> db =
      TuningDb::Load((fs::path(DFC_SOURCE_DIR) / "bench" / "tuning.json").string());
  if (!db.ok()) {
    std::cerr << db.status() << "\n";
    return 1;
  }
  fs::remove_all(corpus.out);
  WriteModels(corpus, shared / "models");
  WriteConformance(corpus, shared / "conformance" / "tf-dl4j");
  WriteWorkloads(corpus, *db);
  std::cout << corpus.kernels << " kernels and " << corpus.errors << " refusals written to "
            << corpus.out.string() << "\n";
  if (no_refusals && corpus.errors > 0) {
    std::cerr << "kernel_corpus: the generator refused " << corpus.errors
              << " of them (their .error files say why)\n";
    return 1;
  }
  return corpus.kernels > 0 ? 0 : 1;
}

}  // namespace
}  // namespace dfc

int main(int argc, char** argv) { return dfc::Main(argc, argv); }

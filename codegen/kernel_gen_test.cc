// GenerateKernel on every cluster of the MNIST softmax training graph, without running: the
// header comment, one `__kernel` per stage, the size arguments, a value bound by a let computed
// once by a stage of its own, the mappings of the GPU profiles, private arrays, and every
// source building on PoCL's CPU device without a warning.
#include "codegen/kernel_gen.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dfc_test_paths.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/type.h"
#include "rewrite/lower_for_device.h"
#include "runtime/device_executor.h"
#include "runtime/opencl/device.h"
#include "runtime/opencl/program_cache.h"
#include "runtime/translate_for_feeds.h"
#include "tests/test_util.h"

namespace dfc::codegen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// The kernel of `cluster` lowered for options.profile, without a contraction schedule: the
// generator's own choices, which these tests pin.
absl::StatusOr<KernelSource> LowerAndGenerate(const ir::TranslatedCluster& cluster,
                                              const KernelOptions& options) {
  absl::StatusOr<ir::ExprPtr> body = rewrite::LowerForDevice(cluster.lambda->body, options.profile);
  if (!body.ok()) return body.status();
  ir::TranslatedCluster lowered = cluster;
  lowered.lambda = std::make_shared<ir::Lambda>(cluster.lambda->params, *std::move(body));
  return GenerateKernel(lowered, options);
}

struct Generated {
  std::vector<std::string> nodes;  // "name (Op)"
  const ir::TranslatedCluster* cluster;
  KernelSource kernel;
};

// The training graph translated as `dfc inspect --clusters` translates it: every supported output
// nothing reads as a fetch, the no-output nodes (the training step) as targets, no feeds.
class KernelGenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Graph> graph =
        LoadGraph(testing::SharedDir() + "/models/dl4j_mnist_00_softmax_train.pbtxt");
    ASSERT_TRUE(graph.ok()) << graph.status();
    graph_ = std::make_unique<Graph>(*std::move(graph));
    std::vector<TensorId> fetches;
    std::vector<std::string> targets;
    for (int i = 0; i < graph_->num_nodes(); ++i) {
      if (graph_->IsConsumed(i) || graph_->num_outputs(i) < 0) continue;
      std::vector<TensorId> outs;
      for (int k = 0; k < graph_->num_outputs(i); ++k) outs.push_back({graph_->node(i).name, k});
      std::vector<std::string> target;
      if (outs.empty()) target.push_back(graph_->node(i).name);
      absl::StatusOr<std::vector<int>> needed = NeededNodes(*graph_, outs, target, {});
      if (!needed.ok() || !CheckSupported(*graph_, *needed).ok()) continue;
      fetches.insert(fetches.end(), outs.begin(), outs.end());
      targets.insert(targets.end(), target.begin(), target.end());
    }
    ReferenceFoldOracle oracle;
    absl::StatusOr<ir::TranslatedGraph> translated =
        ir::TranslateGraph(*graph_, fetches, targets, {}, oracle);
    ASSERT_TRUE(translated.ok()) << translated.status();
    translated_ = *std::move(translated);
    ASSERT_GE(translated_.clusters.size(), 2u);
    for (size_t c = 0; c < translated_.clusters.size(); ++c) {
      std::vector<std::string> nodes = ClusterNodeNames(*graph_, translated_.partition.clusters[c]);
      absl::StatusOr<KernelSource> kernel =
          LowerAndGenerate(translated_.clusters[c], {.name = "k", .nodes = nodes});
      ASSERT_TRUE(kernel.ok()) << "cluster " << c << ": " << kernel.status();
      generated_.push_back({std::move(nodes), &translated_.clusters[c], *std::move(kernel)});
    }
  }

  std::unique_ptr<Graph> graph_;
  ir::TranslatedGraph translated_;
  std::vector<Generated> generated_;
};

bool HasBatchInput(const ir::TranslatedCluster& cluster) {
  const auto& lambda = *cluster.lambda;
  return std::any_of(lambda.params.begin(), lambda.params.end(), [](const ir::ParamPtr& p) {
    return ir::TypeToString(p->type).find("_N") != std::string::npos;
  });
}

TEST_F(KernelGenTest, EveryClusterGetsAKernelPerStageWithItsNodesInTheHeader) {
  int with_batch = 0;
  for (size_t c = 0; c < generated_.size(); ++c) {
    const Generated& g = generated_[c];
    const std::string& source = g.kernel.source;
    SCOPED_TRACE(absl::StrCat("cluster ", c, ":\n", source));
    EXPECT_THAT(source, StartsWith("/"));
    // The header: the comment before the first line that is not one.
    const std::string header = source.substr(0, source.find("\n\n"));
    for (const std::string& node : g.nodes) EXPECT_THAT(header, HasSubstr(node));
    ASSERT_FALSE(g.kernel.stages.empty());
    EXPECT_EQ(g.kernel.stages.back().name, "k");
    for (const KernelStage& stage : g.kernel.stages) {
      EXPECT_THAT(source, HasSubstr("__kernel void " + stage.name + "("));
      EXPECT_FALSE(stage.rows.empty()) << stage.name;
    }
    EXPECT_EQ(Count(source, "__kernel void "), static_cast<int>(g.kernel.stages.size()));
    if (HasBatchInput(*g.cluster)) {
      ++with_batch;
      EXPECT_NE(std::find(g.kernel.size_args.begin(), g.kernel.size_args.end(), "N"),
                g.kernel.size_args.end());
    }
  }
  EXPECT_GE(with_batch, 1);
}

// Each stage declares the buffers and sizes its code names and no others (a launch costs the
// driver work for each buffer it is given), and KernelParameters reads them back: every name a
// stage's body uses as a whole identifier is among them.
TEST_F(KernelGenTest, EachStageTakesOnlyTheArgumentsItUses) {
  int fewer = 0;
  for (size_t c = 0; c < generated_.size(); ++c) {
    const Generated& g = generated_[c];
    SCOPED_TRACE(absl::StrCat("cluster ", c, ":\n", g.kernel.source));
    std::vector<std::string> all;
    for (size_t k = 0; k < g.cluster->params.size(); ++k) all.push_back(absl::StrCat("in", k));
    for (size_t k = 0; k < g.kernel.temporaries.size(); ++k) all.push_back(absl::StrCat("tmp", k));
    for (size_t k = 0; k < g.cluster->outputs.size(); ++k) all.push_back(absl::StrCat("out", k));
    for (const KernelStage& stage : g.kernel.stages) {
      absl::StatusOr<std::vector<std::string>> params =
          KernelParameters(g.kernel.source, stage.name);
      ASSERT_TRUE(params.ok()) << params.status();
      ASSERT_FALSE(params->empty()) << stage.name;
      // The stage's text: from its signature's end to the next kernel.
      const size_t begin =
          g.kernel.source.find(") {", g.kernel.source.find("void " + stage.name + "("));
      const std::string body =
          g.kernel.source.substr(begin, g.kernel.source.find("__kernel", begin) - begin);
      for (const std::string& name : all) {
        const bool declared = std::find(params->begin(), params->end(), name) != params->end();
        const bool used = std::regex_search(body, std::regex("\\b" + name + "\\b"));
        EXPECT_EQ(declared, used) << stage.name << " and " << name;
      }
      fewer += params->size() < all.size() + 1 + g.kernel.size_args.size();
    }
  }
  // The stages before a cluster's last write temporaries its outputs do not depend on directly.
  EXPECT_GE(fewer, 1);
  EXPECT_FALSE(KernelParameters(generated_[0].kernel.source, "no_such_kernel").ok());
}

// Cluster 0: MatMul + BiasAdd ("output"), read by the output and by ArgMax, is bound by a let
// at the top of the Lambda; it gets a stage and a temporary of its own, and the MatMul's
// reduction is called once.
TEST_F(KernelGenTest, ALetBoundValueIsComputedOnceByAStageOfItsOwn) {
  const Generated* with_let = nullptr;
  for (const Generated& g : generated_) {
    const bool has_matmul =
        std::find(g.nodes.begin(), g.nodes.end(), "MatMul (MatMul)") != g.nodes.end();
    if (has_matmul) with_let = &g;
  }
  ASSERT_NE(with_let, nullptr);
  const std::string ir = ir::ToString(with_let->cluster->lambda);
  ASSERT_THAT(ir, HasSubstr("=> (λ(")) << ir;
  const std::string& source = with_let->kernel.source;
  SCOPED_TRACE(source);
  EXPECT_GE(with_let->kernel.stages.size(), 2u);
  EXPECT_GE(with_let->kernel.temporaries.size(), 1u);
  const size_t first_kernel = source.find("__kernel");
  ASSERT_NE(first_kernel, std::string::npos);
  // The dot product's sum of products, one fused multiply-add.
  EXPECT_EQ(Count(source.substr(first_kernel), "dot_add_float32_fma("), 1);
}

// The gradient of W (MatMul_grad: 784 x 10 sums over the batch) has rows too few to fill a
// GPU: the amd profile maps it MapWrg/MapLcl, with its sums split across 256 work-items and
// combined in local memory; the cpu profile keeps MapGlb everywhere.
TEST_F(KernelGenTest, GpuProfilesSplitTheWeightGradientsBatchSums) {
  int split = 0;
  for (size_t c = 0; c < generated_.size(); ++c) {
    for (const KernelStage& stage : generated_[c].kernel.stages) {
      EXPECT_FALSE(stage.work_group_per_row) << "cluster " << c << " under the cpu profile";
    }
    absl::StatusOr<KernelSource> amd = LowerAndGenerate(
        *generated_[c].cluster, {.name = "k", .profile = *rewrite::NamedProfile("amd")});
    ASSERT_TRUE(amd.ok()) << amd.status();
    for (const KernelStage& stage : amd->stages) {
      if (!stage.work_group_per_row) continue;
      ++split;
      SCOPED_TRACE(amd->source);
      EXPECT_EQ(stage.work_group_size, 256);
      EXPECT_THAT(amd->source,
                  HasSubstr("__kernel __attribute__((reqd_work_group_size(256, 1, 1))) "
                            "void " +
                            stage.name + "("));
      EXPECT_THAT(amd->source, HasSubstr("__local float dfc_part_float[256];"));
      EXPECT_THAT(amd->source, HasSubstr("const long gid = get_group_id(0);"));
      EXPECT_THAT(amd->source, HasSubstr("barrier(CLK_LOCAL_MEM_FENCE);"));
      EXPECT_THAT(amd->source, HasSubstr("if (lid == 0) out"));
    }
  }
  EXPECT_GE(split, 1);
}

TEST_F(KernelGenTest, EverySourceBuildsOnTheCpuDevice) {
  absl::StatusOr<cl::DeviceInfo> info = cl::SelectDevice("cpu");
  if (!info.ok()) GTEST_SKIP() << "no OpenCL CPU device: " << info.status();
  absl::StatusOr<std::shared_ptr<cl::ClContext>> context = cl::ClContext::Create(*info);
  ASSERT_TRUE(context.ok()) << context.status();
  // A fresh directory, so every program is compiled from source here, not loaded.
  std::string dir_template =
      (std::filesystem::temp_directory_path() / "dfc-kernel-gen-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir_template.data()), nullptr);
  cl::ProgramCache cache(*context, dir_template);
  // The cpu profile's kernels, and the amd profile's (MapWrg/MapLcl, local memory, barriers).
  std::vector<KernelSource> sources;
  for (const Generated& g : generated_) sources.push_back(g.kernel);
  for (const Generated& g : generated_) {
    absl::StatusOr<KernelSource> amd =
        LowerAndGenerate(*g.cluster, {.name = "k", .profile = *rewrite::NamedProfile("amd")});
    ASSERT_TRUE(amd.ok()) << amd.status();
    sources.push_back(*std::move(amd));
  }
  for (size_t c = 0; c < sources.size(); ++c) {
    absl::StatusOr<std::shared_ptr<cl::ClProgram>> program = cache.Build(sources[c].source);
    EXPECT_TRUE(program.ok()) << "source " << c << ": " << program.status() << "\n"
                              << sources[c].source;
    if (!program.ok()) continue;
    for (const KernelStage& stage : sources[c].stages) {
      EXPECT_TRUE(cl::ProgramCache::CreateKernel(**program, stage.name).ok()) << stage.name;
    }
  }
  EXPECT_EQ(cache.builds_from_source(), static_cast<int64_t>(sources.size()));
  // Generated code builds without a warning.
  EXPECT_THAT(cache.build_warnings(), ::testing::IsEmpty());
  std::filesystem::remove_all(dir_template);
}

// A kernel that reads an index only known at run time (GatherV2's) flags one out of range; the
// runtime gives the others no flag of their own and reads none back.
TEST_F(KernelGenTest, OnlyAKernelThatReadsARuntimeIndexChecksIt) {
  for (const Generated& g : generated_) {
    EXPECT_FALSE(g.kernel.checks_indices) << g.kernel.source;
    EXPECT_THAT(g.kernel.source, Not(HasSubstr("*dfc_error = 1")));
  }
  absl::StatusOr<Graph> graph = ParseGraph(R"gd(
  node { name: "params" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 5 } } } } }
  node { name: "indices" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
  node { name: "gather" op: "GatherV2" input: "params" input: "indices" input: "axis"
    attr { key: "Tparams" value { type: DT_FLOAT } } attr { key: "Tindices" value { type: DT_INT32 } }
    attr { key: "Taxis" value { type: DT_INT32 } } }
)gd",
                                           "gather.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  ReferenceFoldOracle oracle;
  absl::StatusOr<ir::TranslatedGraph> translated =
      ir::TranslateGraph(*graph, {{"gather", 0}}, {}, {}, oracle);
  ASSERT_TRUE(translated.ok()) << translated.status();
  ASSERT_EQ(translated->clusters.size(), 1u);
  absl::StatusOr<KernelSource> kernel = LowerAndGenerate(translated->clusters[0], {});
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_TRUE(kernel->checks_indices);
  EXPECT_THAT(kernel->source, HasSubstr("*dfc_error = 1"));
}

// The generator prints lowered IR only: a translated body, its Maps not yet mapped onto
// work-items, is refused with the verifier's error.
TEST_F(KernelGenTest, TakesLoweredIrOnly) {
  absl::StatusOr<KernelSource> kernel = GenerateKernel(*generated_[0].cluster, {.name = "k"});
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(kernel.status().message(), HasSubstr("the lowering left "));
}

// The frozen MLP (784 -> 256 -> Abs -> 10 -> Softmax) is one cluster. Each work-item reads its
// row of hidden units once per output column and its logits three times (Softmax's max, sum
// and quotient): both are computed once into private arrays, so the 784-term dot products run
// once per hidden unit, not 30 times.
TEST(KernelGenPrivateArrayTest, ARowReadManyTimesIsComputedOnceIntoAPrivateArray) {
  absl::StatusOr<Graph> graph = LoadGraph(testing::SharedDir() + "/models/dl4j_mlp_00_frozen.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  ReferenceFoldOracle oracle;
  absl::StatusOr<ir::TranslatedGraph> translated = ir::TranslateGraph(
      *graph, {TensorId{"output", 0}}, {}, {}, oracle, {.fold_only_static = true});
  ASSERT_TRUE(translated.ok()) << translated.status();
  ASSERT_EQ(translated->clusters.size(), 1u);
  absl::StatusOr<KernelSource> kernel = LowerAndGenerate(translated->clusters[0], {.name = "k"});
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const std::string& source = kernel->source;
  SCOPED_TRACE(source);
  EXPECT_THAT(source, HasSubstr("float priv_"));
  EXPECT_THAT(source, HasSubstr("[256];  // [float32]_256, computed once"));
  EXPECT_THAT(source, HasSubstr("[10];  // [float32]_10, computed once"));
  EXPECT_EQ(Count(source, " < 784L; "), 1) << "the hidden layer's dot products are repeated";
  EXPECT_EQ(Count(source, "dot_add_float32_fma(v"), 2);  // one per layer
}

// A filter gradient folds, for each tap and channel pair, over every position of the batch: the
// positions [N][6][7] joined. The fold walks them as three nested loops, indexing each level
// directly; a single loop over N·42 positions would divide its counter by 7 and by 6 for every
// term (measured on deep_mnist's second convolution: 2.3 s a step, against 1.2 s nested).
TEST(KernelGenFoldTest, AFoldOverJoinedRowsLoopsOverEachLevel) {
  absl::StatusOr<Graph> graph =
      LoadGraph(std::string(DFC_SOURCE_DIR) + "/models/filter_grad_two_batches.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  ReferenceFoldOracle oracle;
  absl::StatusOr<ir::TranslatedGraph> translated =
      ir::TranslateGraph(*graph, {TensorId{"df", 0}}, {}, {{"x", 0}, {"dy", 0}}, oracle);
  ASSERT_TRUE(translated.ok()) << translated.status();
  ASSERT_EQ(translated->clusters.size(), 1u) << absl::StrJoin(translated->host_device_nodes, "; ");
  absl::StatusOr<KernelSource> kernel = LowerAndGenerate(translated->clusters[0], {.name = "k"});
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const std::string& source = kernel->source;
  SCOPED_TRACE(source);
  EXPECT_EQ(Count(source, " < size_N; "), 1);
  EXPECT_EQ(Count(source, " < 6L; "), 1);
  EXPECT_EQ(Count(source, " < 7L; "), 1);
  EXPECT_EQ(Count(source, "% 7L"), 0);
  EXPECT_EQ(Count(source, "/ 7L"), 0);
  // One fused multiply-add for each of the 4 output channels' accumulators, a statement each.
  EXPECT_EQ(Count(source.substr(source.find("__kernel")), "dot_add_float32_fma"), 4);
}

}  // namespace
}  // namespace dfc::codegen

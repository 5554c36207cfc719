// DeviceExecutor on PoCL's CPU device against the reference executor (the oracle): one
// compiled plan serving every batch size, the fallback of a cluster whose kernel fails to
// build, every frozen shared model, and a runtime index error reported as a Status.
#include "runtime/device_executor.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "ir/from_tf/cluster.h"
#include "runtime/compare.h"
#include "runtime/device_session.h"
#include "runtime/interpreted.h"
#include "runtime/opencl/device.h"
#include "runtime/plan.h"
#include "runtime/profiler/profiler.h"
#include "runtime/reference/session.h"
#include "runtime/translate_for_feeds.h"
#include "runtime/tune.h"
#include "tests/device_executor_testing.h"
#include "tests/test_hooks.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace testing;  // NOLINT: the DeviceExecutor test helpers

TEST_F(DeviceExecutorTest, OneCompiledPlanServesBatchSizes1To1000) {
  const absl::StatusOr<Graph> loaded = LoadShared("dl4j_mlp_00_frozen.pb");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Graph& graph = *loaded;
  const std::vector<TensorId> fetches = {{"output", 0}};
  // Translated once, with no shape given: the batch stays the size variable N.
  absl::StatusOr<ir::TranslatedGraph> translated =
      Translate(graph, fetches, {{{"input", 0}, Tensor()}});
  ASSERT_TRUE(translated.ok()) << translated.status();
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  int64_t programs_after_first = -1;
  std::set<bool> devices_used;
  for (int64_t batch : {1, 7, 64, 1000}) {
    SCOPED_TRACE(absl::StrCat("batch ", batch));
    const Feeds feeds = {{{"input", 0}, RandomFloats({batch, 784}, batch)}};
    absl::StatusOr<std::vector<Tensor>> actual = device->Run(graph, *translated, feeds, fetches);
    ASSERT_TRUE(actual.ok()) << actual.status();
    // The oracle here is the IR interpreter, which computes in float32 in the kernel's order,
    // as TensorFlow does. The reference executor accumulates MatMul in double: this model's
    // logits reach the hundreds, and the float32 rounding of a 784-term dot product then moves
    // the softmax by up to 1.4e-4 at batch 1000 (measured), beyond the 1e-6 agreement asked of
    // the two. The interpreter is itself held to the reference by conformance_interpret.
    //
    // The interpreter takes about 0.2 s per row of this model, so it checks three rows of each
    // batch (the first, a middle and the last) run as a batch of their own: an MLP's rows are
    // independent, and the interpreter's order within a row does not depend on the batch, so
    // those rows of the whole batch's output must agree with what it computes for them. Every
    // row is held to the reference below, at the float32 rounding's measured distance.
    const std::vector<int64_t> rows = {0, batch / 2, batch - 1};
    const Feeds row_feeds = {{{"input", 0}, Rows(feeds[0].value, rows)}};
    absl::StatusOr<std::vector<Tensor>> expected =
        RunInterpreted(graph, *translated, row_feeds, fetches);
    ASSERT_TRUE(expected.ok()) << expected.status();
    ASSERT_EQ((*actual)[0].shape(), (Shape{batch, 10}));
    ExpectAllEqual({Rows((*actual)[0], rows)}, *expected, fetches);
    absl::StatusOr<std::vector<Tensor>> reference = Reference(graph, feeds, fetches);
    ASSERT_TRUE(reference.ok()) << reference.status();
    // atol 1e-3: the float32 rounding moved these softmax outputs by at most 1.4e-4 (batch
    // 1000, measured); a row left unwritten or computed from another row's input is off by
    // tenths, since this model's outputs are nearly one-hot.
    const Comparison every_row =
        CompareTensors((*actual)[0], (*reference)[0], Tolerance{.rtol = 0, .atol = 1e-3});
    EXPECT_TRUE(every_row.equal) << "against the reference: " << every_row.reason;
    // The kernel's program is built once for each device the runs went to (the small batches'
    // go to the inline device, where there is one), not for each batch size.
    const cl::ProgramCache& cache = device->program_cache();
    const int64_t programs = cache.builds_from_source() + cache.loads_from_disk();
    if (programs_after_first < 0) programs_after_first = programs;
    devices_used.insert(device->context()->inline_active());
    EXPECT_EQ(programs, programs_after_first * static_cast<int64_t>(devices_used.size()))
        << "a new batch size compiled a new program";
  }
  EXPECT_GE(programs_after_first, 1);
  // Each cluster's kernel was generated once and launched at every batch size.
  EXPECT_EQ(device->kernels_generated(), static_cast<int64_t>(translated->clusters.size()));
  EXPECT_EQ(device->fallbacks(), 0);
  EXPECT_GE(device->kernels_run(), 4);
}

// A size made of several unknown ones that comes to 1 broadcasts too: the concatenation of
// batches fed 1 and 0 against a tensor of 4 rows (TranslateForFeeds falls back to every fed
// dimension as a constant, FedDims::kAll). (Found by the differential fuzzer.)
TEST_F(DeviceExecutorTest, AConcatenationOfBatchesThatComesToOneBroadcasts) {
  constexpr char kGraph[] = R"graph(
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 4 } dim { size: 1 } } } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: -2 } } } }
node { name: "ab" op: "ConcatV2" input: "a" input: "b" input: "axis"
       attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } }
       attr { key: "Tidx" value { type: DT_INT32 } } }
node { name: "out" op: "Mul" input: "w" input: "ab" attr { key: "T" value { type: DT_FLOAT } } }
)graph";
  absl::StatusOr<Graph> graph = ParseGraph(kGraph, "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> fetches = {{"out", 0}};
  std::unique_ptr<DeviceExecutor> executor = MakeExecutor();
  for (const auto& [a_rows, b_rows] : {std::pair{1, 0}, {0, 1}, {2, 2}, {4, 0}}) {
    const Feeds feeds = {{{"a", 0}, RandomFloats({a_rows, 3}, 1)},
                         {{"b", 0}, RandomFloats({b_rows, 3}, 2)},
                         {{"w", 0}, RandomFloats({4, 1}, 3)}};
    ExpectRunMatchesReference(*executor, *graph, feeds, fetches,
                              absl::StrCat(a_rows, " and ", b_rows));
  }
}

// A session of `graph` on the CPU device whose runs `placement` places, or null (a failure).
std::unique_ptr<DeviceSession> OpenOnCpu(std::shared_ptr<const Graph> graph,
                                         RunPlacement placement) {
  absl::StatusOr<std::unique_ptr<DeviceSession>> session = DeviceSession::Create(
      std::move(graph), {.device = "cpu", .executor = {.placement = placement}});
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

// One convolution `op` (stride 1, SAME padding) of a fed x of [?, h, w, c] by a fed filter of
// `filter`'s dimensions, then `activation` if set, fetched as out.
struct Convolution {
  std::string op;
  int h, w, c;
  std::vector<int> filter;
  std::string activation;

  std::string Graph() const {
    const auto dims = [](const std::vector<int>& sizes) {
      std::string text;
      for (const int n : sizes) absl::StrAppend(&text, " dim { size: ", n, " }");
      return text;
    };
    return absl::StrCat(
        R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape {)",
        dims({-1, h, w, c}), R"( } } } }
node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape {)",
        dims(filter), R"( } } } }
node { name: ")",
        activation.empty() ? "out" : "conv", R"(" op: ")", op,
        R"(" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
       attr { key: "padding" value { s: "SAME" } } }
)",
        activation.empty()
            ? ""
            : absl::StrCat(R"(node { name: "out" op: ")", activation, R"(" input: "conv"
       attr { key: "T" value { type: DT_FLOAT } } }
)"));
  }
  // Seeded values in [-1, 1) for `batch` images and the filter.
  Feeds FeedsOf(int64_t batch) const {
    return {{{"x", 0}, RandomFloats({batch, h, w, c}, 1)},
            {{"w", 0}, RandomFloats(Shape(filter.begin(), filter.end()), 2)}};
  }
};

// A convolution whose positions the default schedule blocks (144 taps of 16 channels, 8
// positions a work-item on the CPU device) over images of 7 x 5 positions, no multiple of 8.
Convolution BlockedConvolution() { return {"Conv2D", 7, 5, 16, {3, 3, 16, 16}, "Relu"}; }

// A pattern of nested sequential loops, outermost first, of these trip counts, each the first
// statement of the one before.
std::string NestedLoops(std::initializer_list<int> counts) {
  std::string pattern;
  for (const int n : counts) {
    if (!pattern.empty()) absl::StrAppend(&pattern, "[^\n]*\n *");
    absl::StrAppend(&pattern, "for \\(long i_[0-9]+ = 0; i_[0-9]+ < ", n, "L;");
  }
  return pattern;
}

// Whether `source` walks a k x k window in two nested loops, its rows and its columns, and never
// finds a tap's row or column by dividing a flat index by k.
void ExpectWindowWalkedInNestedLoops(const std::string& source, int k) {
  EXPECT_THAT(source, ContainsRegex(NestedLoops({k, k}))) << source;
  EXPECT_THAT(source, Not(ContainsRegex(absl::StrCat("i_[0-9]+ [/%] ", k, "L")))) << source;
}

// The last block repeats a position, which its kernel must not store past the output.
TEST_F(DeviceExecutorTest, BlockedPositionsPastTheLastAreNotStored) {
  absl::StatusOr<Graph> graph = ParseGraph(BlockedConvolution().Graph(), "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::string source;
  std::unique_ptr<DeviceExecutor> executor = MakeExecutor();
  TestHooks::EditSources(*executor, [&](std::string& s) { source = s; });
  const std::vector<TensorId> fetches = {{"out", 0}};
  // Each output sums 144 products of values in [-1, 1) by fused multiply-adds, the reference by
  // products and sums: each of the 144 roundings is at most half an ulp of a partial sum below
  // 16 in magnitude (2^-20), so the two differ by less than 1.4e-4.
  const Tolerance tolerance{.rtol = 0, .atol = 1.4e-4};
  for (int64_t batch : {1, 3}) {
    ExpectRunMatchesReference(*executor, *graph, BlockedConvolution().FeedsOf(batch), fetches,
                              absl::StrCat("batch ", batch), tolerance);
  }
  // Blocks of 8 positions, each stored only below the 35 of each image.
  EXPECT_THAT(source, HasSubstr("(gid * 8L)) < (size_N * 35L)")) << source;
}

// A block's taps are walked as one position's are, in a loop each over the window's rows, its
// columns and the channels (the Transpose that puts a block's positions innermost keeps their
// joined rows): no tap's row, column or channel is found by dividing a flat tap index.
TEST_F(DeviceExecutorTest, ABlocksTapsAreWalkedInNestedLoops) {
  // As BlockedPositionsPastTheLastAreNotStored's: 144 fused multiply-adds against products and
  // sums, each partial sum below 16.
  const std::string source =
      SourceOfCheckedRun(BlockedConvolution().Graph().c_str(), BlockedConvolution().FeedsOf(1),
                         Tolerance{.rtol = 0, .atol = 1.4e-4});
  EXPECT_THAT(source, ContainsRegex(NestedLoops({3, 3, 16}))) << source;
  EXPECT_THAT(source, Not(ContainsRegex("i_[0-9]+ / (16|48)L"))) << source;
}

// A depthwise convolution reads each tap's row of channels through the padding as vectors: one
// condition and one vector load a vector of channels (a select of vectors), its filter's row as
// vectors too, not a condition and a load a lane.
TEST_F(DeviceExecutorTest, APaddedRowOfChannelsIsReadAsVectors) {
  constexpr char kGraph[] = R"graph(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 6 } dim { size: 5 }
                                           dim { size: 32 } } } } }
node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 3 } dim { size: 3 } dim { size: 32 }
                                           dim { size: 1 } } } } }
node { name: "out" op: "DepthwiseConv2dNative" input: "x" input: "w"
       attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
       attr { key: "padding" value { s: "SAME" } } }
)graph";
  absl::StatusOr<Graph> graph = ParseGraph(kGraph, "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::string source;
  std::unique_ptr<DeviceExecutor> executor = MakeExecutor();
  TestHooks::EditSources(*executor, [&](std::string& s) { source = s; });
  const std::vector<TensorId> fetches = {{"out", 0}};
  // Nine products of values in [-1, 1) a sum, fused or not: at most 9 half-ulps of sums below
  // 9 (2^-21 each) apart.
  const Tolerance tolerance{.rtol = 0, .atol = 9 * 0x1p-21};
  for (int64_t batch : {1, 2}) {
    const Feeds feeds = {{{"x", 0}, RandomFloats({batch, 6, 5, 32}, 1)},
                         {{"w", 0}, RandomFloats({3, 3, 32, 1}, 2)}};
    ExpectRunMatchesReference(*executor, *graph, feeds, fetches, absl::StrCat("batch ", batch),
                              tolerance);
  }
  const int width = executor->context()->info().preferred_vector_width_float >= 16 ? 16 : 8;
  EXPECT_THAT(source, HasSubstr(absl::StrCat("float", width, " sel_"))) << source;
  EXPECT_THAT(source, HasSubstr(absl::StrCat("vload", width, "(0, in0 + "))) << source;
  EXPECT_THAT(source, HasSubstr(absl::StrCat("vload", width, "(0, in1 + "))) << source;
}

// A depthwise convolution over channels no vector width divides (121, in groups of 11) folds
// each group over the window's taps: the taps stay rows of the window's rows through the
// Transpose that groups the channels, so a loop each walks the window's rows and columns.
TEST_F(DeviceExecutorTest, GroupedChannelsWalkTheWindowInNestedLoops) {
  const Convolution conv{"DepthwiseConv2dNative", 4, 5, 121, {3, 3, 121, 1}};
  // As APaddedRowOfChannelsIsReadAsVectors's: nine products a sum, fused or not.
  const std::string source = SourceOfCheckedRun(conv.Graph().c_str(), conv.FeedsOf(2),
                                                Tolerance{.rtol = 0, .atol = 9 * 0x1p-21});
  ExpectWindowWalkedInNestedLoops(source, 3);
}

// A convolution of one input channel (LeNet's first) folds over the window's taps joined from
// rows of one element: the join keeps the window's rows, so a loop each walks its rows and
// columns, no tap found by dividing a flat index.
TEST_F(DeviceExecutorTest, OneChannelsTapsWalkTheWindowInNestedLoops) {
  const Convolution conv{"Conv2D", 6, 7, 1, {5, 5, 1, 6}};
  // 25 products of values in [-1, 1) a sum, fused or not: at most 25 half-ulps of sums below 25
  // (2^-20 each) apart.
  const std::string source = SourceOfCheckedRun(conv.Graph().c_str(), conv.FeedsOf(2),
                                                Tolerance{.rtol = 0, .atol = 25 * 0x1p-20});
  ExpectWindowWalkedInNestedLoops(source, 5);
}

// A blocked convolution of 8 channels (72 taps) whose epilogue is a Relu6: the epilogue is read
// as vectors, so its UserFuns' vector twins must compile (a local of a scalar type in a body
// would not take a vector), and the kernel runs on the device equal to the reference.
TEST_F(DeviceExecutorTest, ARelu6EpilogueRunsOnVectors) {
  const Convolution conv{"Conv2D", 6, 7, 8, {3, 3, 8, 8}, "Relu6"};
  // 72 products of values in [-1, 1) a sum, fused or not: at most 72 half-ulps of sums below 72
  // (2^-18 each) apart.
  const std::string source = SourceOfCheckedRun(conv.Graph().c_str(), conv.FeedsOf(2),
                                                Tolerance{.rtol = 0, .atol = 72 * 0x1p-18});
  EXPECT_THAT(source, HasSubstr("relu6_float32_x8(")) << source;
}

// A frozen batch norm: y = x * (gamma * rsqrt(variance + 0.001)), its scale computed from
// constants. A session's translation (Folding::kConstants) folds the scale, so that its kernel
// computes only the product, and a run uploads the scale once for every run; a conformance
// run's (kStatic) keeps the scale in the kernel, which then computes it on the device.
TEST_F(DeviceExecutorTest, WhatConstantsComputeIsFoldedOnceAndUploadedOnce) {
  constexpr char kGraph[] = R"graph(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } } }
node { name: "variance" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } }
                                            float_val: 0.5 float_val: 1 float_val: 2 float_val: 4 } } } }
node { name: "gamma" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } }
                                            float_val: 1 float_val: -2 float_val: 3 float_val: 0.25 } } } }
node { name: "epsilon" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.001 } } } }
node { name: "add" op: "Add" input: "variance" input: "epsilon" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "rsqrt" op: "Rsqrt" input: "add" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "scale" op: "Mul" input: "gamma" input: "rsqrt" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "Mul" input: "x" input: "scale" attr { key: "T" value { type: DT_FLOAT } } }
)graph";
  absl::StatusOr<Graph> graph = ParseGraph(kGraph, "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> fetches = {{"y", 0}};
  const Feeds feeds = {{{"x", 0}, RandomFloats({3, 4}, 5)}};
  absl::StatusOr<std::vector<Tensor>> expected = Reference(*graph, feeds, fetches);
  ASSERT_TRUE(expected.ok()) << expected.status();
  const auto cluster_nodes = [&](const ir::TranslatedGraph& translated) {
    std::vector<std::string> names;
    for (const Cluster& cluster : translated.partition.clusters) {
      for (int n : cluster.nodes) names.push_back(graph->node(n).name);
    }
    return names;
  };

  absl::StatusOr<ir::TranslatedGraph> statically =
      TranslateForFeeds(*graph, fetches, feeds, {}, false, Folding::kStatic);
  ASSERT_TRUE(statically.ok()) << statically.status();
  EXPECT_THAT(cluster_nodes(*statically),
              ::testing::UnorderedElementsAre("add", "rsqrt", "scale", "y"));

  absl::StatusOr<ir::TranslatedGraph> folded =
      TranslateForFeeds(*graph, fetches, feeds, {}, false, Folding::kConstants);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_THAT(cluster_nodes(*folded), ::testing::ElementsAre("y"));
  std::unique_ptr<DeviceExecutor> executor = MakeExecutor();
  DeviceExecutor::State state;
  const int64_t x_bytes = 3 * 4 * sizeof(float), scale_bytes = 4 * sizeof(float);
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE(absl::StrCat("run ", run));
    const int64_t uploaded_before = executor->bytes_to_device();
    absl::StatusOr<std::vector<Tensor>> actual =
        executor->Run(*graph, *folded, feeds, fetches, &state);
    ASSERT_TRUE(actual.ok()) << actual.status();
    ExpectAllEqual(*actual, *expected, fetches);
    EXPECT_EQ(executor->bytes_to_device() - uploaded_before,
              run == 0 ? x_bytes + scale_bytes : x_bytes);
  }
}

// TensorFlow broadcasts a dimension of 1 against any size, declared or not: two placeholders
// of unknown batch, fed 4 and 1, added. A run translates for that pattern (FedPlaceholderShape)
// rather than take the two batches for one size variable. (Found by the differential fuzzer.)
TEST_F(DeviceExecutorTest, AnUnknownDimensionFedOneBroadcasts) {
  constexpr char kGraph[] = R"graph(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
node { name: "sum" op: "AddV2" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Tanh" input: "sum" attr { key: "T" value { type: DT_FLOAT } } }
)graph";
  absl::StatusOr<Graph> graph = ParseGraph(kGraph, "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> fetches = {{"out", 0}};
  std::unique_ptr<DeviceExecutor> executor = MakeExecutor();
  for (const auto& [x_rows, y_rows] : {std::pair{4, 1}, {1, 4}, {4, 4}, {1, 1}}) {
    const Feeds feeds = {{{"x", 0}, RandomFloats({x_rows, 3}, 1)},
                         {{"y", 0}, RandomFloats({y_rows, 3}, 2)}};
    ExpectRunMatchesReference(*executor, *graph, feeds, fetches,
                              absl::StrCat(x_rows, " and ", y_rows));
  }
  // A session does the same, and keeps one translation for equal batches.
  absl::StatusOr<std::unique_ptr<DeviceSession>> session =
      DeviceSession::Create(std::make_shared<const Graph>(*graph), {.device = "cpu"});
  ASSERT_TRUE(session.ok()) << session.status();
  for (const auto& [x_rows, y_rows] : {std::pair{4, 4}, {4, 1}, {7, 7}, {1, 7}}) {
    const Feeds feeds = {{{"x", 0}, RandomFloats({x_rows, 3}, 3)},
                         {{"y", 0}, RandomFloats({y_rows, 3}, 4)}};
    absl::StatusOr<std::vector<Tensor>> actual =
        (*session)->Run({{{"x"}, feeds[0].value}, {{"y"}, feeds[1].value}}, {"out"});
    ASSERT_TRUE(actual.ok()) << x_rows << " and " << y_rows << ": " << actual.status();
    absl::StatusOr<std::vector<Tensor>> expected = Reference(*graph, feeds, fetches);
    ASSERT_TRUE(expected.ok()) << expected.status();
    ExpectAllEqual(*actual, *expected, fetches);
  }
  // One kernel for equal batches, one for each batch broadcast from 1.
  EXPECT_EQ((*session)->executor().kernels_generated(), 3);
}

// Unique's and Where's output sizes are known only when they run: each such dimension is a
// size variable the run binds from the host op's output, so the device ops after them are
// compiled once, fused, and serve every count (issue 33's data-dependent shapes).
TEST_F(DeviceExecutorTest, DataDependentSizesAreBoundWhenTheHostOpRuns) {
  constexpr char kGraph[] = R"graph(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } } } } }
node { name: "unique" op: "Unique" input: "x" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "out_idx" value { type: DT_INT32 } } }
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
node { name: "doubled" op: "Mul" input: "unique" input: "two" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Tanh" input: "doubled" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "positive" op: "Greater" input: "x" input: "two" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "where" op: "Where" input: "positive" attr { key: "T" value { type: DT_BOOL } } }
node { name: "rows" op: "Cast" input: "where" attr { key: "SrcT" value { type: DT_INT64 } }
       attr { key: "DstT" value { type: DT_FLOAT } } }
node { name: "scaled" op: "Mul" input: "rows" input: "two" attr { key: "T" value { type: DT_FLOAT } } }
)graph";
  absl::StatusOr<Graph> graph = ParseGraph(kGraph, "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> fetches = {{"out", 0}, {"scaled", 0}};
  absl::StatusOr<ir::TranslatedGraph> translated =
      Translate(*graph, fetches, {{{"x", 0}, Tensor()}});
  ASSERT_TRUE(translated.ok()) << translated.status();
  EXPECT_EQ(translated->device_on_host, 0)
      << "a device op after Unique or Where waits on the host for its shape";
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  for (const std::vector<float>& x : std::vector<std::vector<float>>{
           {1, 3, 1, 5, 3}, {7}, {4, 4, 4, 4, 0, -1, 9, 2.5}, {0.5, 1.5}}) {
    SCOPED_TRACE(::testing::PrintToString(x));
    const int64_t n = static_cast<int64_t>(x.size());
    const Feeds feeds = {{{"x", 0}, TN<float>(x, {n})}};
    absl::StatusOr<std::vector<Tensor>> actual = device->Run(*graph, *translated, feeds, fetches);
    ASSERT_TRUE(actual.ok()) << actual.status();
    absl::StatusOr<std::vector<Tensor>> expected = Reference(*graph, feeds, fetches);
    ASSERT_TRUE(expected.ok()) << expected.status();
    ExpectAllEqual(*actual, *expected, fetches);
    absl::StatusOr<std::vector<Tensor>> interpreted =
        RunInterpreted(*graph, *translated, feeds, fetches);
    ASSERT_TRUE(interpreted.ok()) << interpreted.status();
    ExpectAllEqual(*interpreted, *expected, fetches);
  }
  EXPECT_EQ(device->kernels_generated(), static_cast<int64_t>(translated->clusters.size()));
  EXPECT_EQ(device->fallbacks(), 0);
}

// A convolution of images of any size (placeholder [?,?,?,2]): the symbolic translation
// leaves it on the host (its windows need the image size), so a run translates once more with
// every dimension but the batch as fed. Batches of one image size share that translation; a new
// size gets its own. (The zoo's Keras SavedModel takes images of any size.)
TEST_F(DeviceExecutorTest, AnImageOfUnknownSizeIsTranslatedForTheSizeFed) {
  constexpr char kGraph[] = R"graph(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 }
                                           dim { size: 2 } } } } }
node { name: "f" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT
           tensor_shape { dim { size: 3 } dim { size: 3 } dim { size: 2 } dim { size: 1 } }
           float_val: 0.5 } } } }
node { name: "conv" op: "Conv2D" input: "x" input: "f" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "padding" value { s: "SAME" } }
       attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } }
node { name: "out" op: "Relu" input: "conv" attr { key: "T" value { type: DT_FLOAT } } }
)graph";
  absl::StatusOr<Graph> graph = ParseGraph(kGraph, "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> fetches = {{"out", 0}};
  const Feeds small = {{{"x", 0}, RandomFloats({2, 5, 6, 2}, 1)}};
  absl::StatusOr<ir::TranslatedGraph> symbolic =
      TranslateForFeedShapes(*graph, fetches, small, {}, FedDims::kSymbolic);
  ASSERT_TRUE(symbolic.ok()) << symbolic.status();
  EXPECT_FALSE(symbolic->host_device_nodes.empty());
  absl::StatusOr<ir::TranslatedGraph> chosen = TranslateForFeeds(*graph, fetches, small);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_TRUE(chosen->host_device_nodes.empty());
  ASSERT_EQ(chosen->fold.size_variables.size(), 1u);  // the batch
  EXPECT_EQ(chosen->fold.size_variables[0].dim, 0);

  absl::StatusOr<std::unique_ptr<DeviceSession>> session =
      DeviceSession::Create(std::make_shared<const Graph>(*graph), {.device = "cpu"});
  ASSERT_TRUE(session.ok()) << session.status();
  for (const Shape& shape : {Shape{2, 5, 6, 2}, Shape{3, 5, 6, 2}, Shape{1, 4, 4, 2}}) {
    const Feeds feeds = {{{"x", 0}, RandomFloats(shape, 7)}};
    absl::StatusOr<std::vector<Tensor>> actual = (*session)->Run(feeds, {"out"});
    ASSERT_TRUE(actual.ok()) << ShapeToString(shape) << ": " << actual.status();
    absl::StatusOr<std::vector<Tensor>> expected = Reference(*graph, feeds, fetches);
    ASSERT_TRUE(expected.ok()) << expected.status();
    ExpectAllEqual(*actual, *expected, fetches);
  }
  // One kernel for 5x6 images of batch 2 and 3, one for 4x4; the symbolic translations
  // generate none (their convolution is a host node).
  EXPECT_EQ((*session)->executor().kernels_generated(), 2);
  EXPECT_EQ((*session)->executor().fallbacks(), 0);
}

// DeviceSession::Run from several threads at once (the runs serialise on the session's lock
// and share its translations, kernels and buffer pool): each thread gets its own batch's answer.
// The two small batches are being timed on the inline device (RunPlacement::kMeasured) and the
// two large ones are too large to try there, so the runs switch between the two queues. Under
// ThreadSanitizer (DFC_SANITIZE=thread) this is the runtime's data-race check.
TEST_F(DeviceExecutorTest, ASessionRunsFromSeveralThreadsAtOnce) {
  absl::StatusOr<Graph> graph = LoadShared("dl4j_mlp_00_frozen.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto shared = std::make_shared<const Graph>(*std::move(graph));
  absl::StatusOr<std::unique_ptr<DeviceSession>> session = DeviceSession::Create(
      shared, {.device = "cpu", .executor = {.placement = RunPlacement::kMeasured}});
  ASSERT_TRUE(session.ok()) << session.status();
  // About 0.4 M operations a row: 600 and 700 rows are past kMeasureBelowOps.
  const int64_t batches[] = {1, 6, 600, 700};
  constexpr int kThreads = 4, kRuns = kPlacementRuns;
  std::vector<Tensor> inputs, expected;
  reference::Session reference(shared);
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(testing::UniformFloats({batches[t], 784}, 10 + t, 0.0f, 1.0f));
    absl::StatusOr<std::vector<Tensor>> want = reference.Run({{{"input"}, inputs[t]}}, {"output"});
    ASSERT_TRUE(want.ok()) << want.status();
    expected.push_back((*want)[0]);
  }
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < kRuns; ++run) {
        absl::StatusOr<std::vector<Tensor>> got =
            (*session)->Run({{{"input"}, inputs[t]}}, {"output"});
        if (!got.ok()) {
          failures[t] = std::string(got.status().message());
          return;
        }
        // The reference accumulates MatMul in double: this model's logits reach the hundreds,
        // and float32 sums over 784 terms move its softmax by up to 1.4e-4 (measured at batch
        // 1000, OneCompiledPlanServesBatchSizes1To1000); another row's answer or a row left
        // unwritten is off by far more.
        const Comparison c = CompareTensors((*got)[0], expected[t], {.rtol = 0, .atol = 1e-3});
        if (!c.equal) failures[t] = c.reason;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
  if ((*session)->executor().context()->has_inline_device()) {
    EXPECT_EQ((*session)->executor().inline_runs(), 2 * kRuns);
  }
}

// A batch's first runs are timed on the inline device (PoCL's basic device, which runs them on
// the calling thread) and a batch too large to try there runs on the device's threads, in turn,
// each step reading the variables the one before wrote on the other device: a training step at
// batch 1 and 8000 in turn trains bit for bit as a session that never goes inline (the two
// devices run the same kernels; that session's steps are held to the reference by the plan and
// fault tests). Once timed, a batch's runs all go to one device.
TEST_F(DeviceExecutorTest, SmallRunsAreTimedInlineAndLargeOnesRunOnTheDevice) {
  absl::StatusOr<Graph> loaded = LoadShared("dl4j_mnist_00_softmax_train.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto graph = std::make_shared<const Graph>(*std::move(loaded));
  auto open = [&](RunPlacement placement) {
    std::unique_ptr<DeviceSession> session = OpenOnCpu(graph, placement);
    EXPECT_TRUE(session != nullptr && session->Run({}, {}, {"init"}).ok());
    return session;
  };
  std::unique_ptr<DeviceSession> measured = open(RunPlacement::kMeasured);
  std::unique_ptr<DeviceSession> device = open(RunPlacement::kDevice);
  ASSERT_NE(measured, nullptr);
  ASSERT_NE(device, nullptr);
  const bool has_inline = measured->executor().context()->has_inline_device();
  // A row costs the step about 50 k operations: 8000 rows are past kMeasureBelowOps.
  auto step = [&](DeviceSession& session, int64_t batch, int seed) {
    return session.Run({{{"input"}, UniformFloats({batch, 784}, seed, 0, 1)},
                        {{"Placeholder"}, UniformFloats({batch, 10}, 1000 + seed, 0, 0.2f)}},
                       {"Mean"}, {"GradientDescent"});
  };
  for (int k = 0; k < 2 * kPlacementRuns; ++k) {
    const int64_t batch = k % 2 == 0 ? 1 : 8000;
    SCOPED_TRACE(absl::StrCat("step ", k, ", batch ", batch));
    const int64_t inline_before = measured->executor().inline_runs();
    absl::StatusOr<std::vector<Tensor>> got = step(*measured, batch, k);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(measured->executor().inline_runs() - inline_before, has_inline && batch == 1);
    absl::StatusOr<std::vector<Tensor>> want = step(*device, batch, k);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_TRUE((*got)[0].BitwiseEqual((*want)[0]));
  }
  EXPECT_EQ(device->executor().inline_runs(), 0);
  const std::vector<std::string> variables = {"Variable", "Variable_1"};
  absl::StatusOr<std::vector<Tensor>> got = measured->Run({}, variables);
  absl::StatusOr<std::vector<Tensor>> want = device->Run({}, variables);
  ASSERT_TRUE(got.ok() && want.ok());
  for (size_t k = 0; k < variables.size(); ++k) {
    EXPECT_TRUE((*got)[k].BitwiseEqual((*want)[k])) << variables[k];
  }
  // Timed, batch 1 stays where its timing put it: none or both of two more steps inline.
  const int64_t inline_after_trials = measured->executor().inline_runs();
  for (int k = 0; k < 2; ++k) ASSERT_TRUE(step(*measured, 1, 7).ok());
  const int64_t settled = measured->executor().inline_runs() - inline_after_trials;
  EXPECT_TRUE(settled == 0 || settled == 2) << settled;
}

// A product at batch 1 is one block of rows, one work-item: however long it takes (here about
// 16 M multiply-adds, far more than the hand-offs it would cost), the device's threads cannot
// share it, so once timed its runs stay inline, and give what the device gives.
TEST_F(DeviceExecutorTest, RunsWhoseKernelsHaveFewerRowsThanUnitsStayInline) {
  constexpr char kGraph[] = R"graph(
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2048 } } } } }
node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2048 } dim { size: 2048 } } } } }
node { name: "c" op: "MatMul" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
)graph";
  absl::StatusOr<Graph> loaded = ParseGraph(kGraph, "test");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto graph = std::make_shared<const Graph>(*std::move(loaded));
  auto open = [&](RunPlacement placement) { return OpenOnCpu(graph, placement); };
  std::unique_ptr<DeviceSession> measured = open(RunPlacement::kMeasured);
  std::unique_ptr<DeviceSession> device = open(RunPlacement::kDevice);
  ASSERT_NE(measured, nullptr);
  ASSERT_NE(device, nullptr);
  if (!measured->executor().context()->has_inline_device()) GTEST_SKIP() << "no inline device";
  const std::vector<Feed> feeds = {{{"a"}, UniformFloats({1, 2048}, 1, -1, 1)},
                                   {{"b"}, UniformFloats({2048, 2048}, 2, -1, 1)}};
  for (int k = 0; k < kPlacementRuns; ++k) ASSERT_TRUE(measured->Run(feeds, {"c"}).ok());
  const int64_t inline_before = measured->executor().inline_runs();
  absl::StatusOr<std::vector<Tensor>> got = measured->Run(feeds, {"c"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(measured->executor().inline_runs() - inline_before, 1);
  absl::StatusOr<std::vector<Tensor>> want = device->Run(feeds, {"c"});
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE((*got)[0].BitwiseEqual((*want)[0]));
}

TEST_F(DeviceExecutorTest, AKernelThatFailsToBuildFallsBack) {
  const absl::StatusOr<Graph> loaded = LoadShared("dl4j_mlp_00_frozen.pb");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Graph& graph = *loaded;
  const std::vector<TensorId> fetches = {{"output", 0}};
  const Feeds feeds = {{{"input", 0}, RandomFloats({3, 784}, 3)}};
  absl::StatusOr<ir::TranslatedGraph> translated = Translate(graph, fetches, feeds);
  ASSERT_TRUE(translated.ok()) << translated.status();
  std::ostringstream warnings;
  std::unique_ptr<DeviceExecutor> device = MakeExecutor({.warnings = &warnings});
  TestHooks::EditSources(*device,
                         [](std::string& source) { source += "\nthis is not OpenCL C;\n"; });
  absl::StatusOr<std::vector<Tensor>> actual = device->Run(graph, *translated, feeds, fetches);
  ASSERT_TRUE(actual.ok()) << actual.status();
  absl::StatusOr<std::vector<Tensor>> expected = Reference(graph, feeds, fetches);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ExpectAllEqual(*actual, *expected, fetches);
  EXPECT_GE(device->fallbacks(), 1);
  EXPECT_EQ(device->kernels_run(), 0);
  EXPECT_THAT(warnings.str(), HasSubstr("MatMul"));
  EXPECT_THAT(warnings.str(), HasSubstr("reference executor"));
}

// Feeds a generic rule cannot choose: a placeholder without a rank, a dropout keep
// probability (1 keeps the run deterministic), a batch that must match a fixed-size operand.
const std::map<std::string, std::map<std::string, Tensor>>& FeedOverrides() {
  static const auto* overrides = new std::map<std::string, std::map<std::string, Tensor>>{
      {"tf2onnx_lstm_frozen.pb", {{"keep_prob", Tensor::Scalar<float>(1.0f)}}},
      {"tf2onnx_regression_frozen.pb", {{"X", RandomFloats({3}, 1)}}},
      // x[?,3] + y[2,3]: the batch of x can only be 2.
      {"ngraph_test_axpy.pbtxt", {{"x", RandomFloats({2, 3}, 2)}}},
  };
  return *overrides;
}

// Every frozen shared model on random feeds (batch 3), against the reference. Skipped, as
// the loop below finds them: the training graphs dl4j_mnist_00_softmax_train.pbtxt,
// philipce_keras_cnn_train.pb and tfrust_regression_train.pb (Variable ops: their values
// come from an initialiser run, which DeviceExecutor::Run does not do).
TEST_F(DeviceExecutorTest, EveryFrozenSharedModelMatchesTheReference) {
  const std::vector<std::string> must_run = {
      "dl4j_mlp_00_frozen.pb",           "dl4j_ae_00_frozen.pb",
      "dl4j_mnist_00_softmax_frozen.pb", "tf2onnx_lstm_frozen.pb",
      "tf2onnx_regression_frozen.pb",    "cppflow_mlp_frozen.pb",
      "lvfengkun_mnist_mlp_frozen.pb"};
  std::vector<std::string> ran;
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(testing::SharedDir() + "/models")) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".pb" || ext == ".pbtxt") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const std::filesystem::path& path : paths) {
    const std::string name = path.filename().string();
    SCOPED_TRACE(name);
    const absl::StatusOr<Graph> loaded = LoadShared(name);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const Graph& graph = *loaded;
    const auto overrides = FeedOverrides().find(name);
    bool runnable = true;
    Feeds feeds;
    for (int i = 0; i < graph.num_nodes() && runnable; ++i) {
      const Node& node = graph.node(i);
      const OpDef* def = FindOpDef(node.op);
      if (def != nullptr && def->variable) runnable = false;
      if (node.op != "Placeholder") continue;
      if (overrides != FeedOverrides().end() && overrides->second.contains(node.name)) {
        feeds.push_back({{node.name, 0}, overrides->second.at(node.name)});
        continue;
      }
      const PartialShape declared = PlaceholderShape(node);
      absl::StatusOr<DType> dtype = node.GetType("dtype");
      if (!dtype.ok() || *dtype != DType::kFloat || declared.unknown_rank) {
        runnable = false;
        continue;
      }
      Shape shape;
      for (int64_t d : declared.dims) shape.push_back(d < 0 ? 3 : d);
      feeds.push_back({{node.name, 0}, RandomFloats(shape, i)});
    }
    if (!runnable) continue;
    std::vector<TensorId> fetches;
    for (int i = 0; i < graph.num_nodes(); ++i) {
      if (graph.IsConsumed(i) || graph.num_outputs(i) <= 0) continue;
      std::vector<TensorId> outs;
      for (int k = 0; k < graph.num_outputs(i); ++k) outs.push_back({graph.node(i).name, k});
      absl::StatusOr<std::vector<int>> needed = NeededNodes(graph, outs, {}, {});
      if (!needed.ok() || !CheckSupported(graph, *needed).ok()) continue;
      fetches.insert(fetches.end(), outs.begin(), outs.end());
    }
    ASSERT_FALSE(fetches.empty());
    absl::StatusOr<ir::TranslatedGraph> translated = Translate(graph, fetches, feeds);
    ASSERT_TRUE(translated.ok()) << translated.status();
    std::unique_ptr<DeviceExecutor> device = MakeExecutor();
    absl::StatusOr<std::vector<Tensor>> actual = device->Run(graph, *translated, feeds, fetches);
    ASSERT_TRUE(actual.ok()) << actual.status();
    absl::StatusOr<std::vector<Tensor>> expected = Reference(graph, feeds, fetches);
    ASSERT_TRUE(expected.ok()) << expected.status();
    // 28 unrolled steps of an LSTM carry each step's float32 rounding into the next, as the zoo's
    // LSTMs do (held to 1e-5 in zoo_test): the dot products' fused multiply-adds moved an output
    // by 2.4e-6 against the reference's double sums, past the 1e-6 one op asks of another.
    const std::optional<Tolerance> tolerance =
        name == "tf2onnx_lstm_frozen.pb"
            ? std::optional<Tolerance>(Tolerance{.rtol = 1e-5, .atol = 1e-5})
            : std::nullopt;
    ExpectAllEqual(*actual, *expected, fetches, tolerance);
    EXPECT_EQ(device->fallbacks(), 0);
    EXPECT_EQ(device->kernels_run(), static_cast<int64_t>(translated->clusters.size()));
    ran.push_back(name);
  }
  for (const std::string& name : must_run) {
    EXPECT_NE(std::find(ran.begin(), ran.end(), name), ran.end()) << name << " did not run";
  }
}

// params: float[5]; indices: int32[2]; gather = GatherV2(params, indices, axis 0).
constexpr char kGatherGraph[] = R"gd(
  node { name: "params" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 5 } } } } }
  node { name: "indices" op: "Placeholder"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "axis" op: "Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
  node { name: "gather" op: "GatherV2" input: "params" input: "indices" input: "axis"
    attr { key: "Tparams" value { type: DT_FLOAT } }
    attr { key: "Tindices" value { type: DT_INT32 } }
    attr { key: "Taxis" value { type: DT_INT32 } } }
)gd";

TEST_F(DeviceExecutorTest, AnOutOfRangeGatherIndexIsAnErrorNotACrash) {
  absl::StatusOr<Graph> graph = ParseGraph(kGatherGraph, "gather.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> fetches = {{"gather", 0}};
  const Tensor params = testing::TN<float>({10, 11, 12, 13, 14}, {5});
  auto feeds_for = [&](std::vector<int32_t> indices) -> Feeds {
    return {{{"params", 0}, params}, {{"indices", 0}, testing::T1<int32_t>(indices)}};
  };
  absl::StatusOr<ir::TranslatedGraph> translated = Translate(*graph, fetches, feeds_for({1, 4}));
  ASSERT_TRUE(translated.ok()) << translated.status();
  ASSERT_EQ(translated->clusters.size(), 1u) << "the gather should run as a kernel";
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();

  // In range first, so the error below is not a kernel that never works.
  absl::StatusOr<std::vector<Tensor>> good =
      device->Run(*graph, *translated, feeds_for({1, 4}), fetches);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(testing::Values<float>((*good)[0]), (std::vector<float>{11, 14}));

  absl::StatusOr<std::vector<Tensor>> bad =
      device->Run(*graph, *translated, feeds_for({1, 7}), fetches);
  ASSERT_FALSE(bad.ok()) << "index 7 of a 5-element params was accepted";
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("out of range"));
  EXPECT_EQ(device->fallbacks(), 0);
}

// A training step whose optimizers update several variables: ApplyAdam writes var, m and v,
// which live on the device, while a cluster reads var for the gradient (2 * var) and the loss
// (var * var); ApplyMomentum (Nesterov's) writes mvar and accum. The optimizers run on the
// device, in double as the reference's steps (bitwise equal); their results must become the
// variables that the next step's kernels read. A seeded RandomUniform beside it draws from the same
// Philox stream, run after run, as the reference session's does.
constexpr char kAdamGraph[] = R"gd(
  node { name: "var" op: "VariableV2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 3 } } } } }
  node { name: "m" op: "VariableV2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 3 } } } } }
  node { name: "v" op: "VariableV2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 3 } } } } }
  node { name: "start" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } }
                                         float_val: 1 float_val: -2 float_val: 0.5 } } } }
  node { name: "zeros" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } }
                                         float_val: 0 } } } }
  node { name: "init_var" op: "Assign" input: "var" input: "start"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init_m" op: "Assign" input: "m" input: "zeros"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init_v" op: "Assign" input: "v" input: "zeros"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "mvar" op: "VariableV2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 3 } } } } }
  node { name: "accum" op: "VariableV2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 3 } } } } }
  node { name: "init_mvar" op: "Assign" input: "mvar" input: "start"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init_accum" op: "Assign" input: "accum" input: "zeros"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init" op: "NoOp" input: "^init_var" input: "^init_m" input: "^init_v"
    input: "^init_mvar" input: "^init_accum" }
  node { name: "beta1_power" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0.9 } } } }
  node { name: "beta2_power" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0.999 } } } }
  node { name: "lr" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0.1 } } } }
  node { name: "beta1" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0.9 } } } }
  node { name: "beta2" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0.999 } } } }
  node { name: "epsilon" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1e-8 } } } }
  node { name: "two" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
  node { name: "grad" op: "Mul" input: "var" input: "two"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "loss" op: "Mul" input: "var" input: "var"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "adam" op: "ApplyAdam"
    input: "var" input: "m" input: "v" input: "beta1_power" input: "beta2_power" input: "lr"
    input: "beta1" input: "beta2" input: "epsilon" input: "grad"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "mgrad" op: "Mul" input: "mvar" input: "two"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "momentum" op: "ApplyMomentum"
    input: "mvar" input: "accum" input: "lr" input: "mgrad" input: "beta1"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "use_nesterov" value { b: true } } }
  node { name: "shape" op: "Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                                         int_val: 5 } } } }
  node { name: "noise" op: "RandomUniform" input: "shape"
    attr { key: "T" value { type: DT_INT32 } }
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "seed" value { i: 7 } }
    attr { key: "seed2" value { i: 3 } } }
)gd";

TEST_F(DeviceExecutorTest, AnOptimizerUpdatesEveryVariableItWritesOnTheDevice) {
  absl::StatusOr<Graph> graph = ParseGraph(kAdamGraph, "adam.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto shared = std::make_shared<const Graph>(*std::move(graph));
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(shared, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  reference::Session reference(shared);
  ASSERT_TRUE((*device)->Run({}, {}, {"init"}).ok());
  ASSERT_TRUE(reference.Run({}, {}, {"init"}).ok());
  const std::vector<std::string> fetches = {"loss", "noise"};
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE(absl::StrCat("step ", step));
    absl::StatusOr<std::vector<Tensor>> got = (*device)->Run({}, fetches, {"adam", "momentum"});
    absl::StatusOr<std::vector<Tensor>> want = reference.Run({}, fetches, {"adam", "momentum"});
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(want.ok()) << want.status();
    for (size_t k = 0; k < fetches.size(); ++k) {
      const Comparison c = CompareTensors((*got)[k], (*want)[k]);
      EXPECT_TRUE(c.equal) << fetches[k] << ": " << c.reason;
    }
  }
  const std::vector<std::string> variables = {"var", "m", "v", "mvar", "accum"};
  absl::StatusOr<std::vector<Tensor>> got = (*device)->Run({}, variables);
  absl::StatusOr<std::vector<Tensor>> want = reference.Run({}, variables);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(want.ok()) << want.status();
  for (size_t k = 0; k < variables.size(); ++k) {
    EXPECT_TRUE((*got)[k].BitwiseEqual((*want)[k]))
        << k << ": " << (*got)[k].Preview() << " vs " << (*want)[k].Preview();
  }
  // Three steps moved every variable: the slots are no longer their zeros.
  for (int slot : {1, 2, 4}) EXPECT_NE(testing::Values<float>((*got)[slot])[0], 0.0f);
  // A step that fetches nothing reads nothing back: the update ran on the device.
  const int64_t read_back = (*device)->executor().bytes_to_host();
  ASSERT_TRUE((*device)->Run({}, {}, {"adam", "momentum"}).ok());
  EXPECT_EQ((*device)->executor().bytes_to_host(), read_back);
}

// Found by the differential fuzzer: a Concat of a constant and a Sum over the whole input.
// The Sum, the same for every element, is hoisted out of the select's branch, and was emitted
// between its `if` and its `else`: the kernel did not build and the cluster fell back.
TEST_F(DeviceExecutorTest, AValueHoistedOutOfASelectsBranchKeepsTheKernelWhole) {
  absl::StatusOr<Graph> graph = ParseGraph(R"gd(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: -1 } } } } }
    node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                                                int_val: -1 } } } }
    node { name: "sum" op: "Sum" input: "x" input: "axis" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tidx" value { type: DT_INT32 } } attr { key: "keep_dims" value { b: true } } }
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } }
                                                float_val: -0.5 float_val: 1 float_val: 0.25 } } } }
    node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
    node { name: "concat" op: "ConcatV2" input: "c" input: "sum" input: "zero"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } }
           attr { key: "Tidx" value { type: DT_INT32 } } }
    node { name: "y" op: "Sigmoid" input: "concat" attr { key: "T" value { type: DT_FLOAT } } }
)gd",
                                           "hoisted.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto shared = std::make_shared<const Graph>(*std::move(graph));
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(shared, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  const std::vector<Feed> feeds = {{{"x", 0}, testing::TN<float>({0.1f, 0.2f, -0.4f}, {3})}};
  absl::StatusOr<std::vector<Tensor>> got = (*device)->Run(feeds, {"y"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*device)->executor().fallbacks(), 0);
  reference::Session reference(shared);
  absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds, {"y"});
  ASSERT_TRUE(want.ok()) << want.status();
  const Comparison c = CompareTensors((*got)[0], (*want)[0]);
  EXPECT_TRUE(c.equal) << c.reason;
}

}  // namespace
}  // namespace dfc

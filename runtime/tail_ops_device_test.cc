// The tail table's device ops run as generated kernels on PoCL's CPU device against the
// reference executor: the elementwise math (ir/from_tf/special_math.cc), whose OpenCL C bodies
// are written apart from their host twins, so that only a device run checks them, over values
// that cross every branch of the special functions (poles, domain edges, the series/fraction
// switch, large arguments); and the gathers (ir/from_tf/layout_tail.cc), whose bad indices must
// be errors on the device as on the host.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "runtime/device_executor.h"
#include "runtime/interpreted.h"
#include "tests/device_executor_testing.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using namespace testing;  // NOLINT: the DeviceExecutor test helpers

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// A node of op `op` on `inputs` with attribute T = `type` and `attrs` (text format) besides.
std::string NodeText(absl::string_view name, absl::string_view op,
                     const std::vector<std::string>& inputs, absl::string_view type,
                     absl::string_view attrs = "") {
  std::string text = absl::StrCat("node { name: \"", name, "\" op: \"", op, "\"");
  for (const std::string& input : inputs) absl::StrAppend(&text, " input: \"", input, "\"");
  if (!type.empty()) absl::StrAppend(&text, " attr { key: \"T\" value { type: ", type, " } }");
  return absl::StrCat(text, " ", attrs, " }\n");
}

std::string Placeholder(absl::string_view name, absl::string_view type, absl::string_view dims) {
  return absl::StrCat("node { name: \"", name,
                      "\" op: \"Placeholder\" attr { key: \"dtype\" value { type: ", type,
                      " } } attr { key: \"shape\" value { shape { ", dims, " } } } }\n");
}

std::string ScalarConst(absl::string_view name, float value) {
  return absl::StrCat("node { name: \"", name,
                      "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
                      "attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape {} "
                      "float_val: ",
                      value, " } } } }\n");
}

std::string CastText(absl::string_view name, absl::string_view input, absl::string_view to) {
  return absl::StrCat("node { name: \"", name, "\" op: \"Cast\" input: \"", input,
                      "\" attr { key: \"SrcT\" value { type: DT_FLOAT } } "
                      "attr { key: \"DstT\" value { type: ",
                      to, " } } }\n");
}

// The device's values of `fetches` against the reference's.
void ExpectDeviceMatchesReference(DeviceExecutor& device, const Graph& graph,
                                  const ir::TranslatedGraph& translated, const Feeds& feeds,
                                  const std::vector<TensorId>& fetches) {
  absl::StatusOr<std::vector<Tensor>> actual = device.Run(graph, translated, feeds, fetches);
  ASSERT_TRUE(actual.ok()) << actual.status();
  absl::StatusOr<std::vector<Tensor>> expected = Reference(graph, feeds, fetches);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ExpectAllEqual(*actual, *expected, fetches);
}

// A run that must fail on an index, length or id out of range.
void ExpectOutOfRange(DeviceExecutor& device, const Graph& graph,
                      const ir::TranslatedGraph& translated, const Feeds& feeds,
                      const std::vector<TensorId>& fetches) {
  absl::StatusOr<std::vector<Tensor>> result = device.Run(graph, translated, feeds, fetches);
  ASSERT_FALSE(result.ok()) << "an index out of range was accepted";
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("out of range"));
}

TEST_F(DeviceExecutorTest, TheTailsElementwiseMathMatchesTheReferenceOnTheDevice) {
  // a, x and p (in [0, 1] mostly) pair every edge with every other; c has 4 channels.
  std::string text = Placeholder("a", "DT_FLOAT", "dim { size: -1 }") +
                     Placeholder("x", "DT_FLOAT", "dim { size: -1 }") +
                     Placeholder("p", "DT_FLOAT", "dim { size: -1 }") +
                     Placeholder("c", "DT_FLOAT", "dim { size: -1 } dim { size: 4 }") +
                     ScalarConst("lo", -1.5f) + ScalarConst("hi", 2.5f) +
                     ScalarConst("qmin", -0.7f) + ScalarConst("qmax", 3.3f);
  std::vector<std::string> fetches;
  const auto add = [&](const std::string& node_text, absl::string_view name) {
    text += node_text;
    fetches.emplace_back(name);
  };
  // The special functions in float32, and through double and half where they take them.
  text += CastText("a64", "a", "DT_DOUBLE") + CastText("x64", "x", "DT_DOUBLE") +
          CastText("p64", "p", "DT_DOUBLE") + CastText("x16", "x", "DT_HALF");
  for (const char* op : {"Lgamma", "Digamma"}) {
    add(NodeText(op, op, {"x"}, "DT_FLOAT"), op);
    add(NodeText(absl::StrCat(op, "64"), op, {"x64"}, "DT_DOUBLE"), absl::StrCat(op, "64"));
    add(NodeText(absl::StrCat(op, "16"), op, {"x16"}, "DT_HALF"), absl::StrCat(op, "16"));
  }
  for (const char* op : {"Igamma", "Igammac", "Zeta", "Polygamma"}) {
    add(NodeText(op, op, {"a", "x"}, "DT_FLOAT"), op);
    add(NodeText(absl::StrCat(op, "64"), op, {"a64", "x64"}, "DT_DOUBLE"), absl::StrCat(op, "64"));
  }
  add(NodeText("Betainc", "Betainc", {"a", "x", "p"}, "DT_FLOAT"), "Betainc");
  add(NodeText("Betainc64", "Betainc", {"a64", "x64", "p64"}, "DT_DOUBLE"), "Betainc64");
  // The guarded, clipped and quantised ones, in float32.
  for (const char* op : {"Xdivy", "Xlogy", "Xlog1py"})
    add(NodeText(op, op, {"a", "x"}, "DT_FLOAT"), op);
  add(NodeText("ApproximateEqual", "ApproximateEqual", {"a", "x"}, "DT_FLOAT",
               "attr { key: \"tolerance\" value { f: 0.5 } }"),
      "ApproximateEqual");
  add(NodeText("ClipByValue", "ClipByValue", {"x", "lo", "hi"}, "DT_FLOAT"), "ClipByValue");
  add(NodeText("Bucketize", "Bucketize", {"x"}, "DT_FLOAT",
               "attr { key: \"boundaries\" value { list { f: -1 f: 0 f: 0.5 f: 10 } } }"),
      "Bucketize");
  add(NodeText("FakeQuantArgs", "FakeQuantWithMinMaxArgs", {"x"}, "",
               "attr { key: \"min\" value { f: -2 } } attr { key: \"max\" value { f: 5 } } "
               "attr { key: \"num_bits\" value { i: 4 } }"),
      "FakeQuantArgs");
  add(NodeText("FakeQuantVars", "FakeQuantWithMinMaxVars", {"x", "qmin", "qmax"}, ""),
      "FakeQuantVars");
  text += NodeText("cmin", "Const", {}, "",
                   "attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value "
                   "{ tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: -6 "
                   "float_val: 0 float_val: 0.3 float_val: -3.1 } } }");
  text += NodeText("cmax", "Const", {}, "",
                   "attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value "
                   "{ tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 6 "
                   "float_val: 0 float_val: 4.7 float_val: -0.2 } } }");
  add(NodeText("FakeQuantPerChannel", "FakeQuantWithMinMaxVarsPerChannel", {"c", "cmin", "cmax"},
               "", "attr { key: \"narrow_range\" value { b: true } }"),
      "FakeQuantPerChannel");

  absl::StatusOr<Graph> graph = ParseGraph(text, "tail math");
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<TensorId> ids;
  for (const std::string& f : fetches) ids.push_back({f, 0});

  const std::vector<float> edges = {kNaN, -kInf, -3, -2.5f, -1,   -0.5f, 0,  1e-3f, 0.25f, 0.5f,
                                    1,    1.5f,  2,  3.7f,  9.5f, 10,    11, 30,    100,   kInf};
  const std::vector<float> probabilities = {kNaN, -0.5f, 0, 0.1f, 0.5f, 0.9f, 1, 1.5f};
  std::vector<float> a;
  std::vector<float> x;
  std::vector<float> p;
  for (float u : edges) {
    for (float v : edges) {
      a.push_back(u);
      x.push_back(v);
      p.push_back(probabilities[(a.size() * 7) % probabilities.size()]);
    }
  }
  const int64_t n = static_cast<int64_t>(a.size());
  std::vector<float> channels(x.begin(), x.begin() + 4 * (n / 4));
  const Feeds feeds = {{{"a", 0}, TN<float>(a, {n})},
                       {{"x", 0}, TN<float>(x, {n})},
                       {{"p", 0}, TN<float>(p, {n})},
                       {{"c", 0}, TN<float>(channels, {n / 4, 4})}};
  absl::StatusOr<ir::TranslatedGraph> translated = Translate(*graph, ids, feeds);
  ASSERT_TRUE(translated.ok()) << translated.status();
  EXPECT_EQ(translated->device_on_host, 0) << "an op of the family was left on the host";
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  // The kernels compute in double with the steps of the reference's functions, so they differ
  // only by PoCL's libm against glibc's (a few double ulps) before the rounding to the output
  // dtype: within the conformance suite's tolerance.
  ExpectDeviceMatchesReference(*device, *graph, *translated, feeds, ids);
  EXPECT_EQ(device->fallbacks(), 0) << "a kernel failed to build";
  absl::StatusOr<std::vector<Tensor>> interpreted = RunInterpreted(*graph, *translated, feeds, ids);
  ASSERT_TRUE(interpreted.ok()) << interpreted.status();
  absl::StatusOr<std::vector<Tensor>> expected = Reference(*graph, feeds, ids);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ExpectAllEqual(*interpreted, *expected, ids);
}

// Erfinv's OpenCL C body (Giles' estimate, refined in double) against the reference's, in each
// float dtype, over both of the estimate's branches, its edges and past them.
TEST_F(DeviceExecutorTest, ErfinvMatchesTheReferenceOnTheDevice) {
  const std::string text = Placeholder("y", "DT_FLOAT", "dim { size: -1 }") +
                           CastText("y64", "y", "DT_DOUBLE") + CastText("y16", "y", "DT_HALF") +
                           NodeText("erfinv", "Erfinv", {"y"}, "DT_FLOAT") +
                           NodeText("erfinv64", "Erfinv", {"y64"}, "DT_DOUBLE") +
                           NodeText("erfinv16", "Erfinv", {"y16"}, "DT_HALF");
  absl::StatusOr<Graph> graph = ParseGraph(text, "erfinv");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> ids = {{"erfinv", 0}, {"erfinv64", 0}, {"erfinv16", 0}};
  std::vector<float> y = {kNaN,    -kInf,        -1.5f, -1,    -0.999f, -0.5f, -0.0f,
                          0,       1e-30f,       1e-3f, 0.25f, 0.5f,    0.9f,  0.99f,
                          0.9999f, 1 - 0x1p-24f, 1,     2,     kInf};
  for (int k = 0; k < 64; ++k) y.push_back(-1 + (k + 0.5f) / 32);
  const Feeds feeds = {{{"y", 0}, TN<float>(y, {static_cast<int64_t>(y.size())})}};
  absl::StatusOr<ir::TranslatedGraph> translated = Translate(*graph, ids, feeds);
  ASSERT_TRUE(translated.ok()) << translated.status();
  EXPECT_EQ(translated->device_on_host, 0) << "Erfinv was left on the host";
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  // Float's body is Giles' estimate alone, within 1.3e-7 of the reference's rounded erfinv,
  // under the default tolerance (1e-6); double's refines it as the reference does.
  ExpectDeviceMatchesReference(*device, *graph, *translated, feeds, ids);
  EXPECT_EQ(device->fallbacks(), 0) << "a kernel failed to build";
}

// Roll, ReverseSequence and GatherNd fused with an op on each side, over several feeds; a length
// or index out of range is an error naming it, not a read out of bounds.
TEST_F(DeviceExecutorTest, TheTailsGathersMatchTheReferenceOnTheDevice) {
  constexpr char kGraph[] = R"graph(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 5 } dim { size: 2 } } } } }
node { name: "lengths" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "shape" value { shape { dim { size: -1 } } } } }
node { name: "indices" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
node { name: "shift" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                                            int_val: 2 int_val: -1 } } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                                            int_val: 1 int_val: 2 } } } }
node { name: "t" op: "Tanh" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "rolled" op: "Roll" input: "t" input: "shift" input: "axis"
       attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshift" value { type: DT_INT32 } }
       attr { key: "Taxis" value { type: DT_INT32 } } }
node { name: "reversed" op: "ReverseSequence" input: "rolled" input: "lengths"
       attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tlen" value { type: DT_INT32 } }
       attr { key: "seq_dim" value { i: 1 } } attr { key: "batch_dim" value { i: 0 } } }
node { name: "gathered" op: "GatherNd" input: "reversed" input: "indices"
       attr { key: "Tparams" value { type: DT_FLOAT } } attr { key: "Tindices" value { type: DT_INT64 } } }
node { name: "out" op: "Square" input: "gathered" attr { key: "T" value { type: DT_FLOAT } } }
)graph";
  absl::StatusOr<Graph> graph = ParseGraph(kGraph, "tail gathers");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> fetches = {{"out", 0}, {"reversed", 0}};
  const Tensor x = RandomFloats({3, 5, 2}, 7);
  auto feeds_for = [&](std::vector<int32_t> lengths, std::vector<int64_t> indices) -> Feeds {
    const int64_t n = static_cast<int64_t>(indices.size()) / 2;
    return {{{"x", 0}, x},
            {{"lengths", 0}, TN<int32_t>(lengths, {3})},
            {{"indices", 0}, TN<int64_t>(indices, {n, 2})}};
  };
  absl::StatusOr<ir::TranslatedGraph> translated = Translate(
      *graph, fetches, {{{"x", 0}, x}, {{"lengths", 0}, Tensor()}, {{"indices", 0}, Tensor()}});
  ASSERT_TRUE(translated.ok()) << translated.status();
  EXPECT_EQ(translated->device_on_host, 0) << "a gather was left on the host";
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  for (const auto& [lengths, indices] :
       std::vector<std::pair<std::vector<int32_t>, std::vector<int64_t>>>{
           {{5, 0, 3}, {0, 4, 2, 1, 1, 3}}, {{1, 2, 5}, {2, 0}}, {{0, 0, 0}, {}}}) {
    const Feeds feeds = feeds_for(lengths, indices);
    ExpectDeviceMatchesReference(*device, *graph, *translated, feeds, fetches);
  }
  EXPECT_EQ(device->fallbacks(), 0);
  // A length past the sequence and an index past params: errors, as in the reference.
  for (const Feeds& bad : {feeds_for({6, 0, 0}, {0, 0}), feeds_for({1, 1, 1}, {3, 0})}) {
    ExpectOutOfRange(*device, *graph, *translated, bad, fetches);
  }
}

// The unsorted segment reductions as masked folds, on ids fed at run time (negative ones
// dropped); an id past num_segments is an error on the device as in the reference.
TEST_F(DeviceExecutorTest, TheTailsSegmentReductionsMatchTheReferenceOnTheDevice) {
  std::string text = Placeholder("x", "DT_FLOAT", "dim { size: -1 } dim { size: 3 }") +
                     NodeText("data", "Tanh", {"x"}, "DT_FLOAT") +
                     Placeholder("ids", "DT_INT32", "dim { size: -1 }") +
                     "node { name: \"count\" op: \"Const\" attr { key: \"dtype\" value { type: "
                     "DT_INT32 } } attr { key: \"value\" value { tensor { dtype: DT_INT32 "
                     "tensor_shape {} int_val: 4 } } } }\n";
  std::vector<TensorId> fetches;
  for (const char* op :
       {"UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax", "UnsortedSegmentMin"}) {
    text += NodeText(op, op, {"data", "ids", "count"}, "DT_FLOAT",
                     "attr { key: \"Tindices\" value { type: DT_INT32 } } "
                     "attr { key: \"Tnumsegments\" value { type: DT_INT32 } }");
    fetches.push_back({op, 0});
  }
  absl::StatusOr<Graph> graph = ParseGraph(text, "tail segments");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<ir::TranslatedGraph> translated =
      Translate(*graph, fetches, {{{"x", 0}, Tensor()}, {{"ids", 0}, Tensor()}});
  ASSERT_TRUE(translated.ok()) << translated.status();
  EXPECT_EQ(translated->device_on_host, 0) << "a segment reduction was left on the host";
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  for (const std::vector<int32_t>& ids :
       std::vector<std::vector<int32_t>>{{0, 3, 0, -1, 3, 3}, {2}, {}, {1, 1, 1, 1, 1, 1, 1, 0}}) {
    const int64_t n = static_cast<int64_t>(ids.size());
    const Feeds feeds = {{{"x", 0}, RandomFloats({n, 3}, n)}, {{"ids", 0}, TN<int32_t>(ids, {n})}};
    ExpectDeviceMatchesReference(*device, *graph, *translated, feeds, fetches);
  }
  EXPECT_EQ(device->fallbacks(), 0);
  const Feeds bad = {{{"x", 0}, RandomFloats({2, 3}, 1)}, {{"ids", 0}, TN<int32_t>({0, 4}, {2})}};
  ExpectOutOfRange(*device, *graph, *translated, bad, fetches);  // id 4 of 4 segments
}

// Every output's fold reads every update, so a computed operand (Tanh here) read by 64 segments
// is bound once by a let, a stage of its own, not computed again for every segment (the
// translation's cost model: 63 more tanh an element cost more than a store and a load).
TEST_F(DeviceExecutorTest, AComputedOperandOfAScatterIsComputedOnce) {
  const std::string text =
      Placeholder("x", "DT_FLOAT", "dim { size: -1 } dim { size: 3 }") +
      NodeText("data", "Tanh", {"x"}, "DT_FLOAT") +
      Placeholder("ids", "DT_INT32", "dim { size: -1 }") +
      "node { name: \"count\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } "
      "attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 64 } } } "
      "}\n" +
      NodeText("sums", "UnsortedSegmentSum", {"data", "ids", "count"}, "DT_FLOAT",
               "attr { key: \"Tindices\" value { type: DT_INT32 } } "
               "attr { key: \"Tnumsegments\" value { type: DT_INT32 } }");
  absl::StatusOr<Graph> graph = ParseGraph(text, "scatter of a computed operand");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<ir::TranslatedGraph> translated =
      Translate(*graph, {{"sums", 0}}, {{{"x", 0}, Tensor()}, {{"ids", 0}, Tensor()}});
  ASSERT_TRUE(translated.ok()) << translated.status();
  ASSERT_EQ(translated->clusters.size(), 1u);
  const std::string ir = ir::ToString(translated->clusters[0].lambda);
  EXPECT_TRUE(absl::StrContains(ir, "(λ(data) =>")) << ir;
}

// SegmentSum stays on the host (its output size is the last id + 1), and what follows it fuses
// on the device with that size bound when it runs, one kernel serving every count.
TEST_F(DeviceExecutorTest, WhatFollowsASortedSegmentSumIsSizedWhenItRuns) {
  const std::string text = Placeholder("data", "DT_FLOAT", "dim { size: -1 } dim { size: 3 }") +
                           Placeholder("ids", "DT_INT32", "dim { size: -1 }") +
                           NodeText("sums", "SegmentSum", {"data", "ids"}, "DT_FLOAT",
                                    "attr { key: \"Tindices\" value { type: DT_INT32 } }") +
                           NodeText("out", "Tanh", {"sums"}, "DT_FLOAT");
  absl::StatusOr<Graph> graph = ParseGraph(text, "sorted segments");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> fetches = {{"out", 0}};
  absl::StatusOr<ir::TranslatedGraph> translated =
      Translate(*graph, fetches, {{{"data", 0}, Tensor()}, {{"ids", 0}, Tensor()}});
  ASSERT_TRUE(translated.ok()) << translated.status();
  EXPECT_EQ(translated->device_on_host, 0) << "Tanh waited on the host for its shape";
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  for (const std::vector<int32_t>& ids :
       std::vector<std::vector<int32_t>>{{0, 0, 2, 5}, {1}, {0, 1, 1, 1, 3, 3, 3}}) {
    const int64_t n = static_cast<int64_t>(ids.size());
    ExpectDeviceMatchesReference(
        *device, *graph, *translated,
        {{{"data", 0}, RandomFloats({n, 3}, n)}, {{"ids", 0}, TN<int32_t>(ids, {n})}}, fetches);
  }
  EXPECT_EQ(device->kernels_generated(), static_cast<int64_t>(translated->clusters.size()));
  EXPECT_EQ(device->fallbacks(), 0);
}

// The ND scatters of values as masked folds, the index tuples fed at run time (with a
// duplicate, so the order of the updates shows); an index out of range is an error.
TEST_F(DeviceExecutorTest, TheTailsNdScattersMatchTheReferenceOnTheDevice) {
  std::string text = Placeholder("base", "DT_FLOAT", "dim { size: 4 } dim { size: 3 }") +
                     Placeholder("indices", "DT_INT32", "dim { size: 3 } dim { size: 1 }") +
                     Placeholder("updates", "DT_FLOAT", "dim { size: 3 } dim { size: 3 }") +
                     "node { name: \"shape\" op: \"Const\" attr { key: \"dtype\" value { type: "
                     "DT_INT32 } } attr { key: \"value\" value { tensor { dtype: DT_INT32 "
                     "tensor_shape { dim { size: 2 } } int_val: 5 int_val: 3 } } } }\n";
  std::vector<TensorId> fetches;
  const std::string attrs = "attr { key: \"Tindices\" value { type: DT_INT32 } }";
  for (const char* op : {"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                         "TensorScatterMax", "TensorScatterMin", "ScatterNdNonAliasingAdd"}) {
    text += NodeText(op, op, {"base", "indices", "updates"}, "DT_FLOAT", attrs);
    fetches.push_back({op, 0});
  }
  text += NodeText("ScatterNd", "ScatterNd", {"indices", "updates", "shape"}, "DT_FLOAT", attrs);
  fetches.push_back({"ScatterNd", 0});
  absl::StatusOr<Graph> graph = ParseGraph(text, "tail scatters");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Tensor base = RandomFloats({4, 3}, 11);
  const Tensor updates = RandomFloats({3, 3}, 12);
  auto feeds_for = [&](std::vector<int32_t> indices) -> Feeds {
    return {{{"base", 0}, base},
            {{"indices", 0}, TN<int32_t>(indices, {3, 1})},
            {{"updates", 0}, updates}};
  };
  absl::StatusOr<ir::TranslatedGraph> translated = Translate(*graph, fetches, feeds_for({0, 0, 0}));
  ASSERT_TRUE(translated.ok()) << translated.status();
  EXPECT_EQ(translated->device_on_host, 0) << "a scatter was left on the host";
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  for (const std::vector<int32_t>& indices :
       std::vector<std::vector<int32_t>>{{3, 0, 3}, {1, 2, 0}, {2, 2, 2}}) {
    const Feeds feeds = feeds_for(indices);
    ExpectDeviceMatchesReference(*device, *graph, *translated, feeds, fetches);
  }
  EXPECT_EQ(device->fallbacks(), 0);
  ExpectOutOfRange(*device, *graph, *translated, feeds_for({1, 4, 0}), fetches);  // 4 rows
}

}  // namespace
}  // namespace dfc

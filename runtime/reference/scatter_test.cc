// Tests of the scatter and gather-by-index kernels (scatter.cc): hand-computed ND and row
// scatters with duplicate indices, the variable writes of the ref forms, GatherNd,
// SparseToDense, empty tensors, and the errors TensorFlow's CPU kernels raise.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/reference/kernel.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;
using ::dfc::testing::HalfTensor;
using ::dfc::testing::Iota;
using ::dfc::testing::MakeNode;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// --- ScatterNd -------------------------------------------------------------------------------

TEST(ScatterNdTest, TensorFlowExampleAndDuplicates) {
  // tf.scatter_nd's documented example: indices [[4], [3], [1], [7]] into 8 zeros.
  Tensor out = RunOp1("ScatterNd", {TN<int32_t>({4, 3, 1, 7}, {4, 1}), T1<float>({9, 10, 11, 12}),
                                    T1<int32_t>({8})});
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 11, 0, 10, 9, 0, 0, 12));
  // Duplicates add up; rank-1 indices are one coordinate each.
  out = RunOp1("ScatterNd", {T1<int64_t>({1, 1, 0}), T1<int32_t>({5, 6, 7}), T1<int64_t>({3})});
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(7, 11, 0));
}

TEST(ScatterNdTest, SlicesOfHigherRank) {
  // Two coordinates into [2, 2, 3]: each addresses a row of 3.
  Tensor out = RunOp1("ScatterNd", {TN<int32_t>({1, 0, 0, 1}, {2, 2}),
                                    TN<float>({1, 2, 3, 4, 5, 6}, {2, 3}), T1<int32_t>({2, 2, 3})});
  EXPECT_EQ(out.shape(), (Shape{2, 2, 3}));
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 0, 0, 4, 5, 6, 1, 2, 3, 0, 0, 0));
  // One coordinate into [3, 2]: whole rows, with a batch of [2, 1] tuples.
  out = RunOp1("ScatterNd", {TN<int32_t>({2, 0}, {2, 1, 1}), TN<double>({1, 2, 3, 4}, {2, 1, 2}),
                             T1<int32_t>({3, 2})});
  EXPECT_THAT(Values<double>(out), ElementsAre(3, 4, 0, 0, 1, 2));
}

TEST(ScatterNdTest, EmptyAndErrors) {
  // No updates into an empty or non-empty output.
  EXPECT_EQ(RunOp1("ScatterNd", {Tensor::Zeros(DType::kInt32, {0, 1}),
                                 Tensor::Zeros(DType::kFloat, {0}), T1<int32_t>({0})})
                .shape(),
            (Shape{0}));
  EXPECT_THAT(Values<float>(
                  RunOp1("ScatterNd", {Tensor::Zeros(DType::kInt32, {0, 1}),
                                       Tensor::Zeros(DType::kFloat, {0, 2}), T1<int32_t>({2, 2})})),
              ElementsAre(0, 0, 0, 0));
  ExpectError(RunOp("ScatterNd", {TN<int32_t>({3}, {1, 1}), T1<float>({1}), T1<int32_t>({3})}),
              "indices[0] = [3] does not index into shape [3]");
  ExpectError(RunOp("ScatterNd", {TN<int32_t>({-1}, {1, 1}), T1<float>({1}), T1<int32_t>({3})}),
              "does not index into shape");
  ExpectError(RunOp("ScatterNd", {TN<int32_t>({0}, {1, 1}), T1<float>({1, 2}), T1<int32_t>({3})}),
              "updates must have shape indices.shape[:-1] + shape[1:] = [1]");
  ExpectError(
      RunOp("ScatterNd", {TN<int32_t>({0, 0, 0}, {1, 3}), T1<float>({1}), T1<int32_t>({3, 3})}),
      "more than the output [3,3] has dimensions");
  ExpectError(RunOp("ScatterNd", {TN<int32_t>({0}, {1, 1}), T1<float>({1}), T1<int32_t>({0})}),
              "not empty for an empty output");
  ExpectError(RunOp("ScatterNd", {TN<float>({0}, {1, 1}), T1<float>({1}), T1<int32_t>({3})}),
              "input 0 has dtype float32");
  ExpectError(RunOp("ScatterNd", {TN<int32_t>({0}, {1, 1}), T1<float>({1}), T1<int32_t>({-3})}),
              "negative");
}

// --- TensorScatter*, ScatterNdNonAliasingAdd ---------------------------------------------------

TEST(TensorScatterTest, EachCombination) {
  const Tensor base = T1<float>({1, 2, 3, 4});
  const Tensor indices = TN<int32_t>({3, 1, 3}, {3, 1});
  const Tensor updates = T1<float>({10, -5, 20});
  EXPECT_THAT(Values<float>(RunOp1("TensorScatterUpdate", {base, indices, updates})),
              ElementsAre(1, -5, 3, 20));  // the last of the duplicates wins
  EXPECT_THAT(Values<float>(RunOp1("TensorScatterAdd", {base, indices, updates})),
              ElementsAre(1, -3, 3, 34));
  EXPECT_THAT(Values<float>(RunOp1("ScatterNdNonAliasingAdd", {base, indices, updates})),
              ElementsAre(1, -3, 3, 34));
  EXPECT_THAT(Values<float>(RunOp1("TensorScatterSub", {base, indices, updates})),
              ElementsAre(1, 7, 3, -26));
  EXPECT_THAT(Values<float>(RunOp1("TensorScatterMax", {base, indices, updates})),
              ElementsAre(1, 2, 3, 20));
  EXPECT_THAT(Values<float>(RunOp1("TensorScatterMin", {base, indices, updates})),
              ElementsAre(1, -5, 3, 4));
  // The input is copied, never written: tensors share buffers.
  EXPECT_THAT(Values<float>(base), ElementsAre(1, 2, 3, 4));
}

TEST(TensorScatterTest, DtypesAndNaN) {
  // int32 addition wraps as the machine's does.
  const int32_t big = std::numeric_limits<int32_t>::max();
  EXPECT_THAT(
      Values<int32_t>(RunOp1("TensorScatterAdd",
                             {T1<int32_t>({big}), TN<int32_t>({0}, {1, 1}), T1<int32_t>({1})})),
      ElementsAre(std::numeric_limits<int32_t>::min()));
  // bool addition is or, subtraction is xor (Eigen's arithmetic through int), for the ND
  // scatters TensorFlow registers them for; the TensorScatter ops only assign bools.
  const Tensor flags = T1<bool>({false, true});
  const Tensor both = TN<int32_t>({0, 1}, {2, 1});
  const Tensor set = T1<bool>({true, true});
  EXPECT_THAT(Values<bool>(RunOp1("ScatterNdNonAliasingAdd", {flags, both, set})),
              ElementsAre(true, true));
  EXPECT_THAT(Values<bool>(RunOp1("ScatterNdSub", {flags, both, set})), ElementsAre(true, false));
  EXPECT_THAT(Values<bool>(RunOp1("TensorScatterUpdate", {flags, both, set})),
              ElementsAre(true, true));
  ExpectError(RunOp("TensorScatterAdd", {flags, both, set}), "unsupported dtype bool");
  ExpectError(RunOp("TensorScatterMax", {flags, both, set}), "unsupported dtype bool");
  // half adds in float and rounds.
  EXPECT_THAT(
      ValuesAsDouble(RunOp1("TensorScatterAdd", {HalfTensor({1, 2}, {2}), TN<int32_t>({1}, {1, 1}),
                                                 HalfTensor({0.5}, {1})})),
      ElementsAre(1, 2.5));
  // Max as std::max(element, update): a NaN update leaves the element.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THAT(
      Values<float>(RunOp1("TensorScatterMax", {T1<float>({1, nan}), TN<int32_t>({0, 1}, {2, 1}),
                                                T1<float>({nan, 5})})),
      ElementsAre(1, ::testing::IsNan()));
  ExpectError(
      RunOp("TensorScatterAdd", {T1<float>({1}), TN<int32_t>({0}, {1, 1}), T1<double>({1})}),
      "must have the dtype of float32[1]");
}

// --- The ref forms: ScatterNdAdd..., ScatterAdd... ------------------------------------------

// Runs `op` with input 0 referring to `variable`, as a session runs it.
absl::StatusOr<std::vector<Tensor>> RunOnVariable(const std::string& op,
                                                  reference::KernelContext::VariableSlot& variable,
                                                  std::vector<Tensor> inputs) {
  inputs.insert(inputs.begin(), variable.value);
  const Node node = MakeNode(op, {}, static_cast<int>(inputs.size()));
  std::vector<reference::KernelContext::VariableSlot*> refs(inputs.size(), nullptr);
  refs[0] = &variable;
  return reference::EvaluateNode(node, inputs, {.ref_inputs = refs});
}

TEST(ScatterRefTest, WritesTheVariable) {
  reference::KernelContext::VariableSlot v{.value = TN<float>({1, 2, 3, 4, 5, 6}, {3, 2}),
                                           .initialized = true};
  const Tensor before = v.value;
  absl::StatusOr<std::vector<Tensor>> out = RunOnVariable(
      "ScatterAdd", v, {T1<int32_t>({2, 0, 2}), TN<float>({1, 1, 2, 2, 3, 3}, {3, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(3, 4, 3, 4, 9, 10));
  EXPECT_THAT(Values<float>(v.value), ElementsAre(3, 4, 3, 4, 9, 10));
  // The value read before the write keeps its elements.
  EXPECT_THAT(Values<float>(before), ElementsAre(1, 2, 3, 4, 5, 6));
  out = RunOnVariable("ScatterNdUpdate", v, {TN<int64_t>({1, 1}, {1, 2}), T1<float>({-1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(v.value), ElementsAre(3, 4, 3, -1, 9, 10));

  reference::KernelContext::VariableSlot unset;
  ExpectError(RunOnVariable("ScatterSub", unset, {T1<int32_t>({0}), T1<float>({1})}),
              "is updated before it is initialized");
  // A failed update leaves the variable as it was.
  ExpectError(
      RunOnVariable("ScatterAdd", v, {T1<int32_t>({0, 3}), TN<float>({1, 1, 1, 1}, {2, 2})}),
      "indices[1] = 3 is not in [0, 3)");
  EXPECT_THAT(Values<float>(v.value), ElementsAre(3, 4, 3, -1, 9, 10));
}

TEST(ScatterRefTest, WithoutAVariableUpdatesACopy) {
  // Input 0 a plain value (a frozen graph's constant): the result is output, nothing written.
  const Tensor params = TN<float>({1, 2, 3, 4}, {2, 2});
  EXPECT_THAT(
      Values<float>(RunOp1("ScatterMul", {params, T1<int32_t>({1}), TN<float>({2, 3}, {1, 2})})),
      ElementsAre(1, 2, 6, 12));
  EXPECT_THAT(Values<float>(params), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(
      Values<float>(RunOp1("ScatterNdSub", {params, TN<int32_t>({0, 1}, {1, 2}), T1<float>({5})})),
      ElementsAre(1, -3, 3, 4));
  // Empty indices and updates leave it as it is (TensorFlow's emptyArrayTests).
  EXPECT_THAT(Values<float>(RunOp1("ScatterDiv", {params, Tensor::Zeros(DType::kInt32, {1, 0}),
                                                  Tensor::Zeros(DType::kFloat, {1, 0, 2})})),
              ElementsAre(1, 2, 3, 4));
}

TEST(RowScatterTest, EachCombinationAndScalarUpdates) {
  const Tensor params = T1<int32_t>({10, 20, 30});
  const Tensor indices = TN<int64_t>({2, 0, 2}, {3});
  const Tensor updates = T1<int32_t>({3, 4, 5});
  EXPECT_THAT(Values<int32_t>(RunOp1("ScatterSub", {params, indices, updates})),
              ElementsAre(6, 20, 22));
  EXPECT_THAT(Values<int32_t>(RunOp1("ScatterMul", {params, indices, updates})),
              ElementsAre(40, 20, 450));
  EXPECT_THAT(Values<int32_t>(RunOp1("ScatterDiv", {params, indices, updates})),
              ElementsAre(2, 20, 2));  // 30 / 3 / 5, truncated
  EXPECT_THAT(Values<int32_t>(RunOp1("ScatterMax", {params, indices, updates})),
              ElementsAre(10, 20, 30));
  EXPECT_THAT(Values<int32_t>(RunOp1("ScatterMin", {params, indices, updates})),
              ElementsAre(4, 20, 3));
  EXPECT_THAT(Values<int32_t>(RunOp1("ScatterUpdate", {params, indices, updates})),
              ElementsAre(4, 20, 5));
  // A scalar update applies to every indexed element; indices of any rank.
  EXPECT_THAT(Values<float>(
                  RunOp1("ScatterAdd", {TN<float>({1, 2, 3, 4}, {2, 2}),
                                        TN<int32_t>({1, 1}, {1, 2}), Tensor::Scalar<float>(0.5f)})),
              ElementsAre(1, 2, 4, 5));
  ExpectError(RunOp("ScatterDiv", {params, T1<int32_t>({1}), T1<int32_t>({0})}),
              "integer division by zero");
  ExpectError(RunOp("ScatterAdd", {params, T1<int32_t>({-1}), T1<int32_t>({1})}),
              "indices[0] = -1 is not in [0, 3)");
  ExpectError(RunOp("ScatterAdd", {params, T1<int32_t>({0}), T1<int32_t>({1, 2})}),
              "updates must be a scalar or have shape indices.shape + ref.shape[1:] = [1]");
  ExpectError(RunOp("ScatterUpdate", {Tensor::Scalar<float>(1), T1<int32_t>({0}), T1<float>({1})}),
              "rank 1 or more");
  ExpectError(RunOp("ScatterAdd", {T1<bool>({true}), T1<int32_t>({0}), T1<bool>({true})}),
              "unsupported dtype bool");
  EXPECT_THAT(Values<bool>(RunOp1("ScatterUpdate",
                                  {T1<bool>({true, true}), T1<int32_t>({1}), T1<bool>({false})})),
              ElementsAre(true, false));
}

// --- GatherNd --------------------------------------------------------------------------------

TEST(GatherNdTest, ElementsSlicesAndBatches) {
  const Tensor params = Iota({2, 3});
  // Full coordinates pick elements.
  Tensor out = RunOp1("GatherNd", {params, TN<int32_t>({1, 2, 0, 1}, {2, 2})});
  EXPECT_EQ(out.shape(), (Shape{2}));
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(5, 1));
  // One coordinate picks rows, in a batch of [2, 1].
  out = RunOp1("GatherNd", {params, TN<int64_t>({1, 0}, {2, 1, 1})});
  EXPECT_EQ(out.shape(), (Shape{2, 1, 3}));
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(3, 4, 5, 0, 1, 2));
  // No coordinates pick the whole of params.
  out = RunOp1("GatherNd", {params, Tensor::Zeros(DType::kInt32, {2, 0})});
  EXPECT_EQ(out.shape(), (Shape{2, 2, 3}));
  // No tuples: an empty result, even from empty params.
  EXPECT_EQ(RunOp1("GatherNd",
                   {Tensor::Zeros(DType::kFloat, {0, 2}), Tensor::Zeros(DType::kInt32, {0, 1})})
                .shape(),
            (Shape{0, 2}));
}

TEST(GatherNdTest, Errors) {
  ExpectError(RunOp("GatherNd", {Iota({3}), TN<int32_t>({0, 7}, {1, 2, 1})}),
              "indices[0,1] = [7] does not index into param shape [3]");
  ExpectError(RunOp("GatherNd", {Iota({3}), TN<int32_t>({0, 0}, {1, 2})}),
              "more than params int32[3] has dimensions");
  ExpectError(RunOp("GatherNd", {Tensor::Zeros(DType::kFloat, {0}), TN<int32_t>({0}, {1, 1})}),
              "from empty params");
  ExpectError(RunOp("GatherNd", {Tensor::Scalar<float>(1), TN<int32_t>({0}, {1, 1})}),
              "rank 1 or more");
}

// --- SparseToDense ---------------------------------------------------------------------------

TEST(SparseToDenseTest, IndicesOfEachRank) {
  Tensor out = RunOp1("SparseToDense", {TN<int32_t>({0, 1, 1, 2}, {2, 2}), T1<int32_t>({2, 3}),
                                        T1<float>({5, 6}), Tensor::Scalar<float>(-1)});
  EXPECT_THAT(Values<float>(out), ElementsAre(-1, 5, -1, -1, -1, 6));
  // A vector of indices into a vector, one value for all.
  out = RunOp1("SparseToDense", {T1<int64_t>({0, 3}), T1<int64_t>({4}), Tensor::Scalar<int32_t>(7),
                                 Tensor::Scalar<int32_t>(0)});
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(7, 0, 0, 7));
  // A scalar index.
  out = RunOp1("SparseToDense", {Tensor::Scalar<int32_t>(1), T1<int32_t>({2}),
                                 Tensor::Scalar<bool>(true), Tensor::Scalar<bool>(false)});
  EXPECT_THAT(Values<bool>(out), ElementsAre(false, true));
}

TEST(SparseToDenseTest, ValidatesIndices) {
  const auto run = [](std::vector<int32_t> indices, bool validate) {
    return RunOp("SparseToDense",
                 {T1<int32_t>(indices), T1<int32_t>({4}), Tensor::Scalar<float>(1),
                  Tensor::Scalar<float>(0)},
                 {{"validate_indices", validate}});
  };
  ExpectError(run({2, 1}, true), "sparse_indices[1] = [1] is out of order");
  ExpectError(run({1, 1}, true), "sparse_indices[1] = [1] is repeated");
  ExpectError(run({4}, false), "sparse_indices[0] = [4] is out of bounds");
  absl::StatusOr<std::vector<Tensor>> unsorted = run({2, 1, 2}, false);
  ASSERT_TRUE(unsorted.ok()) << unsorted.status();
  EXPECT_THAT(Values<float>((*unsorted)[0]), ElementsAre(0, 1, 1, 0));
  ExpectError(RunOp("SparseToDense", {T1<int32_t>({0}), T1<int32_t>({2, 2}),
                                      Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)}),
              "output_shape has 2 elements, expected 1");
  ExpectError(RunOp("SparseToDense", {T1<int32_t>({0}), T1<int32_t>({2}), T1<float>({1, 2}),
                                      Tensor::Scalar<float>(0)}),
              "sparse_values must be a scalar or have shape [1]");
}

}  // namespace
}  // namespace dfc

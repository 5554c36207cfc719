// Tests for the optimizers (optimizer.cc): each against its formula on small hand values, the
// variants their attributes choose, float16 storage, the errors, and Adam trained for a few
// steps by a reference Session from a GraphDef.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;
using ::dfc::testing::HalfTensor;
using ::dfc::testing::MakeNode;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using reference::KernelContext;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

Tensor D(std::vector<double> v) { return T1<double>(std::move(v)); }
Tensor S(double x) { return TN<double>({x}, {}); }

// Runs optimizer `op` with `variables` as its leading ref inputs (updated in place when it
// succeeds) and `others` as the inputs after them, in order.
absl::StatusOr<std::vector<Tensor>> Apply(const std::string& op, std::vector<Tensor>& variables,
                                          std::vector<Tensor> others, AttrMap attrs = {}) {
  std::vector<KernelContext::VariableSlot> slots;
  for (const Tensor& v : variables) slots.push_back({v, true});
  std::vector<Tensor> inputs = variables;
  inputs.insert(inputs.end(), others.begin(), others.end());
  std::vector<KernelContext::VariableSlot*> refs(inputs.size(), nullptr);
  for (size_t k = 0; k < slots.size(); ++k) refs[k] = &slots[k];
  const Node node = MakeNode(op, std::move(attrs), static_cast<int>(inputs.size()));
  absl::StatusOr<std::vector<Tensor>> out =
      reference::EvaluateNode(node, inputs, {.ref_inputs = refs});
  if (out.ok()) {
    for (size_t k = 0; k < slots.size(); ++k) variables[k] = slots[k].value;
    EXPECT_TRUE((*out)[0].BitwiseEqual(variables[0])) << "the output is the updated var";
  }
  return out;
}

// Applies and expects success.
void ApplyOk(const std::string& op, std::vector<Tensor>& variables, std::vector<Tensor> others,
             AttrMap attrs = {}) {
  const absl::StatusOr<std::vector<Tensor>> out =
      Apply(op, variables, std::move(others), std::move(attrs));
  ASSERT_TRUE(out.ok()) << out.status();
}

MATCHER_P(Near, expected, "") {
  return ::testing::ExplainMatchResult(Pointwise(DoubleNear(1e-12), expected), ValuesAsDouble(arg),
                                       result_listener);
}

TEST(OptimizerTest, Momentum) {
  // accum = accum * momentum + grad; var -= lr * accum.
  std::vector<Tensor> v = {D({1, 2}), D({0.5, -1})};
  ApplyOk("ApplyMomentum", v, {S(0.1), D({0.2, 0.4}), S(0.9)});
  EXPECT_THAT(v[1], Near(std::vector<double>{0.65, -0.5}));
  EXPECT_THAT(v[0], Near(std::vector<double>{0.935, 2.05}));
  // Nesterov: var -= lr * grad + lr * momentum * accum.
  v = {D({1, 2}), D({0.5, -1})};
  ApplyOk("ApplyMomentum", v, {S(0.1), D({0.2, 0.4}), S(0.9)}, {{"use_nesterov", true}});
  EXPECT_THAT(v[0], Near(std::vector<double>{0.9215, 2.005}));
}

TEST(OptimizerTest, Adam) {
  std::vector<Tensor> v = {D({1, -2}), D({0, 0.1}), D({0, 0.01})};
  // beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad.
  ApplyOk("ApplyAdam", v, {S(0.9), S(0.999), S(0.001), S(0.9), S(0.999), S(1e-8), D({0.5, -1})});
  const double alpha = 0.001 * std::sqrt(1 - 0.999) / (1 - 0.9);
  const double m1 = 0.1 * 0.5, m2 = 0.1 + (-1 - 0.1) * 0.1;
  const double v1 = 0.001 * 0.25, v2 = 0.01 + (1 - 0.01) * 0.001;
  EXPECT_THAT(v[1], Near(std::vector<double>{m1, m2}));
  EXPECT_THAT(v[2], Near(std::vector<double>{v1, v2}));
  EXPECT_THAT(v[0], Near(std::vector<double>{1 - m1 * alpha / (std::sqrt(v1) + 1e-8),
                                             -2 - m2 * alpha / (std::sqrt(v2) + 1e-8)}));
  // The first step of Adam moves by about lr, whatever the gradient's scale.
  EXPECT_NEAR(ValuesAsDouble(v[0])[0], 0.999, 1e-8);
  v = {D({1}), D({0}), D({0})};
  ApplyOk("ApplyAdam", v, {S(0.9), S(0.999), S(0.001), S(0.9), S(0.999), S(1e-8), D({0.5})},
          {{"use_nesterov", true}});
  // Nesterov: the step uses grad * (1 - beta1) + beta1 * m instead of m.
  EXPECT_THAT(v[0],
              Near(std::vector<double>{1 - (0.05 + 0.9 * 0.05) * alpha / (std::sqrt(v1) + 1e-8)}));
}

TEST(OptimizerTest, RMSPropAndCentered) {
  // ms = 1 + (4 - 1) * 0.1 = 1.3; mom = 0.5 * 0.5 + 2 * 0.01 / sqrt(1.3); var -= mom.
  std::vector<Tensor> v = {D({1}), D({1}), D({0.5})};
  ApplyOk("ApplyRMSProp", v, {S(0.01), S(0.9), S(0.5), S(0), D({2})});
  const double mom = 0.25 + 0.02 / std::sqrt(1.3);
  EXPECT_THAT(v[1], Near(std::vector<double>{1.3}));
  EXPECT_THAT(v[2], Near(std::vector<double>{mom}));
  EXPECT_THAT(v[0], Near(std::vector<double>{1 - mom}));
  // Centered, slots (mg, ms, mom): mg = 0.5 + 1.5 * 0.1 = 0.65; the denominator subtracts mg^2.
  v = {D({1}), D({0.5}), D({1}), D({0.5})};
  ApplyOk("ApplyCenteredRMSProp", v, {S(0.01), S(0.9), S(0.5), S(0), D({2})});
  const double centered = 0.25 + 0.02 / std::sqrt(1.3 - 0.65 * 0.65);
  EXPECT_THAT(v[1], Near(std::vector<double>{0.65}));
  EXPECT_THAT(v[2], Near(std::vector<double>{1.3}));
  EXPECT_THAT(v[3], Near(std::vector<double>{centered}));
  EXPECT_THAT(v[0], Near(std::vector<double>{1 - centered}));
}

TEST(OptimizerTest, Adagrad) {
  std::vector<Tensor> v = {D({1}), D({0.5})};
  ApplyOk("ApplyAdagrad", v, {S(0.1), D({0.5})});
  EXPECT_THAT(v[1], Near(std::vector<double>{0.75}));
  EXPECT_THAT(v[0], Near(std::vector<double>{1 - 0.05 / std::sqrt(0.75)}));
  // update_slots false leaves accum as it is and divides by its square root.
  v = {D({1}), D({0.5})};
  ApplyOk("ApplyAdagrad", v, {S(0.1), D({0.5})}, {{"update_slots", false}});
  EXPECT_THAT(v[1], Near(std::vector<double>{0.5}));
  EXPECT_THAT(v[0], Near(std::vector<double>{1 - 0.05 / std::sqrt(0.5)}));
}

TEST(OptimizerTest, Adadelta) {
  // accum = 0.25 + 0.5 = 0.75; update = sqrt(0.25) / sqrt(0.75); accum_update = 0.125 + 1/6.
  std::vector<Tensor> v = {D({1}), D({0.5}), D({0.25})};
  ApplyOk("ApplyAdadelta", v, {S(1), S(0.5), S(0), D({1})});
  EXPECT_THAT(v[1], Near(std::vector<double>{0.75}));
  EXPECT_THAT(v[0], Near(std::vector<double>{1 - 0.5 / std::sqrt(0.75)}));
  EXPECT_THAT(v[2], Near(std::vector<double>{0.125 + 1.0 / 6}));
}

TEST(OptimizerTest, AdaMax) {
  // m = 0.1 * grad; v = max(0.5 * v, |grad|); var -= lr / (1 - beta1_power) * m / v.
  std::vector<Tensor> v = {D({1, 1}), D({0, 0}), D({0.5, 0.1})};
  ApplyOk("ApplyAdaMax", v, {S(0.9), S(0.1), S(0.9), S(0.5), S(0), D({0.2, -0.3})});
  EXPECT_THAT(v[1], Near(std::vector<double>{0.02, -0.03}));
  EXPECT_THAT(v[2], Near(std::vector<double>{0.25, 0.3}));
  EXPECT_THAT(v[0], Near(std::vector<double>{0.92, 1.1}));
}

TEST(OptimizerTest, Ftrl) {
  // accum 1 -> 10; linear = 3 - (sqrt(10) - 1) / 0.5 * 0.5; var = (l1 - linear) / (sqrt(10) /
  // 0.5 + 2 * l2), since linear > l1 > 0.
  std::vector<Tensor> v = {D({0.5, 0}), D({1, 1}), D({0, 0})};
  ApplyOk("ApplyFtrl", v, {D({3, 0.05}), S(0.5), S(0.1), S(0.2), S(-0.5)});
  const double linear = 3 - (std::sqrt(10.0) - 1);
  const double var = (0.1 - linear) / (std::sqrt(10.0) / 0.5 + 0.4);
  EXPECT_THAT(v[1], Near(std::vector<double>{10, 1.0025}));
  EXPECT_THAT(v[2], Near(std::vector<double>{linear, 0.05}));
  EXPECT_THAT(v[0], Near(std::vector<double>{var, 0}));  // |linear| <= l1: var becomes 0
  // multiply_linear_by_lr keeps linear multiplied by lr; var is the same.
  v = {D({0.5}), D({1}), D({0})};
  ApplyOk("ApplyFtrl", v, {D({3}), S(0.5), S(0.1), S(0.2), S(-0.5)},
          {{"multiply_linear_by_lr", true}});
  EXPECT_THAT(v[2], Near(std::vector<double>{0.5 * linear}));
  EXPECT_THAT(v[0], Near(std::vector<double>{var}));
  // lr_power other than -0.5 uses the power: p(x) = x here.
  v = {D({0.5}), D({1}), D({0})};
  ApplyOk("ApplyFtrl", v, {D({3}), S(0.5), S(0.1), S(0.2), S(-1)});
  EXPECT_THAT(v[2], Near(std::vector<double>{-6}));
  EXPECT_THAT(v[0], Near(std::vector<double>{5.9 / 20.4}));
}

TEST(OptimizerTest, FtrlV2ChoosesItsVariantAsTensorFlowsKernelDoes) {
  // grad + 2 * l2_shrinkage * var = 3.25 enters linear; accum takes grad^2 only.
  const double sigma = std::sqrt(10.0) - 1;
  const double var = (0.1 - (3.25 - sigma)) / (std::sqrt(10.0) / 0.5 + 0.4);
  std::vector<Tensor> v = {D({0.5}), D({1}), D({0})};
  ApplyOk("ApplyFtrlV2", v, {D({3}), S(0.5), S(0.1), S(0.2), S(0.25), S(-0.5)});
  // The attribute's default (false) runs TensorFlow's lr-multiplied functor.
  EXPECT_THAT(v[2], Near(std::vector<double>{0.5 * (3.25 - sigma)}));
  EXPECT_THAT(v[1], Near(std::vector<double>{10}));
  EXPECT_THAT(v[0], Near(std::vector<double>{var}));
  v = {D({0.5}), D({1}), D({0})};
  ApplyOk("ApplyFtrlV2", v, {D({3}), S(0.5), S(0.1), S(0.2), S(0.25), S(-0.5)},
          {{"multiply_linear_by_lr", true}});
  EXPECT_THAT(v[2], Near(std::vector<double>{3.25 - sigma}));
  EXPECT_THAT(v[0], Near(std::vector<double>{var}));
}

TEST(OptimizerTest, ProximalGradientDescent) {
  // prox = var - alpha * delta = (0.8, -1.2, 0.01); shrunk by alpha * l1 = 0.1 towards 0 (to 0
  // when smaller), then divided by 1 + l2 * alpha = 1.5.
  std::vector<Tensor> v = {D({1, -1, 0.01})};
  ApplyOk("ApplyProximalGradientDescent", v, {S(0.5), S(0.2), S(1), D({0.4, 0.4, 0})});
  EXPECT_THAT(v[0], Near(std::vector<double>{0.7 / 1.5, -1.1 / 1.5, 0}));
  // Without l1 only the division.
  v = {D({1, -1, 0.01})};
  ApplyOk("ApplyProximalGradientDescent", v, {S(0.5), S(0), S(1), D({0.4, 0.4, 0})});
  EXPECT_THAT(v[0], Near(std::vector<double>{0.8 / 1.5, -1.2 / 1.5, 0.01 / 1.5}));
}

TEST(OptimizerTest, ProximalAdagrad) {
  // accum = 4; rate = 0.5 / 2; prox = 1 - 2 * 0.25; var = (0.5 - 0.025) / (1 + 0.5 * 0.25).
  std::vector<Tensor> v = {D({1}), D({0})};
  ApplyOk("ApplyProximalAdagrad", v, {S(0.5), S(0.1), S(0.5), D({2})});
  EXPECT_THAT(v[1], Near(std::vector<double>{4}));
  EXPECT_THAT(v[0], Near(std::vector<double>{0.475 / 1.125}));
  ExpectError(Apply("ApplyProximalAdagrad", v, {S(0), S(0.1), S(0.5), D({2})}),
              "lr must be positive, got 0");
  ExpectError(Apply("ApplyProximalAdagrad", v, {S(0.5), S(-0.1), S(0.5), D({2})}),
              "l1 must be non-negative, got -0.1");
}

TEST(OptimizerTest, PowerSignAndAddSign) {
  // m = 0.5 * m + 0.5 * grad = (0.75, -0.5): the signs of grad and m agree, then disagree.
  std::vector<Tensor> v = {D({1, 1}), D({0.5, -2})};
  ApplyOk("ApplyPowerSign", v, {S(0.1), S(std::log(2.0)), S(1), S(0.5), D({1, 1})});
  EXPECT_THAT(v[1], Near(std::vector<double>{0.75, -0.5}));
  EXPECT_THAT(v[0], Near(std::vector<double>{1 - 0.1 * 2, 1 - 0.1 * 0.5}));
  v = {D({1, 1}), D({0.5, -2})};
  ApplyOk("ApplyAddSign", v, {S(0.1), S(1), S(0.5), S(0.5), D({1, 1})});
  EXPECT_THAT(v[0], Near(std::vector<double>{1 - 0.1 * 1.5, 1 - 0.1 * 0.5}));
}

// float32 and float16 variables: computed in double, each stored slot rounded to the dtype.
TEST(OptimizerTest, FloatAndHalfVariables) {
  std::vector<Tensor> v = {HalfTensor({1}, {1}), HalfTensor({0.5}, {1})};
  ApplyOk("ApplyMomentum", v,
          {HalfTensor({0.25}, {}), HalfTensor({0.25}, {1}), HalfTensor({0.5}, {})});
  EXPECT_EQ(v[0].dtype(), DType::kHalf);
  EXPECT_THAT(ValuesAsDouble(v[1]), ElementsAre(0.5));
  EXPECT_THAT(ValuesAsDouble(v[0]), ElementsAre(0.875));
  // Adagrad in float32: accum = 0.1f + 0.3f * 0.3f rounded to float, which var then reads.
  std::vector<Tensor> f = {T1<float>({1}), T1<float>({0.1f})};
  ApplyOk("ApplyAdagrad", f, {TN<float>({0.1f}, {}), T1<float>({0.3f})});
  const float accum = static_cast<float>(0.1f + double{0.3f} * 0.3f);
  EXPECT_EQ(Values<float>(f[1])[0], accum);
  EXPECT_EQ(Values<float>(f[0])[0],
            static_cast<float>(1.0 - 0.3f * 0.1 / std::sqrt(static_cast<double>(accum))));
}

TEST(OptimizerTest, ZeroSizeVariables) {
  std::vector<Tensor> v = {TN<float>({}, {0, 3}), TN<float>({}, {0, 3}), TN<float>({}, {0, 3})};
  ApplyOk(
      "ApplyAdam", v,
      {TN<float>({0.9f}, {}), TN<float>({0.9f}, {}), TN<float>({0.1f}, {}), TN<float>({0.9f}, {}),
       TN<float>({0.9f}, {}), TN<float>({0.1f}, {}), TN<float>({}, {0, 3})});
  EXPECT_EQ(v[0].shape(), (Shape{0, 3}));
}

TEST(OptimizerTest, Errors) {
  std::vector<Tensor> v = {D({1, 2}), D({0, 0})};
  ExpectError(Apply("ApplyMomentum", v, {S(0.1), D({1, 2, 3}), S(0.9)}),
              "var and grad do not have the same shape: float64[2] and float64[3]");
  ExpectError(Apply("ApplyMomentum", v, {D({0.1}), D({1, 2}), S(0.9)}),
              "lr must be a scalar, got float64[1]");
  ExpectError(Apply("ApplyMomentum", v, {S(0.1), T1<float>({1, 2}), S(0.9)}),
              "grad is float32[2], but var is float64[2]");
  ExpectError(Apply("ApplyMomentum", v, {S(0.1), D({1, 2})}), "expects 5 inputs");
  std::vector<Tensor> mismatched = {D({1, 2}), D({0})};
  ExpectError(Apply("ApplyMomentum", mismatched, {S(0.1), D({1, 2}), S(0.9)}),
              "var and accum do not have the same shape");
  std::vector<Tensor> ints = {T1<int32_t>({1}), T1<int32_t>({0})};
  ExpectError(Apply("ApplyAdagrad", ints, {TN<int32_t>({1}, {}), T1<int32_t>({1})}),
              "ApplyAdagrad is not defined for int32[1] (var must be float16, float32 or "
              "float64)");
  std::vector<Tensor> half = {HalfTensor({1}, {1})};
  ExpectError(
      Apply("ApplyProximalGradientDescent", half,
            {HalfTensor({1}, {}), HalfTensor({0}, {}), HalfTensor({0}, {}), HalfTensor({1}, {1})}),
      "(var must be float32 or float64)");
  // A ref input that is no variable, and a variable not yet initialised.
  const Node node = MakeNode("ApplyAdagrad", {}, 4);
  const std::vector<Tensor> inputs = {D({1}), D({1}), S(0.1), D({1})};
  ExpectError(reference::EvaluateNode(node, inputs),
              "input 0 (var, \"in0\") must be a Variable or VariableV2 node");
  KernelContext::VariableSlot var{D({1}), true}, accum;
  ExpectError(reference::EvaluateNode(node, inputs, {.ref_inputs = {&var, &accum}}),
              "variable \"in1\" (accum) is used before it is initialized");
}

// Adam trained for three steps by a reference Session on a GraphDef: VariableV2s for var and
// its slots m and v, initialised by Assign, updated by ApplyAdam, which reads the variables
// themselves (ref inputs) and writes all three.
constexpr char kAdamGraph[] = R"gd(
  node { name: "var" op: "VariableV2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "m" op: "VariableV2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "v" op: "VariableV2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "start" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                         float_val: 1 float_val: -2 } } } }
  node { name: "zeros" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                         float_val: 0 } } } }
  node { name: "init_var" op: "Assign" input: "var" input: "start"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init_m" op: "Assign" input: "m" input: "zeros"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init_v" op: "Assign" input: "v" input: "zeros"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init" op: "NoOp" input: "^init_var" input: "^init_m" input: "^init_v" }
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
  node { name: "adam" op: "ApplyAdam"
    input: "var" input: "m" input: "v" input: "beta1_power" input: "beta2_power" input: "lr"
    input: "beta1" input: "beta2" input: "epsilon" input: "grad"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "use_locking" value { b: false } }
    attr { key: "use_nesterov" value { b: false } } }
)gd";

TEST(OptimizerTest, SessionTrainsWithAdam) {
  absl::StatusOr<Graph> graph = ParseGraph(std::string(kAdamGraph) + "\n", "adam.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  reference::Session session(std::make_shared<const Graph>(*std::move(graph)));
  ASSERT_TRUE(session.Run({}, {}, {"init"}).ok());

  // The same three steps by hand, in double with each stored value rounded to float;
  // the gradient of var^2 is 2 * var.
  std::vector<float> var = {1, -2}, m = {0, 0}, v = {0, 0};
  const float lr = 0.1f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, b1p = 0.9f, b2p = 0.999f;
  const double alpha = lr * std::sqrt(1.0 - b2p) / (1.0 - b1p);
  for (int step = 0; step < 3; ++step) {
    absl::StatusOr<std::vector<Tensor>> out = session.Run({}, {"adam"}, {});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int i = 0; i < 2; ++i) {
      const double g = static_cast<float>(var[i] * 2.0f);
      m[i] = static_cast<float>(m[i] + (g - m[i]) * (1.0 - b1));
      v[i] = static_cast<float>(v[i] + (g * g - v[i]) * (1.0 - b2));
      var[i] = static_cast<float>(var[i] - m[i] * alpha / (std::sqrt(double{v[i]}) + eps));
    }
    EXPECT_EQ(Values<float>((*out)[0]), var) << "step " << step;
  }
  absl::StatusOr<std::vector<Tensor>> state = session.Run({}, {"var", "m", "v"});
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(Values<float>((*state)[0]), var);
  EXPECT_EQ(Values<float>((*state)[1]), m);
  EXPECT_EQ(Values<float>((*state)[2]), v);
  // Each weight moved towards the minimum of var^2 at 0.
  EXPECT_GT(var[0], 0.0f);
  EXPECT_LT(var[0], 0.7f);
  EXPECT_LT(var[1], 0.0f);
  EXPECT_GT(var[1], -1.7f);
}

}  // namespace
}  // namespace dfc

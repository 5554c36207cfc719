// The interpreter on every pattern, on hand-computed values, including zero-size arrays and
// symbolic lengths bound at evaluation time.
#include "ir/interpreter.h"

#include "base/check.h"
#include "base/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

using ::testing::HasSubstr;

ExprPtr Must(absl::StatusOr<ExprPtr> e) {
  DFC_CHECK_OK(e.status());
  return *e;
}

Value Ints(std::vector<int64_t> v) {
  std::vector<Value> out;
  for (int64_t x : v) out.push_back(Value::Of(Scalar::Int(DType::kInt32, x)));
  return Value::Array(std::move(out));
}

Value IntMatrix(std::vector<std::vector<int64_t>> rows) {
  std::vector<Value> out;
  for (auto& r : rows) out.push_back(Ints(r));
  return Value::Array(std::move(out));
}

FunPtr AddInt() {
  return MakeUserFun("add_int32", {"x", "y"}, "return x + y;", {DType::kInt32, DType::kInt32},
                     DType::kInt32, [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return Scalar::Int(DType::kInt32, a[0].i + a[1].i);
                     });
}

class InterpreterTest : public ::testing::Test {
 protected:
  // Evaluates f $ A with A bound to `a`.
  Value Run(const FunPtr& f, const Value& a, const TypePtr& type, SizeBindings sizes = {}) {
    ParamPtr p = MakeParam("A", type);
    ExprPtr e = Must(Call(f, {p}));
    Interpreter interpreter(std::move(sizes));
    absl::StatusOr<Value> v = interpreter.Evaluate(e, {{p.get(), a}});
    DFC_CHECK_OK(v.status());
    return *v;
  }
  const TypePtr vec6_ = TensorType(DType::kInt32, {6});
  const TypePtr mat23_ = TensorType(DType::kInt32, {2, 3});
};

TEST_F(InterpreterTest, SplitJoinTranspose) {
  EXPECT_EQ(Run(Split(3), Ints({0, 1, 2, 3, 4, 5}), vec6_), IntMatrix({{0, 1, 2}, {3, 4, 5}}));
  EXPECT_EQ(Run(Join(), IntMatrix({{0, 1, 2}, {3, 4, 5}}), mat23_), Ints({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Run(Transpose(), IntMatrix({{0, 1, 2}, {3, 4, 5}}), mat23_),
            IntMatrix({{0, 3}, {1, 4}, {2, 5}}));
}

TEST_F(InterpreterTest, TransposeOfAnEmptyOuterArrayKeepsItsInnerLength) {
  Value v = Run(Transpose(), Value::Array({}), TensorType(DType::kInt32, {0, 3}));
  EXPECT_EQ(v, IntMatrix({{}, {}, {}}));
}

TEST_F(InterpreterTest, SlidePadReindexConcatRepeatIota) {
  EXPECT_EQ(Run(Slide(3, 2), Ints({0, 1, 2, 3, 4, 5}), vec6_), IntMatrix({{0, 1, 2}, {2, 3, 4}}));
  EXPECT_EQ(Run(Pad(2, 2, PadMode::kReflect), Ints({0, 1, 2}), TensorType(DType::kInt32, {3})),
            Ints({2, 1, 0, 1, 2, 1, 0}));
  EXPECT_EQ(Run(Pad(2, 2, PadMode::kSymmetric), Ints({0, 1, 2}), TensorType(DType::kInt32, {3})),
            Ints({1, 0, 0, 1, 2, 2, 1}));
  EXPECT_EQ(Run(Pad(1, 2, PadMode::kClamp), Ints({0, 1, 2}), TensorType(DType::kInt32, {3})),
            Ints({0, 0, 1, 2, 2, 2}));
  EXPECT_EQ(Run(Pad(1, 0, PadMode::kConstant, Scalar::Int(DType::kInt32, 9)), IntMatrix({{1, 2}}),
                TensorType(DType::kInt32, {1, 2})),
            IntMatrix({{9, 9}, {1, 2}}));
  // Reversal as an index function.
  ArithExpr i = IndexVar();
  EXPECT_EQ(Run(Reindex(6, 5 - i), Ints({0, 1, 2, 3, 4, 5}), vec6_), Ints({5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(Run(Reindex(4, i % 2), Ints({7, 8, 0, 0, 0, 0}), vec6_), Ints({7, 8, 7, 8}));
  EXPECT_EQ(Run(Repeat(2), Ints({1, 2}), TensorType(DType::kInt32, {2})),
            IntMatrix({{1, 2}, {1, 2}}));

  ParamPtr a = MakeParam("A", TensorType(DType::kInt32, {2}));
  ParamPtr b = MakeParam("B", TensorType(DType::kInt32, {0}));
  ExprPtr concat = Must(Call(Concat(3), {a, b, a}));
  EXPECT_EQ(TypeToString(concat->type), "[int32]_4");
  Interpreter interpreter;
  EXPECT_EQ(*interpreter.Evaluate(concat, {{a.get(), Ints({1, 2})}, {b.get(), Ints({})}}),
            Ints({1, 2, 1, 2}));
  EXPECT_EQ(*interpreter.Evaluate(Must(Call(Iota(3, DType::kInt32), {}))), Ints({0, 1, 2}));
}

TEST_F(InterpreterTest, SizeValueReadsTheBoundSizes) {
  ExprPtr e = Must(Call(SizeValue(ArithExpr::Var("N") * 4 + 1, DType::kInt64), {}));
  EXPECT_EQ(TypeToString(e->type), "int64");
  EXPECT_EQ(*Interpreter({{"N", 3}}).Evaluate(e), Value::Of(Scalar::Int(DType::kInt64, 13)));
  EXPECT_FALSE(Interpreter().Evaluate(e).ok());
}

TEST_F(InterpreterTest, VectorsGroupLanes) {
  Value v = Run(AsVector(2), Ints({0, 1, 2, 3, 4, 5}), vec6_);
  ASSERT_EQ(v.elements.size(), 3u);
  EXPECT_EQ(v.elements[1].kind, Value::Kind::kVector);
  ParamPtr p = MakeParam("A", vec6_);
  ExprPtr round_trip = Must(Call(AsScalar(), {Must(Call(AsVector(2), {p}))}));
  Interpreter interpreter;
  EXPECT_EQ(*interpreter.Evaluate(round_trip, {{p.get(), Ints({0, 1, 2, 3, 4, 5})}}),
            Ints({0, 1, 2, 3, 4, 5}));
  // A UserFun on vectors works lane by lane.
  ExprPtr doubled = Must(MapOver(Must(Call(AsVector(2), {p})), [](ExprPtr x) {
    return Call(AddInt(), {x, x});
  }));
  Value d = *interpreter.Evaluate(Must(Call(AsScalar(), {doubled})),
                                  {{p.get(), Ints({0, 1, 2, 3, 4, 5})}});
  EXPECT_EQ(d, Ints({0, 2, 4, 6, 8, 10}));
}

TEST_F(InterpreterTest, ReduceFoldsFromTheLeftAndEmptyGivesInit) {
  ParamPtr p = MakeParam("A", TensorType(DType::kInt32, {ArithExpr::Var("N")}));
  ExprPtr sum = Must(ReduceOver(Lit(DType::kInt32, 10), p, [](ExprPtr acc, ExprPtr x) {
    return Call(AddInt(), {acc, x});
  }));
  Interpreter interpreter({{"N", 4}});
  EXPECT_EQ(*interpreter.Evaluate(sum, {{p.get(), Ints({1, 2, 3, 4})}}),
            Value::Of(Scalar::Int(DType::kInt32, 20)));
  EXPECT_EQ(*interpreter.Evaluate(sum, {{p.get(), Ints({})}}),
            Value::Of(Scalar::Int(DType::kInt32, 10)));
}

TEST_F(InterpreterTest, LoweredPatternsComputeWhatTheirHighLevelTwinsDo) {
  ParamPtr p = MakeParam("A", mat23_);
  FunPtr twice = *MakeLambda({ScalarType(DType::kInt32)}, [](std::span<const ExprPtr> x) {
    return Call(AddInt(), {x[0], x[0]});
  });
  ExprPtr high = Must(Call(Map(Map(twice)), {p}));
  ExprPtr low = Must(Call(MapGlb(0, ToGlobal(MapSeq(twice))), {p}));
  Interpreter interpreter;
  Value a = IntMatrix({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(*interpreter.Evaluate(high, {{p.get(), a}}),
            *interpreter.Evaluate(low, {{p.get(), a}}));
}

TEST_F(InterpreterTest, ALetComputesItsValueOnce) {
  ParamPtr p = MakeParam("A", vec6_);
  ExprPtr doubled = Must(MapOver(p, [](ExprPtr x) { return Call(AddInt(), {x, x}); }));
  ExprPtr e = Must(Let(doubled, [](ExprPtr v) { return Call(Zip(2), {v, v}); }));
  Interpreter interpreter;
  ASSERT_TRUE(interpreter.Evaluate(e, {{p.get(), Ints({0, 1, 2, 3, 4, 5})}}).ok());
  EXPECT_EQ(interpreter.calls().at("add_int32"), 6);
}

TEST_F(InterpreterTest, ErrorsNameWhatIsMissing) {
  ParamPtr p = MakeParam("A", TensorType(DType::kInt32, {ArithExpr::Var("N")}));
  ExprPtr e = Must(Call(Repeat(ArithExpr::Var("M")), {Lit(DType::kInt32, 1)}));
  Interpreter interpreter;
  auto v = interpreter.Evaluate(e);
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(std::string(v.status().message()), HasSubstr("M"));
  auto unbound = interpreter.Evaluate(p);
  ASSERT_FALSE(unbound.ok());
  EXPECT_THAT(std::string(unbound.status().message()), HasSubstr("parameter A is not bound"));
  ExprPtr at = Must(Call(At(), {p, Lit(DType::kInt32, 7)}));
  auto out_of_range = Interpreter({{"N", 3}}).Evaluate(at, {{p.get(), Ints({1, 2, 3})}});
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_THAT(std::string(out_of_range.status().message()), HasSubstr("index 7 is not in [0, 3)"));
}

TEST(ValueTest, TensorRoundTrip) {
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Value v = ValueFromTensor(t);
  ASSERT_EQ(v.elements.size(), 2u);
  auto back = TensorFromValue(v, TensorType(DType::kFloat, {2, 3}), {});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->shape(), t.shape());
  EXPECT_EQ(back->data<float>()[5], 6.0f);
  auto wrong = TensorFromValue(v, TensorType(DType::kFloat, {3, 2}), {});
  EXPECT_FALSE(wrong.ok());
}

}  // namespace
}  // namespace dfc::ir

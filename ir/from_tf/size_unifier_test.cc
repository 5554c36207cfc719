// Tests for size-variable unification (size_unifier.h) and the ops' unify_sizes hooks.
#include "ir/from_tf/size_unifier.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "gtest/gtest.h"
#include "ir/from_tf/translate.h"

namespace dfc::ir {
namespace {

const ArithExpr kN = ArithExpr::Var("N");
const ArithExpr kN1 = ArithExpr::Var("N1");

TEST(SizeUnifierTest, BindsTheLaterNamedVariable) {
  absl::flat_hash_map<std::string, ArithExpr> substitutions;
  SizeUnifier unifier(substitutions);
  EXPECT_TRUE(unifier.Unify(kN, kN1));
  EXPECT_EQ(substitutions.at("N1"), kN);
  EXPECT_FALSE(unifier.Unify(kN, kN));
}

TEST(SizeUnifierTest, SolvesALinearEquation) {  // N + N1 = 10, N1 the latest-named
  absl::flat_hash_map<std::string, ArithExpr> substitutions;
  SizeUnifier unifier(substitutions);
  EXPECT_TRUE(unifier.Unify(kN + kN1, ArithExpr(10)));
  EXPECT_EQ(substitutions.at("N1"), ArithExpr(10) - kN);
}

TEST(SizeUnifierTest, RefusesACycle) {  // N = N + 1 has no size
  absl::flat_hash_map<std::string, ArithExpr> substitutions;
  SizeUnifier unifier(substitutions);
  EXPECT_FALSE(unifier.Unify(kN, kN + 1));
  EXPECT_TRUE(substitutions.empty());
}

TEST(SizeUnifierTest, BroadcastSkipsOnesAndAlignsFromTheRight) {
  absl::flat_hash_map<std::string, ArithExpr> substitutions;
  SizeUnifier unifier(substitutions);
  const std::vector<SymbolicShape> shapes = {{kN, 1}, {1, 3}};
  EXPECT_FALSE(unifier.Broadcast(shapes));  // N and 3 each meet only a 1
  const std::vector<SymbolicShape> rows = {{kN, 4}, {3, 4}};
  EXPECT_TRUE(unifier.Broadcast(rows));
  EXPECT_EQ(substitutions.at("N"), ArithExpr(3));
}

TEST(UnifySizesHookTest, MatMulUnifiesTheInnerDimensions) {
  const Translation* matmul = FindTranslation("MatMul");
  ASSERT_NE(matmul, nullptr);
  ASSERT_NE(matmul->unify_sizes, nullptr);
  absl::flat_hash_map<std::string, ArithExpr> substitutions;
  SizeUnifier unifier(substitutions);
  const Node node{.name = "mm", .op = "MatMul", .attrs = {{"transpose_b", true}}};
  const std::vector<SymbolicShape> shapes = {{2, kN}, {5, 7}};
  EXPECT_TRUE(matmul->unify_sizes(node, shapes, unifier));
  EXPECT_EQ(substitutions.at("N"), ArithExpr(7));
}

TEST(UnifySizesHookTest, OnlyOpsThatRelateOperandsHaveAHook) {
  for (const char* op : {"Add", "Select", "SelectV2", "AddN", "SoftmaxCrossEntropyWithLogits",
                         "SparseSoftmaxCrossEntropyWithLogits"}) {
    ASSERT_NE(FindTranslation(op), nullptr) << op;
    EXPECT_NE(FindTranslation(op)->unify_sizes, nullptr) << op;
  }
  for (const char* op : {"BiasAdd", "Relu", "Transpose"}) {
    ASSERT_NE(FindTranslation(op), nullptr) << op;
    EXPECT_EQ(FindTranslation(op)->unify_sizes, nullptr) << op;
  }
}

}  // namespace
}  // namespace dfc::ir

// The default lowering strategy: every Map and Reduce lowered (the generator refuses the
// high-level ones), the rows of a kernel MapGlb, or MapWrg with ReduceLcl where the profile
// reduces in work-groups and the rows are few, arrays read twice ToPrivate; values unchanged
// on the IR interpreter.
#include "rewrite/lower_for_device.h"

#include "base/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/traverse.h"
#include "rewrite/lowering.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using namespace rewrite::testing;  // NOLINT: the rule-test helpers

ir::ExprPtr Lowered(const ir::ExprPtr& e, const char* profile) {
  absl::StatusOr<ir::ExprPtr> lowered = LowerForDevice(e, Profile(profile));
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  return lowered.ok() ? *lowered : e;
}

int CountKind(const ir::ExprPtr& e, ir::Fun::Kind kind) {
  int n = 0;
  ir::Walk(e, [&](const ir::ExprPtr& x) {
    n += CallOf(x, kind) != nullptr;
    return true;
  });
  return n;
}

// Σ_j x[i][j] for each of the rows of x.
ir::ExprPtr RowSums(const ir::ExprPtr& x) {
  return Must(ir::MapOver(x, [](ir::ExprPtr row) {
    return ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), row,
                          [](ir::ExprPtr acc, ir::ExprPtr v) {
                            return ir::Call(IntAdd(), {acc, v});
                          });
  }));
}

TEST(LowerForDeviceTest, LowersEveryMapAndReduceOfAMatMul) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 4}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({4, 3}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  for (const char* profile : {"cpu", "amd"}) {
    SCOPED_TRACE(profile);
    const ir::ExprPtr lowered = Lowered(product, profile);
    EXPECT_THAT(ir::ToString(lowered), StartsWith("MapGlb(0)("));
    EXPECT_EQ(CountKind(lowered, ir::Fun::Kind::kMap), 0) << ir::ToString(lowered);
    EXPECT_EQ(CountKind(lowered, ir::Fun::Kind::kReduce), 0) << ir::ToString(lowered);
    EXPECT_EQ(CountKind(lowered, ir::Fun::Kind::kReduceSeq), 1) << ir::ToString(lowered);
    ExpectEquivalent(product, lowered, {a, b}, kSizes);
  }
}

TEST(LowerForDeviceTest, FewRowsThatReduceAreMappedByWorkGroupsOnAGpu) {
  // Eight long rows: a GPU would run eight work-items; a work-group a row shares each sum.
  const ir::ParamPtr few = ir::MakeParam("x", Ints({8, kN}));
  const ir::ExprPtr sums = RowSums(few);
  const ir::ExprPtr gpu = Lowered(sums, "amd");
  EXPECT_THAT(ir::ToString(gpu), StartsWith("MapWrg(0)("));
  EXPECT_EQ(CountKind(gpu, ir::Fun::Kind::kReduceLcl), 1) << ir::ToString(gpu);
  ExpectEquivalent(sums, gpu, {few}, kSizes);
  // A CPU has no work-group reductions; a batch of rows fills any device.
  EXPECT_THAT(ir::ToString(Lowered(sums, "cpu")), StartsWith("MapGlb(0)("));
  const ir::ExprPtr batch = RowSums(ir::MakeParam("y", Ints({kN, 64})));
  const ir::ExprPtr many = Lowered(batch, "amd");
  EXPECT_THAT(ir::ToString(many), StartsWith("MapGlb(0)("));
  EXPECT_EQ(CountKind(many, ir::Fun::Kind::kReduceLcl), 0);
}

// Where a kernel's rows run is a step the explorer takes where the device reduces in
// work-groups (mapOutputsWrg, mapOutputsGlb); the strategy keeps the choice made.
TEST(LowerForDeviceTest, KeepsTheMappingAStepChose) {
  const ir::ParamPtr few = ir::MakeParam("x", Ints({8, kN}));
  const ir::ExprPtr sums = RowSums(few);
  // Eight long rows go to work-groups by default; mapOutputsGlb keeps them on work-items.
  const ir::ExprPtr glb = MustRewrite(MapOutputs(ir::Fun::Kind::kMapGlb), sums);
  ASSERT_NE(glb, nullptr);
  ExpectEquivalent(sums, glb, {few}, kSizes);
  const ir::ExprPtr on_items = Lowered(glb, "amd");
  EXPECT_THAT(ir::ToString(on_items), StartsWith("MapGlb(0)("));
  EXPECT_EQ(CountKind(on_items, ir::Fun::Kind::kReduceLcl), 0) << ir::ToString(on_items);
  EXPECT_EQ(DeclineReason(MapOutputs(ir::Fun::Kind::kMapGlb), glb), "no output has rows to map so");
  // A batch of rows goes to work-items by default; mapOutputsWrg gives each a work-group (its
  // 1024 elements shared among amd's 256 work-items).
  const ir::ParamPtr y = ir::MakeParam("y", Ints({kN, 1024}));
  const ir::ExprPtr batch = RowSums(y);
  const ir::ExprPtr wrg = MustRewrite(MapOutputs(ir::Fun::Kind::kMapWrg), batch);
  ASSERT_NE(wrg, nullptr);
  ExpectEquivalent(batch, wrg, {y}, kSizes);
  const ir::ExprPtr on_groups = Lowered(wrg, "amd");
  EXPECT_THAT(ir::ToString(on_groups), StartsWith("MapWrg(0)("));
  EXPECT_EQ(CountKind(on_groups, ir::Fun::Kind::kReduceLcl), 1) << ir::ToString(on_groups);
  ExpectEquivalent(batch, on_groups, {y}, kSizes);
  // A CPU has no work-group reductions: the variant declines, saying why.
  absl::StatusOr<ir::ExprPtr> on_cpu = LowerForDevice(wrg, Profile("cpu"));
  EXPECT_EQ(on_cpu.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(on_cpu.status().message(), HasSubstr("does not reduce in work-groups"));
  // Rows shorter than a work-group have too little to share; rows with nothing to fold, none.
  const ir::ExprPtr short_rows =
      MustRewrite(MapOutputs(ir::Fun::Kind::kMapWrg), RowSums(ir::MakeParam("s", Ints({kN, 64}))));
  ASSERT_NE(short_rows, nullptr);
  EXPECT_THAT(LowerForDevice(short_rows, Profile("amd")).status().message(),
              HasSubstr("no Reduce that 256 work-items can share"));
  const ir::ExprPtr doubled =
      Must(ir::Call(ir::Map(ir::Map(Twice())), {ir::MakeParam("z", Floats({kN, 64}))}));
  EXPECT_EQ(DeclineReason(MapOutputs(ir::Fun::Kind::kMapWrg), doubled),
            "no output has rows to map so");
}

TEST(LowerForDeviceTest, AComputedRowReadTwiceIsPrivate) {
  // Each row of twice(x), bound once and read twice: by neg and as itself.
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN, 4}));
  const ir::ExprPtr doubled =
      Must(ir::MapOver(x, [](ir::ExprPtr row) { return ir::Call(ir::Map(Twice()), {row}); }));
  const ir::ExprPtr twice_then_neg = Must(ir::MapOver(doubled, [](ir::ExprPtr row) {
    return ir::Let(row, [](ir::ExprPtr r) -> absl::StatusOr<ir::ExprPtr> {
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr neg, ir::Call(ir::Map(Neg()), {r}));
      return ir::Call(ir::Zip(2), {neg, r});
    });
  }));
  const ir::ExprPtr lowered = Lowered(twice_then_neg, "cpu");
  EXPECT_EQ(CountKind(lowered, ir::Fun::Kind::kToPrivate), 1) << ir::ToString(lowered);
  ExpectEquivalent(twice_then_neg, lowered, {x}, kSizes);
  // A row of the input itself is read from memory as it is: nothing to keep.
  const ir::ExprPtr plain = Must(ir::MapOver(x, [](ir::ExprPtr row) {
    return ir::Let(row, [](ir::ExprPtr r) { return ir::Call(ir::Zip(2), {r, r}); });
  }));
  EXPECT_THAT(ir::ToString(Lowered(plain, "cpu")), Not(HasSubstr("ToPrivate")));
}

TEST(LowerForDeviceTest, ATransposeOfComputedRowsIsWrittenByColumns) {
  // Each block's rows doubled, then transposed: written column by column, each row computed
  // once; a Transpose of the input's own rows stays a view.
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN, 2, 3}));
  const ir::ExprPtr blocks =
      Must(ir::MapOver(x, [](ir::ExprPtr block) -> absl::StatusOr<ir::ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr doubled, ir::MapOver(block, [](ir::ExprPtr row) {
                               return ir::Call(ir::Map(Twice()), {row});
                             }));
        return ir::Call(ir::Transpose(), {doubled});
      }));
  const ir::ExprPtr lowered = Lowered(blocks, "cpu");
  EXPECT_EQ(CountKind(lowered, ir::Fun::Kind::kTransposeW), 1) << ir::ToString(lowered);
  EXPECT_EQ(CountKind(lowered, ir::Fun::Kind::kTranspose), 0) << ir::ToString(lowered);
  ExpectEquivalent(blocks, lowered, {x}, kSizes);
  const ir::ExprPtr views =
      Must(ir::MapOver(x, [](ir::ExprPtr block) { return ir::Call(ir::Transpose(), {block}); }));
  EXPECT_EQ(CountKind(Lowered(views, "cpu"), ir::Fun::Kind::kTransposeW), 0);
}

TEST(LowerForDeviceTest, VectorsStayVectorsAcrossRowsAndTheirLanesFoldAsATree) {
  // Two row functions over vectors, as vectorizeMaps leaves an elementwise chain, then the sum of
  // each row's lanes as vectorizeReduce leaves it: one vector folded by lanes.
  const ir::ParamPtr x = ir::MakeParam("x", Ints({kN, 8}));
  auto doubled = [](const ir::ExprPtr& rows) {
    return Must(ir::MapOver(rows, [](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr v, ir::Call(ir::AsVector(4), {row}));
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr n, ir::MapOver(v, [](ir::ExprPtr lanes) {
                             return ir::Call(IntAdd(), {lanes, lanes});
                           }));
      return ir::Call(ir::AsScalar(), {n});
    }));
  };
  const ir::ExprPtr chain = doubled(doubled(x));
  const ir::ExprPtr sums = Must(ir::MapOver(chain, [](ir::ExprPtr row) {
    return ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)),
                          Must(ir::Call(ir::AsScalar(), {Must(ir::Call(ir::AsVector(8), {row}))})),
                          [](ir::ExprPtr acc, ir::ExprPtr v) {
                            return ir::Call(IntAdd(), {acc, v});
                          });
  }));
  const ir::ExprPtr lowered = Lowered(sums, "cpu");
  EXPECT_EQ(CountKind(lowered, ir::Fun::Kind::kReduceLanes), 1) << ir::ToString(lowered);
  EXPECT_EQ(CountKind(lowered, ir::Fun::Kind::kReduceSeq), 0) << ir::ToString(lowered);
  EXPECT_EQ(CountKind(lowered, ir::Fun::Kind::kAsVector), 2) << ir::ToString(lowered);
  ExpectEquivalent(sums, lowered, {x}, kSizes);
}

TEST(LowerForDeviceTest, ACpuCopiesAStoredViewOfAMatrixByBlocksOfRows) {
  // (λ(t) => Map(λrow => Map(neg) $ row) $ t) $ Transpose $ x: the transposed input is stored
  // for the rows that read it; a CPU writes it 16 rows a work-item, a GPU row by row.
  const ir::ParamPtr x = ir::MakeParam("x", Floats({4, kN}));
  const ir::ExprPtr e = Must(ir::Let(Must(ir::Call(ir::Transpose(), {x})), [](ir::ExprPtr t) {
    return ir::MapOver(t, [](ir::ExprPtr row) { return ir::Call(ir::Map(Neg()), {row}); });
  }));
  const ir::ExprPtr cpu = Lowered(e, "cpu");
  EXPECT_THAT(ir::ToString(cpu),
              HasSubstr("ToGlobal(Id()) o Reindex(N, i => i) o Join() o MapGlb(0)(λ(b) => "
                        "TransposeW() o Transpose() $ b)"));
  ExpectEquivalent(e, cpu, {x}, kSizes);
  const ir::ExprPtr amd = Lowered(e, "amd");
  EXPECT_THAT(ir::ToString(amd), HasSubstr("ToGlobal(Id()) o MapGlb(0)(Id()) o Transpose() $ x"));
  EXPECT_EQ(CountKind(amd, ir::Fun::Kind::kTransposeW), 0) << ir::ToString(amd);
}

TEST(LowerForDeviceTest, DeclinesWhatAWorkItemCannotHold) {
  // Σ over the rows of x as one accumulator row, [3] ints: a Reduce of the whole kernel, with no
  // rows to map onto work-items.
  const ir::ParamPtr x = ir::MakeParam("x", Ints({kN, 3}));
  const ir::ExprPtr zeros =
      Must(ir::Call(ir::Repeat(3), {ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0))}));
  const ir::ExprPtr column_sums =
      Must(ir::ReduceOver(zeros, x, [](ir::ExprPtr acc, ir::ExprPtr row) {
        return ir::MapOver(Must(ir::Call(ir::Zip(2), {acc, row})), [](ir::ExprPtr p) {
          return ir::Call(IntAdd(),
                          {Must(ir::Call(ir::Get(0), {p})), Must(ir::Call(ir::Get(1), {p}))});
        });
      }));
  absl::StatusOr<ir::ExprPtr> lowered = LowerForDevice(column_sums, Profile("cpu"));
  EXPECT_THAT(lowered.status().message(),
              HasSubstr("a Reduce accumulator of type [int32]_3 outside the rows of a kernel"));
  // A UserFun whose body branches, applied to vectors.
  const ir::FunPtr relu = ir::MakeUserFun(
      "irelu", {"x"}, "if (x < 0) return 0; return x;", {DType::kInt32}, DType::kInt32,
      [](std::span<const ir::Scalar> a) -> absl::StatusOr<ir::Scalar> {
        return ir::Scalar::Int(DType::kInt32, a[0].i < 0 ? 0 : a[0].i);
      });
  const ir::ParamPtr y = ir::MakeParam("y", Ints({kN, 8}));
  const ir::ExprPtr rows = Must(ir::MapOver(y, [&](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr v, ir::Call(ir::AsVector(4), {row}));
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr r, ir::Call(ir::Map(relu), {v}));
    return ir::Call(ir::AsScalar(), {r});
  }));
  lowered = LowerForDevice(rows, Profile("cpu"));
  EXPECT_THAT(lowered.status().message(),
              HasSubstr("UserFun irelu on vectors (its body branches with `if`)"));
  // The same on scalars lowers.
  const ir::ExprPtr scalar_rows =
      Must(ir::MapOver(y, [&](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
        return ir::Call(ir::Map(relu), {row});
      }));
  EXPECT_TRUE(LowerForDevice(scalar_rows, Profile("cpu")).ok());
  // A UserFun whose body declares a local of a scalar type, which a vector cannot be assigned
  // to; a cast is no declaration.
  const auto unary = [](const std::string& name, const std::string& body) {
    return ir::MakeUserFun(
        name, {"x"}, body, {DType::kInt32}, DType::kInt32,
        [](std::span<const ir::Scalar> a) -> absl::StatusOr<ir::Scalar> { return a[0]; });
  };
  const auto on_vectors = [&](const ir::FunPtr& f) {
    return LowerForDevice(
        Must(ir::MapOver(y,
                         [&](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
                           DFC_ASSIGN_OR_RETURN(ir::ExprPtr v, ir::Call(ir::AsVector(4), {row}));
                           DFC_ASSIGN_OR_RETURN(ir::ExprPtr r, ir::Call(ir::Map(f), {v}));
                           return ir::Call(ir::AsScalar(), {r});
                         })),
        Profile("cpu"));
  };
  EXPECT_THAT(on_vectors(unary("ilocal", "int y = x < 0 ? 0 : x;\nreturn y;")).status().message(),
              HasSubstr("UserFun ilocal on vectors (its body declares a scalar)"));
  EXPECT_TRUE(on_vectors(unary("icast", "return (int)x + (x < 0 ? 0 : x);")).ok());
}

}  // namespace
}  // namespace dfc::rewrite

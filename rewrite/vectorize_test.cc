// vectorizeReduce(w), vectorizeMaps(w), vectorizeColumns(w) and vectorizeAccumulator(w):
// matches, declines with their
// reasons, and equivalence on seeded random inputs — exact on integers, whose sums do not
// depend on their order.
#include "rewrite/vectorize.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rewrite/interchange.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::HasSubstr;
using ::testing::StartsWith;

ir::FunPtr IntNeg() {
  return ir::MakeUserFun("ineg", {"x"}, "return -x;", {DType::kInt32}, DType::kInt32,
                         [](std::span<const ir::Scalar> a) -> absl::StatusOr<ir::Scalar> {
                           return ir::Scalar::Int(DType::kInt32, -a[0].i);
                         });
}

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

ir::ExprPtr IntDot(const ir::ExprPtr& a, const ir::ExprPtr& b, int64_t init = 0) {
  return Must(Dot(a, b, init));
}

TEST(VectorizeReduceTest, ADotProductOverVectorsOfLanes) {
  for (int w : {2, 4, 8, 16}) {
    SCOPED_TRACE(w);
    const ir::ParamPtr a = ir::MakeParam("a", Ints({kN * 16}));
    const ir::ParamPtr b = ir::MakeParam("b", Ints({kN * 16}));
    const ir::ExprPtr e = IntDot(a, b);
    const ir::ExprPtr vectorised = MustRewrite(VectorizeReduce(w), e);
    ASSERT_NE(vectorised, nullptr);
    EXPECT_THAT(ir::ToString(vectorised), HasSubstr(absl::StrCat("AsVector(", w, ")")));
    EXPECT_THAT(ir::ToString(vectorised), HasSubstr("AsScalar()"));
    ExpectEquivalent(e, vectorised, {a, b}, kSizes);
  }
}

TEST(VectorizeReduceTest, AnArrayThatIsNotAMapIsReadAsVectors) {
  const ir::ParamPtr x = ir::MakeParam("x", Ints({24}));
  const ir::ExprPtr sum = Must(ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), x,
                                              [](ir::ExprPtr acc, ir::ExprPtr v) {
                                                return ir::Call(IntAdd(), {acc, v});
                                              }));
  const ir::ExprPtr vectorised = MustRewrite(VectorizeReduce(8), sum);
  ExpectEquivalent(sum, vectorised, {x}, kSizes);
}

TEST(VectorizeReduceTest, ComposesWithInterchangeIntoOneWalkOverVectors) {
  // What the explorer finds for a MatMul: lanes per column, then one walk over the row's
  // vectors updating every column's lanes.
  const ir::ParamPtr row = ir::MakeParam("row", Ints({32}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({32, 3}));
  const ir::ExprPtr e = Must(DotEachColumn(row, b));
  const ir::ExprPtr vectorised = Must(ApplyOnce(VectorizeReduce(4), e));
  ASSERT_NE(vectorised, nullptr);
  const ir::ExprPtr swapped = MustRewrite(MapReduceInterchange(), vectorised);
  ASSERT_NE(swapped, nullptr);
  EXPECT_THAT(ir::ToString(swapped), HasSubstr("Repeat(3)"));
  ExpectEquivalent(e, swapped, {row, b}, kSizes);
}

TEST(VectorizeReduceTest, AKnownLengthThatIsNotAMultipleFoldsItsTailOneByOne) {
  // 12 = 8 + 4 and 13 = 3 * 4 + 1: the head as vectors, the tail as scalars, both ranges
  // views (Reindex) of each array of the Zip.
  for (auto [length, w] : {std::pair{12, 8}, std::pair{13, 4}, std::pair{10, 8}}) {
    SCOPED_TRACE(absl::StrCat(length, " by ", w));
    const ir::ParamPtr a = ir::MakeParam("a", Ints({length}));
    const ir::ParamPtr b = ir::MakeParam("b", Ints({length}));
    const ir::ExprPtr e = IntDot(a, b);
    const ir::ExprPtr vectorised = MustRewrite(VectorizeReduce(w), e);
    ASSERT_NE(vectorised, nullptr);
    EXPECT_THAT(ir::ToString(vectorised), HasSubstr(absl::StrCat("AsVector(", w, ")")));
    EXPECT_THAT(ir::ToString(vectorised), HasSubstr("Reindex"));
    ExpectEquivalent(e, vectorised, {a, b}, {{}});
  }
}

TEST(VectorizeReduceTest, AScalarArgumentIsTheSameInEveryLane) {
  // Reduce(add)(0, Map(λx => x - m) $ xs), m a scalar: the softmax's sum of exp(x - m) has
  // this shape. The step types on vectors, m widened to every lane.
  const ir::ParamPtr m = ir::MakeParam("m", ir::ScalarType(DType::kInt32));
  const ir::FunPtr sub = ir::MakeUserFun(
      "isub", {"x", "m"}, "return x - m;", {DType::kInt32, DType::kInt32}, DType::kInt32,
      [](std::span<const ir::Scalar> v) -> absl::StatusOr<ir::Scalar> {
        return ir::Scalar::Int(DType::kInt32, v[0].i - v[1].i);
      });
  for (int64_t length : {11, 35}) {
    const ir::ParamPtr x = ir::MakeParam("x", Ints({length}));
    const ir::ExprPtr shifted = Must(ir::MapOver(x, [&](ir::ExprPtr v) {
      return ir::Call(sub, {v, m});
    }));
    const ir::ExprPtr e = Must(ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)),
                                              shifted, [](ir::ExprPtr acc, ir::ExprPtr v) {
                                                return ir::Call(IntAdd(), {acc, v});
                                              }));
    const ir::ExprPtr vectorised = MustRewrite(VectorizeReduce(8), e);
    ASSERT_NE(vectorised, nullptr);
    EXPECT_THAT(ir::ToString(vectorised), HasSubstr("isub"));
    ExpectEquivalent(e, vectorised, {x, m}, {{}});
  }
}

TEST(VectorizeReduceTest, DeclinesWithTheReason) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({6}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({6}));
  EXPECT_EQ(DeclineReason(VectorizeReduce(8), IntDot(a, b)),
            "length 6 is neither a known multiple of 8 nor a known length above it");
  const ir::ParamPtr n = ir::MakeParam("n", Ints({kN}));
  EXPECT_EQ(DeclineReason(VectorizeReduce(4), IntDot(n, n)),
            "length N is neither a known multiple of 4 nor a known length above it");
  // Starting every lane at 1 would add 1 per lane.
  EXPECT_EQ(DeclineReason(VectorizeReduce(4), IntDot(a, b, 1)),
            "init is not left unchanged by combining it with itself");
  // A fold whose step is not a combiner (its order matters).
  const ir::ExprPtr ordered = Must(ir::ReduceOver(
      ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), a, [](ir::ExprPtr acc, ir::ExprPtr v) {
        return ir::Call(IntMul(), {acc, v});
      }));
  EXPECT_EQ(DeclineReason(VectorizeReduce(4), ordered), "the step is not a combiner");
  EXPECT_EQ(DeclineReason(VectorizeReduce(4), a), "not a high-level Reduce");
  // The fold of the lanes that vectorizeReduce leaves: vectorising it again gains nothing.
  const ir::ParamPtr c = ir::MakeParam("c", Ints({32}));
  const ir::ExprPtr once = MustRewrite(VectorizeReduce(4), IntDot(c, c));
  ASSERT_NE(once, nullptr);
  EXPECT_EQ(DeclineReason(VectorizeReduce(2), once),
            "the elements are already the lanes of vectors");
}

TEST(VectorizeMapsTest, AUserFunMappedOverVectorsOfLanes) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN * 8}));
  const ir::ExprPtr e = Must(ir::Call(ir::Map(Neg()), {x}));
  const ir::ExprPtr vectorised = MustRewrite(VectorizeMaps(8), e);
  ASSERT_NE(vectorised, nullptr);
  EXPECT_EQ(ir::ToString(vectorised).rfind("AsScalar", 0), 0u) << ir::ToString(vectorised);
  ExpectEquivalent(e, vectorised, {x}, kSizes);
}

// a + b, each element: Map(λp => add(p.0, p.1)) $ Zip(a, b).
ir::ExprPtr IntSum(const ir::ExprPtr& a, const ir::ExprPtr& b) {
  return Must(ir::MapOver(Must(ir::Call(ir::Zip(2), {a, b})), [](ir::ExprPtr p) {
    return ir::Call(IntAdd(), {Must(ir::Call(ir::Get(0), {p})), Must(ir::Call(ir::Get(1), {p}))});
  }));
}

TEST(VectorizeMapsTest, AChainOfMapsOverZipsIsOneMapOverVectors) {
  // -(a + b) + c: the Maps of the Zip's arrays are read as vectors with the outer Map.
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN * 4}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({kN * 4}));
  const ir::ParamPtr c = ir::MakeParam("c", Ints({kN * 4}));
  const ir::ExprPtr negated =
      Must(ir::MapOver(IntSum(a, b), [](ir::ExprPtr v) { return ir::Call(IntNeg(), {v}); }));
  const ir::ExprPtr e = IntSum(negated, c);
  const ir::ExprPtr vectorised = MustRewrite(VectorizeMaps(4), e);
  ASSERT_NE(vectorised, nullptr);
  const std::string text = ir::ToString(vectorised);
  EXPECT_EQ(Count(text, "AsVector(4)"), 3) << text;  // a, b and c, each once
  EXPECT_EQ(Count(text, "AsScalar"), 1) << text;
  ExpectEquivalent(e, vectorised, {a, b, c}, kSizes);
}

TEST(VectorizeMapsTest, DeclinesWithTheReason) {
  const ir::ParamPtr odd = ir::MakeParam("odd", Floats({10}));
  EXPECT_EQ(DeclineReason(VectorizeMaps(4), Must(ir::Call(ir::Map(Neg()), {odd}))),
            "no Map of scalars reads its inputs as vectors");
  const ir::ParamPtr x = ir::MakeParam("x", Floats({8}));
  EXPECT_EQ(DeclineReason(VectorizeMaps(4), x), "no Map of scalars reads its inputs as vectors");
  // The Map over vectors that vectorizeMaps leaves.
  const ir::ExprPtr once = MustRewrite(VectorizeMaps(4), Must(ir::Call(ir::Map(Neg()), {x})));
  ASSERT_NE(once, nullptr);
  EXPECT_EQ(DeclineReason(VectorizeMaps(2), once), "no Map of scalars reads its inputs as vectors");
}

// Rows of a matrix, each through two elementwise ops (each a Map over the rows whose function
// maps the row: how the translation makes an elementwise op of a cluster), then each row summed.
TEST(VectorizeMapsTest, EveryElementwiseMapInOneStepButAReducesInput) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 8}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({kN, 8}));
  const ir::ExprPtr sums = Must(ir::MapOver(Must(ir::Call(ir::Zip(2), {a, b})), [](ir::ExprPtr p) {
    return IntSum(Must(ir::Call(ir::Get(0), {p})), Must(ir::Call(ir::Get(1), {p})));
  }));
  const ir::ExprPtr negated = Must(ir::MapOver(sums, [](ir::ExprPtr row) {
    return ir::MapOver(row, [](ir::ExprPtr v) { return ir::Call(IntNeg(), {v}); });
  }));
  const ir::ExprPtr vectorised = MustRewrite(VectorizeMaps(4), negated);
  ASSERT_NE(vectorised, nullptr);
  EXPECT_EQ(Count(ir::ToString(vectorised), "AsScalar"), 2) << ir::ToString(vectorised);
  ExpectEquivalent(negated, vectorised, {a, b}, kSizes);

  // Each row's sum: the Map under the Reduce is vectorizeReduce's, the one before it is not.
  const ir::ExprPtr totals = Must(ir::MapOver(negated, [](ir::ExprPtr row) {
    return ir::ReduceOver(
        ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)),
        Must(ir::MapOver(row, [](ir::ExprPtr v) { return ir::Call(IntNeg(), {v}); })),
        [](ir::ExprPtr acc, ir::ExprPtr v) {
          return ir::Call(IntAdd(), {acc, v});
        });
  }));
  const ir::ExprPtr partly = MustRewrite(VectorizeMaps(4), totals);
  ASSERT_NE(partly, nullptr);
  EXPECT_EQ(Count(ir::ToString(partly), "AsScalar"), 2) << ir::ToString(partly);
  ExpectEquivalent(totals, partly, {a, b}, kSizes);

  const ir::ParamPtr odd = ir::MakeParam("odd", Ints({kN, 6}));
  EXPECT_EQ(DeclineReason(VectorizeMaps(4), Must(ir::MapOver(odd,
                                                             [](ir::ExprPtr row) {
                                                               return ir::MapOver(
                                                                   row, [](ir::ExprPtr v) {
                                                                     return ir::Call(IntNeg(), {v});
                                                                   });
                                                             }))),
            "no Map of scalars reads its inputs as vectors");
}

// A row's dot product with each column of b (a MatMul's Map over its output columns), w
// columns at a time: the columns of b are the rows of b itself read as vectors.
// Map(λrow => AsScalar $ Map(ineg) $ AsVector(4) $ row) $ x: each row negated as vectors.
ir::ExprPtr NegatedRowsAsVectors(const ir::ExprPtr& x) {
  return Must(ir::MapOver(x, [](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr v, ir::Call(ir::AsVector(4), {row}));
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr negated, ir::Call(ir::Map(IntNeg()), {v}));
    return ir::Call(ir::AsScalar(), {negated});
  }));
}

TEST(VectorsAcrossMapsTest, RowsOfVectorsPassFromOneMapToTheNext) {
  const ir::ParamPtr x = ir::MakeParam("x", Ints({kN, 8}));
  const ir::ExprPtr e = NegatedRowsAsVectors(NegatedRowsAsVectors(x));
  const ir::ExprPtr passed = MustRewrite(VectorsAcrossMaps(), e);
  ASSERT_NE(passed, nullptr);
  const std::string text = ir::ToString(passed);
  EXPECT_EQ(Count(text, "AsVector(4)"), 1) << text;  // x's rows, read once as vectors
  EXPECT_EQ(Count(text, "AsScalar"), 1) << text;     // the result's rows, listed once
  ExpectEquivalent(e, passed, {x}, kSizes);
  EXPECT_EQ(DeclineReason(VectorsAcrossMaps(), passed),
            "no array of it is rows of vectors listed as scalars and read back so");
}

TEST(VectorsAcrossMapsTest, OneArrayOfAZip) {
  // Each row: AsScalar $ Map(iadd) $ Zip(AsVector(4) $ t.0, AsVector(4) $ t.1), over
  // Zip(-x as vectors, y): x's rows pass as vectors, y's are read as before.
  const ir::ParamPtr x = ir::MakeParam("x", Ints({kN, 8}));
  const ir::ParamPtr y = ir::MakeParam("y", Ints({kN, 8}));
  const ir::ExprPtr rows = Must(ir::Call(ir::Zip(2), {NegatedRowsAsVectors(x), y}));
  const ir::ExprPtr e = Must(ir::MapOver(rows, [](ir::ExprPtr t) -> absl::StatusOr<ir::ExprPtr> {
    std::vector<ir::ExprPtr> vectors;
    for (int k = 0; k < 2; ++k) {
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr row, ir::Call(ir::Get(k), {t}));
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr v, ir::Call(ir::AsVector(4), {row}));
      vectors.push_back(std::move(v));
    }
    return ir::Call(ir::AsScalar(), {IntSum(vectors[0], vectors[1])});
  }));
  const ir::ExprPtr passed = MustRewrite(VectorsAcrossMaps(), e);
  ASSERT_NE(passed, nullptr);
  const std::string text = ir::ToString(passed);
  EXPECT_EQ(Count(text, "AsVector(4)"), 2) << text;  // x's and y's rows
  EXPECT_EQ(Count(text, "AsScalar"), 1) << text;
  ExpectEquivalent(e, passed, {x, y}, kSizes);
  // Read as scalars too, the rows are not passed as vectors.
  const ir::ExprPtr scalars = Must(ir::MapOver(
      NegatedRowsAsVectors(x), [](ir::ExprPtr row) { return ir::Call(ir::Map(IntNeg()), {row}); }));
  EXPECT_EQ(DeclineReason(VectorsAcrossMaps(), scalars),
            "no array of it is rows of vectors listed as scalars and read back so");
  EXPECT_EQ(DeclineReason(VectorsAcrossMaps(), x), "not a high-level Map");
}

TEST(VectorizeColumnsTest, EachColumnsDotProductWColumnsAtOnce) {
  for (int w : {2, 4, 8, 16}) {
    SCOPED_TRACE(w);
    const ir::ParamPtr row = ir::MakeParam("row", Ints({5}));
    const ir::ParamPtr b = ir::MakeParam("b", Ints({5, kN * 16}));
    const ir::ExprPtr e = Must(DotEachColumn(row, b));
    const ir::ExprPtr vectorised = MustRewrite(VectorizeColumns(w), e);
    ASSERT_NE(vectorised, nullptr);
    // Transpose $ Transpose $ b is b: one Transpose, the one that walks the vectors' columns.
    EXPECT_EQ(Count(ir::ToString(vectorised), "Transpose"), 1) << ir::ToString(vectorised);
    EXPECT_THAT(ir::ToString(vectorised), HasSubstr(absl::StrCat("Map(AsVector(", w, "))")));
    ExpectEquivalent(e, vectorised, {row, b}, kSizes);
  }
}

// dy·Wᵀ as TensorFlow's gradient writes it (transpose_b): the columns are W's rows, read w at
// a time down their columns; and the rule inside a whole MatMul, a Map over its rows.
TEST(VectorizeColumnsTest, TheRowsOfAMatrixAndAWholeMatMul) {
  const ir::ParamPtr row = ir::MakeParam("row", Ints({3}));
  const ir::ParamPtr w_rows = ir::MakeParam("w", Ints({kN * 8, 3}));
  const ir::ExprPtr e = Must(ir::MapOver(w_rows, [&](ir::ExprPtr col) { return Dot(row, col); }));
  const ir::ExprPtr vectorised = MustRewrite(VectorizeColumns(8), e);
  ExpectEquivalent(e, vectorised, {row, w_rows}, kSizes);

  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 7}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({7, 12}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  absl::StatusOr<std::vector<ir::ExprPtr>> places = ApplyAtEach(VectorizeColumns(4), product);
  ASSERT_TRUE(places.ok()) << places.status();
  ASSERT_EQ(places->size(), 1u);  // the Map over columns; a's N rows are no known multiple of 4
  ExpectEquivalent(product, places->front(), {a, b}, kSizes);
}

// A MatMul's Map over the rows of a, w rows at a time: each work-item (MapGlb) computes a
// block of w output rows, lane l of its vectors being row l. With a stored as its transpose
// (a transpose_a MatMul: xᵀ·dy), the rows of a are read as vectors straight from the matrix's
// rows; and mapReduceInterchange then folds the block's dot products together.
TEST(VectorizeColumnsTest, BlocksOfRowsOfAMatMul) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN * 4, 7}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({7, 12}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  absl::StatusOr<std::vector<ir::ExprPtr>> places = ApplyAtEach(VectorizeColumns(4), product);
  ASSERT_TRUE(places.ok()) << places.status();
  ASSERT_EQ(places->size(), 2u);  // a's rows (the outer Map) and b's columns (the inner)
  const ir::ExprPtr& blocks = places->front();
  EXPECT_THAT(ir::ToString(blocks), HasSubstr("Join() o MapGlb(0)("));
  for (const ir::ExprPtr& place : *places) ExpectEquivalent(product, place, {a, b}, kSizes);

  const ir::ParamPtr at = ir::MakeParam("at", Ints({7, kN * 8}));
  const ir::ExprPtr transposed_a = Must(ir::Call(ir::Transpose(), {at}));
  const ir::ExprPtr gradient = Must(MatMul(transposed_a, b));
  places = ApplyAtEach(VectorizeColumns(8), gradient);
  ASSERT_TRUE(places.ok()) << places.status();
  ASSERT_EQ(places->size(), 1u);  // b's 12 columns are not a multiple of 8
  EXPECT_THAT(ir::ToString(places->front()), HasSubstr("Map(AsVector(8)) $ at"));
  ExpectEquivalent(gradient, places->front(), {at, b}, kSizes);
  absl::StatusOr<std::vector<ir::ExprPtr>> folded =
      ApplyAtEach(MapReduceInterchange(), places->front());
  ASSERT_TRUE(folded.ok()) << folded.status();
  ASSERT_FALSE(folded->empty());
  for (const ir::ExprPtr& f : *folded) ExpectEquivalent(gradient, f, {at, b}, kSizes);
}

TEST(VectorizeColumnsTest, DeclinesWithTheReason) {
  const ir::ParamPtr row = ir::MakeParam("row", Ints({4}));
  EXPECT_EQ(DeclineReason(VectorizeColumns(4), row), "not a high-level Map");
  EXPECT_EQ(DeclineReason(VectorizeColumns(4), Must(ir::Call(ir::Map(IntNeg()), {row}))),
            "the Map's function is not a λ");
  EXPECT_EQ(
      DeclineReason(VectorizeColumns(4),
                    Must(ir::MapOver(row, [](ir::ExprPtr v) { return ir::Call(IntNeg(), {v}); }))),
      "the Map is not over the rows of a matrix of scalars");
  const ir::ParamPtr six = ir::MakeParam("b", Ints({4, 6}));
  EXPECT_EQ(DeclineReason(VectorizeColumns(4), Must(DotEachColumn(row, six))),
            "the 6 rows are not known to be a multiple of 4");
  // A column's sum used as an index: an index of four lanes does not type.
  const ir::ParamPtr table = ir::MakeParam("table", Ints({100}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({8, 4}));
  const ir::ExprPtr lookup =
      Must(ir::MapOver(b, [&](ir::ExprPtr col) -> absl::StatusOr<ir::ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr sum,
                             ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), col,
                                            [](ir::ExprPtr acc, ir::ExprPtr v) {
                                              return ir::Call(IntAdd(), {acc, v});
                                            }));
        return ir::Call(ir::At(), {table, sum});
      }));
  EXPECT_THAT(DeclineReason(VectorizeColumns(4), lookup), HasSubstr("index has type int32<4>"));
}

TEST(VectorizeAccumulatorTest, AConvolutionsSumsPerOutputChannelAsVectors) {
  for (int w : {4, 8, 16}) {
    SCOPED_TRACE(w);
    const ir::ParamPtr window = ir::MakeParam("window", Ints({kN * 3}));
    const ir::ParamPtr filter = ir::MakeParam("filter", Ints({kN * 3, 32}));
    const ir::ExprPtr taps = Must(ir::Call(ir::Zip(2), {window, filter}));
    const ir::ExprPtr e = FoldIntoAccumulators(kZero, 32, taps, /*times_scalar=*/true);
    const ir::ExprPtr vectorised = MustRewrite(VectorizeAccumulator(w), e);
    ASSERT_NE(vectorised, nullptr);
    EXPECT_THAT(ir::ToString(vectorised), HasSubstr(absl::StrCat("AsVector(", w, ") o Get(1)")));
    EXPECT_THAT(ir::ToString(vectorised), StartsWith("AsScalar()"));
    ExpectEquivalent(e, vectorised, {window, filter}, kSizes);
  }
}

TEST(VectorizeAccumulatorTest, APoolsChannelsAndAFoldInsideAMap) {
  const ir::ParamPtr windows = ir::MakeParam("windows", Ints({kN, 9, 16}));
  const ir::ExprPtr e =
      Must(ir::MapOver(windows, [&](ir::ExprPtr rows) -> absl::StatusOr<ir::ExprPtr> {
        return FoldIntoAccumulators(kZero, 16, rows, /*times_scalar=*/false);
      }));
  absl::StatusOr<std::vector<ir::ExprPtr>> places = ApplyAtEach(VectorizeAccumulator(8), e);
  ASSERT_TRUE(places.ok()) << places.status();
  ASSERT_EQ(places->size(), 1u);
  ExpectEquivalent(e, places->front(), {windows}, kSizes);
}

TEST(VectorizeAccumulatorTest, DeclinesWithTheReason) {
  const ir::ParamPtr rows = ir::MakeParam("rows", Ints({9, 12}));
  EXPECT_EQ(DeclineReason(VectorizeAccumulator(8), rows), "not a high-level Reduce");
  EXPECT_EQ(DeclineReason(VectorizeAccumulator(8), FoldIntoAccumulators(kZero, 12, rows, false)),
            "the 12 accumulators are not a known multiple of 8");
  const ir::ParamPtr x = ir::MakeParam("x", Ints({12}));
  const ir::ExprPtr sum = Must(ir::ReduceOver(kZero, x, [](ir::ExprPtr acc, ir::ExprPtr v) {
    return ir::Call(IntAdd(), {acc, v});
  }));
  EXPECT_EQ(DeclineReason(VectorizeAccumulator(4), sum),
            "the accumulator is not an array of one scalar repeated");
  // A step that reads the whole accumulator in each element's update (a prefix, say) is not
  // elementwise.
  const ir::ExprPtr inits = Must(ir::Call(ir::Repeat(8), {kZero}));
  const ir::ParamPtr r8 = ir::MakeParam("r", Ints({4, 8}));
  const ir::ExprPtr reads_all = Must(ir::ReduceOver(
      inits, r8, [&](ir::ExprPtr acc, ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr pairs, ir::Call(ir::Zip(2), {acc, row}));
        return ir::MapOver(pairs, [&](ir::ExprPtr q) -> absl::StatusOr<ir::ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr first, ir::Call(ir::At(), {acc, kZero}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr y, ir::Call(ir::Get(1), {q}));
          return ir::Call(IntAdd(), {first, y});
        });
      }));
  EXPECT_EQ(DeclineReason(VectorizeAccumulator(4), reads_all),
            "the step's function reads the accumulator");
}

}  // namespace
}  // namespace dfc::rewrite

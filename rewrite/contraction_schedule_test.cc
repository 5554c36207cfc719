// The default schedule of products: which are blocked, how, where the blocked product is
// stored, and equivalence with the translation on seeded random inputs (exact: each output
// keeps its own fold, in the same order).
#include "rewrite/contraction_schedule.h"

#include <tuple>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "rewrite/lower_for_device.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// How many lets the schedule made in `e` (its products and left rows stored): each a kernel
// of its own on the device.
int Lets(const ir::ExprPtr& e) {
  const std::string text = ir::ToString(e);
  int lets = 0;
  for (const std::string name : {"λ(product", "λ(left"}) {
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
      ++lets;
    }
  }
  return lets;
}

// The cpu profile prefers 8 lanes and has 16 vector registers (AVX2): 8 columns a vector, one
// vector accumulator a row in half the registers, 8 rows a block. The product is the cluster's
// output, which its kernel stores by rows already.
TEST(ScheduleContractionsTest, AProductIsBlockedInRowsAndVectorsOfColumns) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 24}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({24, 16}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  const DeviceProfile cpu = Profile("cpu");
  absl::StatusOr<ContractionSchedule> schedule = ScheduleContractions(product, cpu);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_THAT(schedule->steps, ElementsAre("vectorizeColumns(8)", "blockRows(8)"));
  const std::string text = ir::ToString(schedule->body);
  EXPECT_THAT(text, HasSubstr("AsVector(8)"));
  EXPECT_THAT(text, HasSubstr("MapGlb(0)"));
  EXPECT_EQ(Lets(schedule->body), 0) << text;
  EXPECT_TRUE(LowerForDevice(schedule->body, cpu).ok());
  ExpectEquivalent(product, schedule->body, {a, b}, kSizes);
}

// Columns in vectors enough: 2-D blocks of vector accumulators that fit the 16 registers with
// their loads, fewest loads an FMA first — 4 rows by 3 vectors where there are two blocks of 3
// (96 columns of 8), else 6 rows by 2 (64 or 32 columns).
TEST(ScheduleContractionsTest, ManyColumnsAreBlockedInRowsAndVectorsOfColumns) {
  const DeviceProfile cpu = Profile("cpu");
  for (const auto& [columns, columns_step, rows_step, accumulators] :
       {std::tuple{96, "blockColumns(3)", "blockRows(4)", "Repeat(4) o Repeat(3)"},
        std::tuple{64, "blockColumns(2)", "blockRows(6)", "Repeat(6) o Repeat(2)"},
        std::tuple{32, "blockColumns(2)", "blockRows(6)", "Repeat(6) o Repeat(2)"}}) {
    const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 24}));
    const ir::ParamPtr b = ir::MakeParam("b", Ints({24, columns}));
    const ir::ExprPtr product = Must(MatMul(a, b));
    absl::StatusOr<ContractionSchedule> schedule = ScheduleContractions(product, cpu);
    ASSERT_TRUE(schedule.ok()) << schedule.status();
    EXPECT_THAT(schedule->steps, ElementsAre("vectorizeColumns(8)", columns_step, rows_step));
    const std::string text = ir::ToString(schedule->body);
    EXPECT_THAT(text, HasSubstr(accumulators)) << text;
    EXPECT_EQ(Lets(schedule->body), 0) << text;
    EXPECT_TRUE(LowerForDevice(schedule->body, cpu).ok());
    ExpectEquivalent(product, schedule->body, {a, b}, kSizes);
  }
}

// Read through a Transpose, the blocked rows would be computed again for every element of the
// transposed rows that reads them: the product is stored by a kernel of its own first.
TEST(ScheduleContractionsTest, AProductReadThroughATransposeIsStoredByAKernelOfItsOwn) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 24}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({24, 16}));
  const ir::ExprPtr transposed = Must(ir::Call(ir::Transpose(), {Must(MatMul(a, b))}));
  absl::StatusOr<ContractionSchedule> schedule = ScheduleContractions(transposed, Profile("cpu"));
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_THAT(schedule->steps, ElementsAre("vectorizeColumns(8)", "blockRows(8)"));
  EXPECT_EQ(Lets(schedule->body), 1) << ir::ToString(schedule->body);
  ExpectEquivalent(transposed, schedule->body, {a, b}, kSizes);
}

// Two layers: the second product reads the first's rows through an elementwise Map. Both are
// blocked; the first is stored for the second by a let at the top of the body.
TEST(ScheduleContractionsTest, EachLayerOfAChainIsBlocked) {
  const ir::ParamPtr x = ir::MakeParam("x", Ints({kN, 8}));
  const ir::ParamPtr w1 = ir::MakeParam("w1", Ints({8, 16}));
  const ir::ParamPtr w2 = ir::MakeParam("w2", Ints({16, 8}));
  const ir::ExprPtr hidden = Must(ir::MapOver(Must(MatMul(x, w1)), [](ir::ExprPtr row) {
    return ir::MapOver(row, [](ir::ExprPtr v) { return ir::Call(IntAdd(), {v, v}); });
  }));
  const ir::ExprPtr out = Must(MatMul(hidden, w2));
  absl::StatusOr<ContractionSchedule> schedule = ScheduleContractions(out, Profile("cpu"));
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_THAT(schedule->steps, ElementsAre("vectorizeColumns(8)", "blockRows(8)",
                                           "vectorizeColumns(8)", "blockRows(8)"));
  EXPECT_EQ(Lets(schedule->body), 1) << ir::ToString(schedule->body);
  ExpectEquivalent(out, schedule->body, {x, w1, w2}, kSizes);
}

// Left rows that fold (here a product's, which blockRows would fold again for each vector of
// columns) are stored by a kernel of their own before the product that reads them.
TEST(ScheduleContractionsTest, LeftRowsThatFoldAreStoredFirst) {
  const ir::ParamPtr x = ir::MakeParam("x", Ints({kN, 8}));
  const ir::ParamPtr w1 = ir::MakeParam("w1", Ints({8, 10}));
  const ir::ParamPtr w2 = ir::MakeParam("w2", Ints({10, 8}));
  // The first product's 10 columns are no multiple of a vector: it is left as translated.
  const ir::ExprPtr out = Must(MatMul(Must(MatMul(x, w1)), w2));
  absl::StatusOr<ContractionSchedule> schedule = ScheduleContractions(out, Profile("cpu"));
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_THAT(schedule->steps, ElementsAre("vectorizeColumns(8)", "blockRows(8)"));
  const std::string text = ir::ToString(schedule->body);
  EXPECT_THAT(text, HasSubstr("λ(left)"));
  EXPECT_EQ(Lets(schedule->body), 1) << text;
  ExpectEquivalent(out, schedule->body, {x, w1, w2}, kSizes);
}

// Products that read only the cluster's parameters (the gates of an LSTM cell, each a product
// of the state by its own matrix) are bound by one let at the top of the body: one kernel
// stores them all.
TEST(ScheduleContractionsTest, ProductsOfTheClustersParametersAreStoredByOneKernel) {
  const ir::ParamPtr h = ir::MakeParam("h", Ints({kN, 16}));
  const ir::ParamPtr u0 = ir::MakeParam("u0", Ints({16, 8}));
  const ir::ParamPtr u1 = ir::MakeParam("u1", Ints({16, 8}));
  // Each gate's product read through a Transpose, so that each needs storing.
  const ir::ExprPtr g0 = Must(ir::Call(ir::Transpose(), {Must(MatMul(h, u0))}));
  const ir::ExprPtr g1 = Must(ir::Call(ir::Transpose(), {Must(MatMul(h, u1))}));
  const ir::ExprPtr both = Must(ir::Call(ir::Tuple(2), {g0, g1}));
  const DeviceProfile cpu = Profile("cpu");
  absl::StatusOr<ContractionSchedule> schedule = ScheduleContractions(both, cpu);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  const std::string text = ir::ToString(schedule->body);
  EXPECT_EQ(Lets(schedule->body), 1) << text;
  EXPECT_THAT(text, HasSubstr("λ(product, product1)")) << text;
  EXPECT_TRUE(LowerForDevice(schedule->body, cpu).ok());
  ExpectEquivalent(both, schedule->body, {h, u0, u1}, kSizes);
}

// A product with a transposed right matrix (A·Bᵀ, MatMul's transpose_b: each result the dot
// product of two stored rows, here 10 of them, no multiple of a vector) folds each dot product
// in vectors of 8 lanes, 4 left rows at a time. Integer sums reassociate exactly.
TEST(ScheduleContractionsTest, DotProductsOfStoredRowsAreVectorisedAndBlockedInRows) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 24}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({10, 24}));
  const ir::ExprPtr product = Must(ir::MapOver(
      a,
      [&](ir::ExprPtr row) {
        return ir::MapOver(
            b, [&](ir::ExprPtr other) { return Dot(row, other); }, "other");
      },
      "row"));
  const DeviceProfile cpu = Profile("cpu");
  absl::StatusOr<ContractionSchedule> schedule = ScheduleContractions(product, cpu);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_THAT(schedule->steps, ElementsAre("vectorizeReduce(8)", "blockRows(4)"));
  const std::string text = ir::ToString(schedule->body);
  EXPECT_THAT(text, HasSubstr("AsVector(8)")) << text;
  EXPECT_EQ(Lets(schedule->body), 0) << text;
  EXPECT_TRUE(LowerForDevice(schedule->body, cpu).ok());
  ExpectEquivalent(product, schedule->body, {a, b}, kSizes);
}

// A GPU's work-items are not a CPU's vector registers (the explorer chooses there), and 10
// columns are no multiple of a vector, nor divide into blocks of 16 or more: the translation is
// kept as it is.
TEST(ScheduleContractionsTest, NothingOnAGpuOrWhereTheColumnsAreNoMultipleOfAVector) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 24}));
  const ir::ExprPtr product = Must(MatMul(a, ir::MakeParam("b", Ints({24, 16}))));
  absl::StatusOr<ContractionSchedule> gpu = ScheduleContractions(product, Profile("nvidia"));
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  EXPECT_THAT(gpu->steps, IsEmpty());
  EXPECT_EQ(gpu->body, product);

  const ir::ExprPtr narrow = Must(MatMul(a, ir::MakeParam("b", Ints({24, 10}))));
  absl::StatusOr<ContractionSchedule> cpu = ScheduleContractions(narrow, Profile("cpu"));
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_THAT(cpu->steps, IsEmpty());
  EXPECT_EQ(cpu->body, narrow);
}

// The product of a fed [N][24] by a fed [24][columns] under the cpu profile's schedule: its steps
// are `step` alone, its body shows `shows`, it lowers, and its results are the product's.
void ExpectScheduledProduct(int64_t columns, const std::string& step, const std::string& shows) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 24}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({24, columns}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  const DeviceProfile cpu = Profile("cpu");
  absl::StatusOr<ContractionSchedule> schedule = ScheduleContractions(product, cpu);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_THAT(schedule->steps, ElementsAre(step));
  EXPECT_THAT(ir::ToString(schedule->body), HasSubstr(shows));
  EXPECT_TRUE(LowerForDevice(schedule->body, cpu).ok());
  ExpectEquivalent(product, schedule->body, {a, b}, kSizes);
}

// 34 columns are no multiple of a vector: the walk goes in blocks of 17, the most that divide
// them and fit a work-item's accumulators, each step of a block's folds reading 17 neighbouring
// elements of a row of b (a classifier's 1001 go in blocks of 143); the results are equal.
TEST(ScheduleContractionsTest, ColumnsNoVectorDividesAreWalkedInBlocksThatDo) {
  ExpectScheduledProduct(34, "blockColumns(17)", "Split(17)");
}

// Columns too few for two blocks of 16 that divide them (a pose network's 19 heatmaps): all of
// them fold together, each step reading a row of b's 19 neighbouring elements into 19 sums,
// where column by column each dot product would stride down b; the results are equal.
TEST(ScheduleContractionsTest, ColumnsTooFewForTwoBlocksFoldTogether) {
  ExpectScheduledProduct(19, "mapReduceInterchange", "Repeat(19)");
}

}  // namespace
}  // namespace dfc::rewrite

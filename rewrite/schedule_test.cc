// The default schedule's blocks of convolution positions: which folds are blocked, by how many
// positions, and equivalence with the unscheduled body on seeded random inputs (exact: each
// position keeps its own fold, in the same order), a last block of padding rows included.
#include "rewrite/schedule.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/type.h"
#include "rewrite/lower_for_device.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::Contains;
using ::testing::HasSubstr;

// A convolution's output as its translation writes it: for each of [N][H][W] positions, the
// fold of its window's taps (each an input element and a filter row) into `channels` sums.
ir::ExprPtr Convolution(const ir::ParamPtr& windows, const ir::ParamPtr& filter, int64_t channels) {
  const auto each = [](const ir::ExprPtr& array, const auto& f) {
    return Must(ir::MapOver(array, f));
  };
  return each(windows, [&](ir::ExprPtr image) -> absl::StatusOr<ir::ExprPtr> {
    return each(image, [&](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
      return each(row, [&](ir::ExprPtr window) -> absl::StatusOr<ir::ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr taps, ir::Call(ir::Zip(2), {window, filter}));
        return FoldIntoAccumulators(kZero, channels, taps, /*times_scalar=*/true);
      });
    });
  });
}

const std::vector<SizeBindings> kBatches = {{{"N", 1}}, {{"N", 2}}};

// The cpu profile: 16 vector registers of 8 lanes. 16 channels are 2 vector sums a position, so
// blocks of (16 - 1) / 2 - 1 = 6 positions; 7 x 5 = 35 positions an image end in a block that
// repeats the last position.
TEST(SchedulePositionsTest, AConvolutionsPositionsAreComputedInBlocks) {
  const ir::ParamPtr windows = ir::MakeParam("windows", Ints({kN, 7, 5, 72}));
  const ir::ParamPtr filter = ir::MakeParam("filter", Ints({72, 16}));
  const ir::ExprPtr conv = Convolution(windows, filter, 16);
  const DeviceProfile cpu = Profile("cpu");
  absl::StatusOr<ContractionSchedule> schedule = DefaultSchedule(conv, cpu);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_THAT(schedule->steps, Contains("vectorizeAccumulator(8)"));
  EXPECT_THAT(schedule->steps, Contains("blockPositions(6)"));
  const std::string text = ir::ToString(schedule->body);
  EXPECT_THAT(text, HasSubstr("Split(6)"));
  EXPECT_THAT(text, HasSubstr("MapGlb(0)"));
  EXPECT_EQ(ir::TypeToString(schedule->body->type), ir::TypeToString(conv->type));
  EXPECT_TRUE(LowerForDevice(schedule->body, cpu).ok());
  ExpectEquivalent(conv, schedule->body, {windows, filter}, kBatches, /*seeds=*/2);
}

// Fewer taps than a block pays for (a 3x3 window of one channel), a depthwise convolution's or a
// pool's fold (each step a row of the input, not a scalar), or a GPU profile: no blocks.
TEST(SchedulePositionsTest, FewTapsRowStepsAndGpusAreLeftAsTheyAre) {
  const DeviceProfile cpu = Profile("cpu");
  const ir::ParamPtr few = ir::MakeParam("windows", Ints({kN, 7, 5, 9}));
  const ir::ParamPtr small_filter = ir::MakeParam("filter", Ints({9, 16}));
  absl::StatusOr<ContractionSchedule> schedule =
      SchedulePositions(Convolution(few, small_filter, 16), cpu);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_TRUE(schedule->steps.empty());

  const ir::ParamPtr pooled = ir::MakeParam("windows", Ints({kN, 7, 5, 72, 16}));
  const ir::ExprPtr pool = Must(ir::MapOver(pooled, [&](ir::ExprPtr image) {
    return ir::MapOver(image, [&](ir::ExprPtr row) {
      return ir::MapOver(row, [&](ir::ExprPtr window) -> absl::StatusOr<ir::ExprPtr> {
        return FoldIntoAccumulators(kZero, 16, window, /*times_scalar=*/false);
      });
    });
  }));
  schedule = SchedulePositions(pool, cpu);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_TRUE(schedule->steps.empty());

  const ir::ParamPtr windows = ir::MakeParam("windows", Ints({kN, 7, 5, 72}));
  const ir::ParamPtr filter = ir::MakeParam("filter", Ints({72, 16}));
  schedule = SchedulePositions(Convolution(windows, filter, 16), Profile("nvidia"));
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_TRUE(schedule->steps.empty());
}

// A convolution's epilogue, bound by a let as the translation binds each op's value: the sums
// plus a bias, times a row read as it is stored (as a residual is). The let is inlined and every
// Map after the fold reads vectors (vectorizeMaps(8)): one vector operation a vector of sums,
// one vector store.
TEST(DefaultScheduleTest, AConvolutionsEpilogueReadsItsSumsAsVectors) {
  const ir::ParamPtr windows = ir::MakeParam("windows", Ints({kN, 7, 5, 72}));
  const ir::ParamPtr filter = ir::MakeParam("filter", Ints({72, 16}));
  const ir::ParamPtr bias = ir::MakeParam("bias", Ints({16}));
  const auto each = [](const ir::ExprPtr& array, const auto& f) {
    return Must(ir::MapOver(array, f));
  };
  const auto zipped = [](ir::FunPtr f, const ir::ExprPtr& a, const ir::ExprPtr& b) {
    return ir::MapOver(Must(ir::Call(ir::Zip(2), {a, b})), [&](ir::ExprPtr t) {
      return ir::Call(f, {Must(ir::Call(ir::Get(0), {t})), Must(ir::Call(ir::Get(1), {t}))});
    });
  };
  const ir::ExprPtr conv = each(windows, [&](ir::ExprPtr image) -> absl::StatusOr<ir::ExprPtr> {
    return each(image, [&](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
      return each(row, [&](ir::ExprPtr window) -> absl::StatusOr<ir::ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr taps, ir::Call(ir::Zip(2), {window, filter}));
        const ir::ExprPtr sums = FoldIntoAccumulators(kZero, 16, taps, /*times_scalar=*/true);
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr biased, zipped(IntAdd(), sums, bias));
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr both, ir::Call(ir::Tuple(2), {biased, bias}));
        DFC_ASSIGN_OR_RETURN(
            ir::FunPtr let,
            ir::MakeLambda({both->type},
                           [&](std::span<const ir::ExprPtr> x) -> absl::StatusOr<ir::ExprPtr> {
                             return zipped(IntMul(), Must(ir::Call(ir::Get(0), {x[0]})),
                                           Must(ir::Call(ir::Get(1), {x[0]})));
                           },
                           {"x"}));
        return ir::Call(let, {both});
      });
    });
  });
  const DeviceProfile cpu = Profile("cpu");
  absl::StatusOr<ContractionSchedule> schedule = DefaultSchedule(conv, cpu);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_THAT(schedule->steps, Contains("blockPositions(6)"));
  EXPECT_THAT(schedule->steps, Contains("vectorizeMaps(8)"));
  absl::StatusOr<ir::ExprPtr> lowered = LowerForDevice(schedule->body, cpu);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  const std::string text = ir::ToString(*lowered);
  EXPECT_THAT(text, HasSubstr("MapSeq(λ(p) => AsScalar() o MapSeq(")) << text;
  EXPECT_THAT(text, HasSubstr("AsVector(8) $ bias")) << text;
  ExpectEquivalent(conv, schedule->body, {windows, filter, bias}, kBatches, /*seeds=*/2);
}

}  // namespace
}  // namespace dfc::rewrite

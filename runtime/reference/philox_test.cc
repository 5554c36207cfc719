// Tests for Philox4x32-10 (philox.h): Random123's published known-answer vectors (the ones
// TensorFlow's own Philox tests compare against), TensorFlow's seeding and counter
// conventions, and the maps from words to floating values.
#include "runtime/reference/philox.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace dfc::reference {
namespace {

struct KnownAnswer {
  Philox::Block counter;
  Philox::Key key;
  Philox::Block expected;
};

class PhiloxKnownAnswerTest : public ::testing::TestWithParam<KnownAnswer> {};

TEST_P(PhiloxKnownAnswerTest, MatchesRandom123) {
  const KnownAnswer& kat = GetParam();
  EXPECT_EQ(Philox::Compute(kat.counter, kat.key), kat.expected);
  // Next returns the same block from a generator at that counter.
  Philox gen(kat.counter, kat.key);
  EXPECT_EQ(gen.Next(), kat.expected);
}

// Random123's kat_vectors for philox4x32-10: counter words, key words, output.
INSTANTIATE_TEST_SUITE_P(
    Random123, PhiloxKnownAnswerTest,
    ::testing::Values(
        KnownAnswer{{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        KnownAnswer{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                    {0xffffffff, 0xffffffff},
                    {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        KnownAnswer{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                    {0xa4093822, 0x299f31d0},
                    {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}));

TEST(PhiloxTest, SeedsAreKeyAndHighCounterWords) {
  const Philox gen(0x1122334455667788ull, 0x99aabbccddeeff00ull);
  EXPECT_EQ(gen.key(), (Philox::Key{0x55667788, 0x11223344}));
  EXPECT_EQ(gen.counter(), (Philox::Block{0, 0, 0xddeeff00, 0x99aabbcc}));
}

TEST(PhiloxTest, NextAdvancesTheCounterByOne) {
  Philox gen(5, 7);
  const Philox::Block first = gen.Next();
  EXPECT_EQ(gen.counter(), (Philox::Block{1, 0, 7, 0}));
  EXPECT_EQ(first, Philox::Compute({0, 0, 7, 0}, {5, 0}));
  EXPECT_EQ(gen.Next(), Philox::Compute({1, 0, 7, 0}, {5, 0}));
}

TEST(PhiloxTest, SkipCarriesAcrossWords) {
  Philox gen(Philox::Block{0xfffffffe, 0xffffffff, 0xffffffff, 0}, {0, 0});
  gen.Skip(3);
  EXPECT_EQ(gen.counter(), (Philox::Block{1, 0, 0, 1}));
  Philox big(Philox::Block{1, 2, 3, 4}, {0, 0});
  big.Skip(0x0000000500000006ull);
  EXPECT_EQ(big.counter(), (Philox::Block{7, 7, 3, 4}));
  Philox none(Philox::Block{1, 2, 3, 4}, {0, 0});
  none.Skip(0);
  EXPECT_EQ(none.counter(), (Philox::Block{1, 2, 3, 4}));
}

TEST(PhiloxTest, SkipEqualsThatManyNexts) {
  Philox a(42, 0), b(42, 0);
  for (int i = 0; i < 10; ++i) a.Next();
  b.Skip(10);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.Next(), b.Next());
}

TEST(PhiloxTest, FloatFromTheLow23Bits) {
  EXPECT_EQ(Uint32ToFloat(0), 0.0f);
  EXPECT_EQ(Uint32ToFloat(0xff800000u), 0.0f);  // the high 9 bits are unused
  EXPECT_EQ(Uint32ToFloat(1), 0x1p-23f);
  EXPECT_EQ(Uint32ToFloat(0x400000u), 0.5f);
  EXPECT_EQ(Uint32ToFloat(0xffffffffu), 1.0f - 0x1p-23f);
}

TEST(PhiloxTest, DoubleFrom52Bits) {
  EXPECT_EQ(Uint64ToDouble(0, 0), 0.0);
  EXPECT_EQ(Uint64ToDouble(0x80000u, 0), 0.5);
  EXPECT_EQ(Uint64ToDouble(0, 1), 0x1p-52);
  EXPECT_EQ(Uint64ToDouble(0xfff00000u, 0), 0.0);  // only 20 bits of the first word
  EXPECT_EQ(Uint64ToDouble(0xffffffffu, 0xffffffffu), 1.0 - 0x1p-52);
}

TEST(PhiloxTest, HalfFromTheLow10Bits) {
  EXPECT_EQ(Uint16ToHalfValue(0), 0.0f);
  EXPECT_EQ(Uint16ToHalfValue(0x200u), 0.5f);
  EXPECT_EQ(Uint16ToHalfValue(0xfffffc00u), 0.0f);
  EXPECT_EQ(Uint16ToHalfValue(0x3ffu), 1.0f - 0x1p-10f);
}

TEST(PhiloxTest, BoxMullerIsSinThenCosOfTheAngle) {
  // u1 = 0.5 gives radius sqrt(2 ln 2); u2 = 0.25 gives the angle pi/2.
  const float radius = std::sqrt(-2.0f * std::log(0.5f));
  const std::array<float, 2> f = BoxMullerFloat(0x400000u, 0x200000u);
  EXPECT_FLOAT_EQ(f[0], radius);
  EXPECT_NEAR(f[1], 0.0f, 1e-6f);
  const std::array<double, 2> d = BoxMullerDouble(0x80000u, 0, 0x40000u, 0);
  EXPECT_DOUBLE_EQ(d[0], std::sqrt(2 * std::log(2.0)));
  EXPECT_NEAR(d[1], 0.0, 1e-15);
}

TEST(PhiloxTest, BoxMullerClampsZeroAwayFromTheLog) {
  const std::array<float, 2> f = BoxMullerFloat(0, 0);  // u1 = 0 -> 1e-7, angle 0
  EXPECT_EQ(f[0], 0.0f);
  EXPECT_FLOAT_EQ(f[1], std::sqrt(-2.0f * std::log(1.0e-7f)));
  EXPECT_TRUE(std::isfinite(BoxMullerDouble(0, 0, 0, 0)[1]));
}

}  // namespace
}  // namespace dfc::reference

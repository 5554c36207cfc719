// ArithExpr: the canonical form (identities it must prove and ones it must not), floor
// division and modulo, evaluation, substitution, printing, and a seeded random check that
// simplification never changes a value.
#include "graph/arith.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/hash/hash.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dfc {

// gtest prints ArithExprs as text.
void PrintTo(const ArithExpr& e, std::ostream* os) { *os << e.ToString(); }

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const ArithExpr N = ArithExpr::Var("N");
const ArithExpr M = ArithExpr::Var("M");
const ArithExpr i = ArithExpr::Var("i");

struct Law {
  const char* law;
  ArithExpr lhs, rhs;
};

TEST(ArithSimplify, ProvesIdentities) {
  const std::vector<Law> laws = {
      {"N*784 == 784*N", N * 784, 784 * N},
      {"(N+1)*4 == 4*N + 4", (N + 1) * 4, 4 * N + 4},
      {"(N+1)*M == M*N + M", (N + 1) * M, M * N + M},
      {"N + N == 2*N", N + N, 2 * N},
      {"3*N + 2*N == 5*N", 3 * N + 2 * N, 5 * N},
      {"N - N == 0", N - N, 0},
      {"N + M == M + N", N + M, M + N},
      {"(N+M)*(N-M) == N*N - M*M", (N + M) * (N - M), N * N - M * M},
      {"0*N == 0", 0 * N, 0},
      {"(N*M)/M == N", (N * M) / M, N},
      {"(4*N*M + 8*M)/(4*M) == N + 2", (4 * N * M + 8 * M) / (4 * M), N + 2},
      {"(N+1)*M/(N+1) == M", (N + 1) * M / (N + 1), M},
      {"(2*N + 2)/(N + 1) == 2", (2 * N + 2) / (N + 1), 2},
      {"(16*N+15)/16 == N", (16 * N + 15) / 16, N},
      {"(16*N+17)/16 == N + 1", (16 * N + 17) / 16, N + 1},
      {"(16*N+15)%16 == 15", (16 * N + 15) % 16, 15},
      {"(16*N + M)/16 == N + M/16", (16 * N + M) / 16, N + M / 16},
      {"(N*4)/4 == N", (N * 4) / 4, N},
      {"(N/2)/3 == N/6", (N / 2) / 3, N / 6},
      {"(2*N)/4 == N/2", (2 * N) / 4, N / 2},
      {"(2*N)%4 == 2*(N%2)", (2 * N) % 4, 2 * (N % 2)},
      {"(5*N + 6)%4 == (N + 2)%4", (5 * N + 6) % 4, (N + 2) % 4},
      {"(8*N + 3)/32 == N/4", (8 * N + 3) / 32, N / 4},
      {"(8*N + 3)%32 == 8*(N%4) + 3", (8 * N + 3) % 32, 8 * (N % 4) + 3},
      {"(8*N + 16*M + 7)/32 == (N + 2*M)/4", (8 * N + 16 * M + 7) / 32, (N + 2 * M) / 4},
      {"(8*N + 3)%32/8 == N%4", (8 * N + 3) % 32 / 8, N % 4},
      {"(8*N + 4*M + 3)/32 == (2*N + M)/8", (8 * N + 4 * M + 3) / 32, (2 * N + M) / 8},
      {"CeilDiv(N*16, 16) == N", ArithExpr::CeilDiv(N * 16, 16), N},
      {"CeilDiv(N, 16) == (N+15)/16", ArithExpr::CeilDiv(N, 16), (N + 15) / 16},
      {"(N+15)/16*16 + (N+15)%16 == N + 15", (N + 15) / 16 * 16 + (N + 15) % 16, N + 15},
      {"N/4*4 + N%4 == N", N / 4 * 4 + N % 4, N},
      {"N/4%8*4 + N%4 == N%32", N / 4 % 8 * 4 + N % 4, N % 32},
      {"(N%4)%4 == N%4", (N % 4) % 4, N % 4},
      {"(N%8)%4 == N%4", (N % 8) % 4, N % 4},
      {"(N%4)%8 == N%4", (N % 4) % 8, N % 4},
      {"(N%4)/4 == 0", (N % 4) / 4, 0},
      {"(N%4 + 4*M)/4 == M", (N % 4 + 4 * M) / 4, M},
      {"(N%M + M*N)%M == N%M", (N % M + M * N) % M, N % M},
      {"(M*N)%M == 0", (M * N) % M, 0},
      {"N%1 == 0", N % 1, 0},
      {"N/1 == N", N / 1, N},
      {"N/N == 1", N / N, 1},
      {"N%N == 0", N % N, 0},
      {"0/N == 0", ArithExpr(0) / N, 0},
      {"N/(-2) == (-N)/2", N / -2, (-N) / 2},
      {"(-7)/2 == -4", ArithExpr(-7) / 2, -4},
      {"(-7)%2 == 1", ArithExpr(-7) % 2, 1},
      {"7/(-2) == -4", ArithExpr(7) / -2, -4},
      {"7%(-2) == -1", ArithExpr(7) % -2, -1},
      {"6*7 - 2 == 40", ArithExpr(6) * 7 - 2, 40},
  };
  for (const Law& law : laws) {
    EXPECT_EQ(law.lhs, law.rhs) << law.law << ": " << law.lhs.ToString() << " vs "
                                << law.rhs.ToString();
  }
}

TEST(ArithSimplify, DoesNotProveFalseIdentities) {
  const std::vector<Law> laws = {
      {"N/2*2 != N", N / 2 * 2, N},
      {"(N+15)/16 != N/16", (N + 15) / 16, N / 16},
      {"N*M != N", N * M, N},
      {"N%4 != N", N % 4, N},
      {"N/M*M != N", N / M * M, N},
      {"(N+1)%4 != N%4 + 1", (N + 1) % 4, N % 4 + 1},
      {"(8*N + 8)/32 != N/4", (8 * N + 8) / 32, N / 4},
      {"(8*N + 9)%32 != 8*(N%4) + 9", (8 * N + 9) % 32, 8 * (N % 4) + 9},
      {"(8*N + 4*M + 5)/32 != (2*N + M)/8", (8 * N + 4 * M + 5) / 32, (2 * N + M) / 8},
      {"N/4*4 + N%2 != N", N / 4 * 4 + N % 2, N},
      {"N/M != N/(M+1)", N / M, N / (M + 1)},
  };
  for (const Law& law : laws) {
    EXPECT_NE(law.lhs, law.rhs) << law.law << ": both are " << law.lhs.ToString();
  }
}

TEST(ArithSimplify, CanonicalShapes) {
  const ArithExpr e = 3 * N + 2 * M + 7;
  EXPECT_EQ(e.kind(), ArithExpr::Kind::kSum);
  ASSERT_EQ(e.operands().size(), 3u);
  EXPECT_EQ(e.operands().back(), 7);  // the constant last
  const ArithExpr p = 2 * N * M;
  EXPECT_EQ(p.kind(), ArithExpr::Kind::kProd);
  EXPECT_EQ(p.coefficient(), 2);
  EXPECT_THAT(p.operands(), ElementsAre(M, N));
  EXPECT_EQ((N * N).operands().size(), 2u);  // repeated factors stay repeated
  EXPECT_EQ((N * N).coefficient(), 1);
  EXPECT_EQ(N.coefficient(), 1);
  EXPECT_EQ(N.var_name(), "N");
  EXPECT_EQ((1 * N).kind(), ArithExpr::Kind::kVar);
  EXPECT_EQ(((N + 15) / 16).kind(), ArithExpr::Kind::kDiv);
  EXPECT_THAT(((N + 15) / 16).operands(), ElementsAre(N + 15, 16));
  EXPECT_EQ(ArithExpr(5).AsConstant(), 5);
  EXPECT_EQ(N.AsConstant(), std::nullopt);
  EXPECT_EQ(ArithExpr().AsConstant(), 0);
}

TEST(ArithSimplify, CompareIsATotalOrder) {
  EXPECT_LT(ArithExpr::Compare(-3, 2), 0);
  EXPECT_LT(ArithExpr::Compare(1000, M), 0);           // constants first
  EXPECT_LT(ArithExpr::Compare(M, N), 0);              // variables by name
  EXPECT_LT(ArithExpr::Compare(N, M + N), 0);          // then compound forms
  EXPECT_GT(ArithExpr::Compare(2 * N * M, M * N), 0);  // same factors: by coefficient
  EXPECT_EQ(ArithExpr::Compare(N * 784, 784 * N), 0);
}

TEST(ArithSimplify, HashAgreesWithEquality) {
  EXPECT_EQ((N * 784).Hash(), (784 * N).Hash());
  EXPECT_EQ(((N + 1) * 4).Hash(), (4 * N + 4).Hash());
  EXPECT_EQ(absl::Hash<ArithExpr>()(N - N), absl::Hash<ArithExpr>()(ArithExpr(0)));
  EXPECT_NE((N + 1).Hash(), (N + 2).Hash());
}

TEST(ArithSimplify, OverflowAndDivisionByZeroConstantAreBugs) {
  EXPECT_DEATH(N / 0, "check failed");
  EXPECT_DEATH(N % 0, "check failed");
  EXPECT_DEATH(ArithExpr(INT64_MAX) + 1, "overflow");
  EXPECT_DEATH(ArithExpr(int64_t{1} << 40) * (int64_t{1} << 40), "overflow");
}

TEST(ArithEvaluate, FloorSemantics) {
  const SizeBindings bindings = {{"N", 10}, {"M", 3}};
  EXPECT_EQ(*(N * 784).Evaluate(bindings), 7840);
  EXPECT_EQ(*((N + 15) / 16).Evaluate(bindings), 1);
  EXPECT_EQ(*(N % M).Evaluate(bindings), 1);
  EXPECT_EQ(*((M - N) / 4).Evaluate(bindings), -2);  // floor(-7/4)
  EXPECT_EQ(*((M - N) % 4).Evaluate(bindings), 1);   // -7 - 4*(-2)
  EXPECT_EQ(*ArithExpr(42).Evaluate({}), 42);
}

TEST(ArithEvaluate, Errors) {
  absl::StatusOr<int64_t> unbound = (N * M + 1).Evaluate({{"M", 2}});
  ASSERT_FALSE(unbound.ok());
  EXPECT_THAT(std::string(unbound.status().message()), HasSubstr("size variable N is not bound"));

  absl::StatusOr<int64_t> by_zero = (N / M).Evaluate({{"N", 4}, {"M", 0}});
  ASSERT_FALSE(by_zero.ok());
  EXPECT_THAT(std::string(by_zero.status().message()), HasSubstr("division by zero"));
  EXPECT_THAT(std::string(by_zero.status().message()), HasSubstr("N/M"));

  absl::StatusOr<int64_t> overflow = (N * N).Evaluate({{"N", int64_t{1} << 40}});
  ASSERT_FALSE(overflow.ok());
  EXPECT_THAT(std::string(overflow.status().message()), HasSubstr("overflow"));
}

TEST(ArithSubstitute, ReplacesAndSimplifies) {
  EXPECT_EQ((N * 4 + M).Substitute({{"N", M + 1}}), 5 * M + 4);
  EXPECT_EQ(((N + 15) / 16).Substitute({{"N", 16 * M}}), M);
  EXPECT_EQ((N % M).Substitute({{"N", 3}, {"M", 2}}), 1);
  EXPECT_EQ((N / 4 * 4).Substitute({{"N", 4 * i + 3}}), 4 * i);
  // Nothing to replace: the same node comes back.
  const ArithExpr e = (N + 15) / 16 * M;
  EXPECT_EQ(e.Substitute({{"X", N}}).Hash(), e.Hash());
}

TEST(ArithVariables, SortedWithoutRepeats) {
  EXPECT_THAT((N * M + (N + i) / 4).Variables(), ElementsAre("M", "N", "i"));
  EXPECT_TRUE(ArithExpr(3).Variables().empty());
}

TEST(ArithToString, ReadableForms) {
  EXPECT_EQ(ArithExpr(-5).ToString(), "-5");
  EXPECT_EQ(N.ToString(), "N");
  EXPECT_EQ((784 * N).ToString(), "N*784");
  EXPECT_EQ(((N + 15) / 16).ToString(), "(N + 15)/16");
  EXPECT_EQ((N % 4).ToString(), "N % 4");
  EXPECT_EQ((9 - i).ToString(), "9 - i");
  EXPECT_EQ((-i).ToString(), "-i");
  EXPECT_EQ((-i - 1).ToString(), "-i - 1");
  EXPECT_EQ((N - 2 * M).ToString(), "N - M*2");
  EXPECT_EQ((2 * N * M).ToString(), "M*N*2");
  EXPECT_EQ(((N + 15) / 16 * 16).ToString(), "(N + 15)/16*16");
  EXPECT_EQ((M * (N / 4)).ToString(), "M*(N/4)");
  EXPECT_EQ((N % 4 * 2).ToString(), "(N % 4)*2");
  EXPECT_EQ(((N / 4) % 8).ToString(), "(N/4) % 8");
  EXPECT_EQ((N / (M + 1)).ToString(), "N/(M + 1)");
  EXPECT_EQ(((N * M) / 4).ToString(), "(M*N)/4");
}

// Min and Max resolve where one side bounds the other (sizes are not negative) and are nodes
// elsewhere, with their operands in canonical order; a clamped index evaluates and substitutes.
TEST(ArithMinMax, ResolveWhereProvable) {
  EXPECT_EQ(ArithExpr::Max(N, 0), N);
  EXPECT_EQ(ArithExpr::Min(N, 0), ArithExpr(0));
  EXPECT_EQ(ArithExpr::Max(N + 1, N), N + 1);
  EXPECT_EQ(ArithExpr::Min(N + 1, N), N);
  EXPECT_EQ(ArithExpr::Min(3, 5), ArithExpr(3));
  EXPECT_EQ(ArithExpr::Min(N, M), ArithExpr::Min(M, N));
  EXPECT_EQ(ArithExpr::Max(i - 2, 0).ToString(), "max(0, i - 2)");
  const ArithExpr clamped = ArithExpr::Min(ArithExpr::Max(i - 2, 0), N - 1);
  EXPECT_EQ(clamped.kind(), ArithExpr::Kind::kMin);
  EXPECT_THAT(clamped.Variables(), ElementsAre("N", "i"));
  EXPECT_EQ(clamped.Evaluate({{"i", 9}, {"N", 5}}).value(), 4);
  EXPECT_EQ(clamped.Evaluate({{"i", 3}, {"N", 5}}).value(), 1);
  EXPECT_EQ(clamped.Evaluate({{"i", 0}, {"N", 5}}).value(), 0);
  EXPECT_EQ(clamped.Substitute({{"i", N + 8}}), N - 1);  // max(0, N + 6) = N + 6 >= N - 1
  // min(0, N - 1) stays: N - 1 is -1 where N is 0.
  EXPECT_EQ(clamped.Substitute({{"i", 1}}).kind(), ArithExpr::Kind::kMin);
  EXPECT_EQ(clamped.Substitute({{"i", 1}}).Evaluate({{"N", 0}}).value(), -1);
}

// What the code generator relies on to print C's / and % for floor division.
TEST(ArithMinMax, ProvablyNonNegative) {
  EXPECT_TRUE(ProvablyNonNegative(N * M + 3));
  EXPECT_TRUE(ProvablyNonNegative(N / M));
  EXPECT_TRUE(ProvablyNonNegative((i - 2) % 4));
  EXPECT_TRUE(ProvablyNonNegative(ArithExpr::Max(i - 2, 0)));
  EXPECT_TRUE(ProvablyNonNegative(ArithExpr::Min(N, M)));
  EXPECT_FALSE(ProvablyNonNegative(i - 2));
  EXPECT_FALSE(ProvablyNonNegative(ArithExpr::Min(i, N - 1)));  // N may be 0
  EXPECT_FALSE(ProvablyNonNegative(-1 * N));
}

TEST(ArithShape, Helpers) {
  const SymbolicShape shape = {N, 784};
  EXPECT_EQ(ShapeToString(shape), "[N,784]");
  EXPECT_EQ(ShapeToString(SymbolicShape{}), "[]");
  EXPECT_EQ(NumElements(shape), 784 * N);
  EXPECT_EQ(NumElements(SymbolicShape{}), 1);
  EXPECT_EQ(ConstantShape(shape), std::nullopt);
  EXPECT_EQ(ConstantShape(ToSymbolic({2, 3})), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(ToSymbolic({2, 3}), (SymbolicShape{2, 3}));
}

// --- Random expressions: simplification never changes a value --------------------------------

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a % b < 0) != (b < 0))) --q;
  return q;
}

int64_t FloorMod(int64_t a, int64_t b) { return a - b * FloorDiv(a, b); }

// An expression built through the simplifier, the same operations evaluated directly, and the
// text of those operations for failure messages.
struct RandomExpr {
  ArithExpr expr;
  std::function<int64_t(int64_t n, int64_t m)> eval;
  std::string text;
};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  // At most 16 leaves of magnitude at most 10, so no value comes near 2^63.
  RandomExpr Make(int depth) {
    if (depth == 0 || Pick(4) == 0) return Leaf();
    RandomExpr a = Make(depth - 1);
    switch (Pick(9)) {
      case 0:
      case 1: {
        RandomExpr b = Make(depth - 1);
        return {a.expr + b.expr, [=](int64_t n, int64_t m) { return a.eval(n, m) + b.eval(n, m); },
                "(" + a.text + " + " + b.text + ")"};
      }
      case 2: {
        RandomExpr b = Make(depth - 1);
        return {a.expr - b.expr, [=](int64_t n, int64_t m) { return a.eval(n, m) - b.eval(n, m); },
                "(" + a.text + " - " + b.text + ")"};
      }
      case 3: {
        RandomExpr b = Make(depth - 1);
        return {a.expr * b.expr, [=](int64_t n, int64_t m) { return a.eval(n, m) * b.eval(n, m); },
                "(" + a.text + " * " + b.text + ")"};
      }
      case 4:
      case 5: {
        const int64_t c = 1 + Pick(8);
        return {a.expr / c, [=](int64_t n, int64_t m) { return FloorDiv(a.eval(n, m), c); },
                "(" + a.text + " // " + std::to_string(c) + ")"};
      }
      case 6: {
        const int64_t c = 1 + Pick(8);
        return {a.expr % c, [=](int64_t n, int64_t m) { return FloorMod(a.eval(n, m), c); },
                "(" + a.text + " % " + std::to_string(c) + ")"};
      }
      case 7: {
        RandomExpr b = Make(depth - 1);
        const bool min = Pick(2) == 0;
        return {min ? ArithExpr::Min(a.expr, b.expr) : ArithExpr::Max(a.expr, b.expr),
                [=](int64_t n, int64_t m) {
                  return min ? std::min(a.eval(n, m), b.eval(n, m))
                             : std::max(a.eval(n, m), b.eval(n, m));
                },
                (min ? "min(" : "max(") + a.text + ", " + b.text + ")"};
      }
      default: {
        // A divisor with a variable in it, never zero on non-negative bindings.
        const bool div = Pick(2) == 0;
        return {div ? a.expr / (M + 1) : a.expr % (M + 1),
                [=](int64_t n, int64_t m) {
                  return div ? FloorDiv(a.eval(n, m), m + 1) : FloorMod(a.eval(n, m), m + 1);
                },
                "(" + a.text + (div ? " // " : " % ") + "(M + 1))"};
      }
    }
  }

  int64_t Pick(int64_t n) { return static_cast<int64_t>(rng_() % static_cast<uint64_t>(n)); }

 private:
  RandomExpr Leaf() {
    switch (Pick(3)) {
      case 0:
        return {N, [](int64_t n, int64_t) { return n; }, "N"};
      case 1:
        return {M, [](int64_t, int64_t m) { return m; }, "M"};
      default: {
        const int64_t c = Pick(9) - 3;
        return {c, [=](int64_t, int64_t) { return c; }, std::to_string(c)};
      }
    }
  }

  std::mt19937_64 rng_;
};

// The checked forms agree with the operators where those succeed and say where a coefficient
// would overflow, symbolic ones included; a shape with a 0 has 0 elements however large the rest.
TEST(ArithChecked, OverflowIsNulloptNotAnAbort) {
  constexpr int64_t kBig = int64_t{1} << 40;
  EXPECT_EQ(CheckedMul(N + 1, 784), (N + 1) * 784);
  EXPECT_EQ(CheckedAdd(4 * N, N), 5 * N);
  EXPECT_EQ(CheckedMul(kBig, kBig), std::nullopt);
  EXPECT_EQ(CheckedMul(kBig * N, kBig), std::nullopt);
  EXPECT_EQ(CheckedMul(N + kBig * M, N + kBig * M), std::nullopt);  // the M*M term: 2^80
  EXPECT_EQ(CheckedAdd(std::numeric_limits<int64_t>::max(), 1), std::nullopt);
  EXPECT_EQ(CheckedAdd(std::numeric_limits<int64_t>::max() * N, N), std::nullopt);
  EXPECT_EQ(CheckedNumElements({N, 784}), N * 784);
  EXPECT_EQ(CheckedNumElements({kBig, kBig}), std::nullopt);
  EXPECT_EQ(CheckedNumElements({kBig, kBig, 0}), ArithExpr(0));
  EXPECT_EQ(CheckedNumElements({}), ArithExpr(1));
}

TEST(ArithRandom, SimplifyingKeepsTheValue) {
  Generator gen(20240611);
  const ArithExpr x = ArithExpr::Var("X");
  for (int trial = 0; trial < 3000; ++trial) {
    const RandomExpr r = gen.Make(4);
    SCOPED_TRACE(r.text + " => " + r.expr.ToString());
    for (int b = 0; b < 6; ++b) {
      const int64_t n = gen.Pick(11), m = gen.Pick(11);
      absl::StatusOr<int64_t> value = r.expr.Evaluate({{"N", n}, {"M", m}});
      ASSERT_TRUE(value.ok()) << value.status();
      ASSERT_EQ(*value, r.eval(n, m)) << "N=" << n << " M=" << m;
    }
    // The canonical form is a fixed point: rebuilding it through the factories gives it back.
    const ArithExpr rebuilt = r.expr.Substitute({{"N", x}}).Substitute({{"X", N}});
    ASSERT_EQ(rebuilt, r.expr) << rebuilt.ToString();
    ASSERT_EQ(rebuilt.Hash(), r.expr.Hash());
  }
}

}  // namespace
}  // namespace dfc

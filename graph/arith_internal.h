// Pieces shared by the files of ArithExpr (arith.cc, the simplifier; arith_eval.cc, ranges,
// evaluation and printing): the node representation and the floor-division and range
// helpers both use. Private to those two files.
#ifndef DFC_GRAPH_ARITH_INTERNAL_H_
#define DFC_GRAPH_ARITH_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/arith.h"

namespace dfc {

using Kind = ArithExpr::Kind;

struct ArithExpr::Rep {
  Kind kind;
  int64_t value = 0;                // kConst: the value; kProd: the coefficient
  std::string name;                 // kVar
  std::vector<ArithExpr> operands;  // kSum: terms; kProd: factors; kDiv, kMod, kMin, kMax: {a, b}
  size_t hash = 0;
};

namespace arith_internal {

// Python's `//` and `%`; std::nullopt for a zero divisor or a quotient that overflows.
std::optional<int64_t> FloorDiv(int64_t a, int64_t b);
std::optional<int64_t> FloorMod(int64_t a, int64_t b);

// `e`'s value when it is a constant above 0.
std::optional<int64_t> PositiveConstant(const ArithExpr& e);

// Whether `e` provably lies in [lo, hi] (variables are sizes, hence non-negative).
bool InRange(const ArithExpr& e, int64_t lo, int64_t hi);

}  // namespace arith_internal
}  // namespace dfc

#endif  // DFC_GRAPH_ARITH_INTERNAL_H_

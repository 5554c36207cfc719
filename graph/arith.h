// ArithExpr: integer arithmetic over size variables (`N`, `N*784`, `(N+15)/16`), kept in a
// canonical form so that two equal lengths compare equal. Array lengths in the IR, symbolic
// tensor shapes in the graph and the index functions of view patterns are all ArithExprs.
//
// Canonical form (built by the factories, never by hand):
//   - a constant is kConst; a variable is kVar;
//   - a product is kProd: a non-zero integer coefficient times factors sorted by Compare,
//     each a kVar, kDiv or kMod (no nested products, coefficient 1 stored explicitly);
//   - a sum is kSum: terms sorted by Compare with like terms merged, constant last;
//   - a/b and a%b are kDiv/kMod only when they cannot be simplified away;
//   - min(a, b) and max(a, b) are kMin/kMax, operands sorted, only when neither side provably
//     bounds the other.
// Division and modulo are floor division and the matching non-negative remainder (Python's
// `//` and `%`), the only definitions under which (a*c + r)/c == a for 0 <= r < c holds for
// every integer a. Size variables stand for non-negative integers.
#ifndef DFC_GRAPH_ARITH_H_
#define DFC_GRAPH_ARITH_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfc {

class ArithExpr;
using SizeBindings = absl::flat_hash_map<std::string, int64_t>;

class ArithExpr {
 public:
  enum class Kind { kConst, kVar, kSum, kProd, kDiv, kMod, kMin, kMax };

  ArithExpr() : ArithExpr(int64_t{0}) {}
  ArithExpr(int64_t value);  // NOLINT: constants convert implicitly, as in `n * 4 + 1`
  ArithExpr(int value) : ArithExpr(int64_t{value}) {}  // NOLINT
  static ArithExpr Var(absl::string_view name);

  friend ArithExpr operator+(const ArithExpr& a, const ArithExpr& b);
  friend ArithExpr operator-(const ArithExpr& a, const ArithExpr& b);
  friend ArithExpr operator-(const ArithExpr& a);
  friend ArithExpr operator*(const ArithExpr& a, const ArithExpr& b);
  // Floor division and modulo. Division by the constant 0 is a caller bug (checked).
  friend ArithExpr operator/(const ArithExpr& a, const ArithExpr& b);
  friend ArithExpr operator%(const ArithExpr& a, const ArithExpr& b);
  // (a + b - 1) / b
  static ArithExpr CeilDiv(const ArithExpr& a, const ArithExpr& b);
  // The lesser and the greater of a and b: the side that provably bounds the other, else a
  // kMin/kMax node (an index clamped to an array's bounds).
  static ArithExpr Min(const ArithExpr& a, const ArithExpr& b);
  static ArithExpr Max(const ArithExpr& a, const ArithExpr& b);

  Kind kind() const;
  bool is_constant() const { return kind() == Kind::kConst; }
  // The value of a constant; std::nullopt for anything with a variable in it.
  std::optional<int64_t> AsConstant() const;
  // The name of a kVar.
  const std::string& var_name() const;
  // Operands: terms of a sum, factors of a product (without the coefficient), {a, b} of a
  // division or modulo; empty for constants and variables.
  const std::vector<ArithExpr>& operands() const;
  // The coefficient of a product (1 for anything else that is not a constant).
  int64_t coefficient() const;

  // The value under `bindings`; an error names the first unbound variable or a division by
  // zero.
  absl::StatusOr<int64_t> Evaluate(const SizeBindings& bindings) const;
  // Replaces variables by expressions and simplifies.
  ArithExpr Substitute(const absl::flat_hash_map<std::string, ArithExpr>& values) const;
  // Variable names, sorted, without repeats.
  std::vector<std::string> Variables() const;

  // "N*784", "(N + 15)/16", "N % 4", "-1*i + 9" is printed "9 - i".
  std::string ToString() const;

  // Structural equality of canonical forms: true proves equality for every binding; false
  // means the simplifier could not prove it.
  friend bool operator==(const ArithExpr& a, const ArithExpr& b) { return Compare(a, b) == 0; }
  friend bool operator!=(const ArithExpr& a, const ArithExpr& b) { return Compare(a, b) != 0; }
  // A total order: constants first (by value), then variables (by name), then compound forms.
  static int Compare(const ArithExpr& a, const ArithExpr& b);

  template <typename H>
  friend H AbslHashValue(H h, const ArithExpr& e) {
    return H::combine(std::move(h), e.Hash());
  }
  size_t Hash() const;

  struct Rep;

 private:
  explicit ArithExpr(std::shared_ptr<const Rep> rep) : rep_(std::move(rep)) {}
  friend struct ArithBuilder;
  std::shared_ptr<const Rep> rep_;
};

// a + b and a * b, or std::nullopt where a coefficient overflows int64. The operators treat
// an overflow as dfc's bug and abort; sizes a graph supplies go through these, so that an
// absurd shape in the input is an error naming its node.
std::optional<ArithExpr> CheckedAdd(const ArithExpr& a, const ArithExpr& b);
// Whether `e` is non-negative for every value of its variables (sizes, never negative), as far
// as its bounds prove.
bool ProvablyNonNegative(const ArithExpr& e);
std::optional<ArithExpr> CheckedMul(const ArithExpr& a, const ArithExpr& b);

// A tensor shape whose dimensions may be symbolic.
using SymbolicShape = std::vector<ArithExpr>;

// "[N,784]"
std::string ShapeToString(const SymbolicShape& shape);
// The product of the dimensions (1 for a scalar, 0 when one is 0, however large the others).
ArithExpr NumElements(const SymbolicShape& shape);
// NumElements, or std::nullopt where the count overflows int64 (0 when a dimension is 0,
// however large the others).
std::optional<ArithExpr> CheckedNumElements(const SymbolicShape& shape);
// The dimensions' values once their size variables are bound: an error for one left unbound.
// Evaluates each dimension; cheaper than evaluating NumElements(shape), which is simplified
// symbolically first.
absl::StatusOr<std::vector<int64_t>> EvaluateShape(const SymbolicShape& shape,
                                                   const SizeBindings& sizes);
// All dimensions constant: their values.
std::optional<std::vector<int64_t>> ConstantShape(const SymbolicShape& shape);
SymbolicShape ToSymbolic(const std::vector<int64_t>& dims);

}  // namespace dfc

#endif  // DFC_GRAPH_ARITH_H_

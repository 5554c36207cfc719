// ArithExpr's value ranges, accessors, evaluation, printing and order, and the shape helpers
// (see arith.h).
#include <algorithm>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/arith.h"
#include "graph/arith_internal.h"

namespace dfc {
namespace arith_internal {

// Python's `//` and `%`; std::nullopt for a zero divisor or a quotient that overflows.
std::optional<int64_t> FloorDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return std::nullopt;
  int64_t q = a / b;
  if (a % b != 0 && ((a % b < 0) != (b < 0))) --q;
  return q;
}

std::optional<int64_t> FloorMod(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

std::optional<int64_t> PositiveConstant(const ArithExpr& e) {
  std::optional<int64_t> c = e.AsConstant();
  if (c && *c > 0) return c;
  return std::nullopt;
}

}  // namespace arith_internal

namespace {

using arith_internal::FloorDiv;
using arith_internal::FloorMod;
using arith_internal::PositiveConstant;

// --- Value ranges -----------------------------------------------------------------------------
// Bounds (std::nullopt: unbounded) that prove x/c == 0 and x%c == x when 0 <= x < c. Variables
// are sizes, hence non-negative.

struct Range {
  std::optional<int64_t> lo, hi;
};

std::optional<int64_t> AddBound(std::optional<int64_t> a, std::optional<int64_t> b) {
  int64_t r;
  if (!a || !b || __builtin_add_overflow(*a, *b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> MulBound(std::optional<int64_t> a, int64_t b) {
  int64_t r;
  if (!a || __builtin_mul_overflow(*a, b, &r)) return std::nullopt;
  return r;
}

Range Scale(const Range& r, int64_t c) {
  if (c == 0) return {0, 0};
  if (c > 0) return {MulBound(r.lo, c), MulBound(r.hi, c)};
  return {MulBound(r.hi, c), MulBound(r.lo, c)};
}

Range MulRange(const Range& a, const Range& b) {
  if (a.lo && a.lo == a.hi) return Scale(b, *a.lo);
  if (b.lo && b.lo == b.hi) return Scale(a, *b.lo);
  if (a.lo && a.hi && b.lo && b.hi) {
    Range r{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
    for (int64_t x : {*a.lo, *a.hi}) {
      for (int64_t y : {*b.lo, *b.hi}) {
        int64_t p;
        if (__builtin_mul_overflow(x, y, &p)) return {};
        r.lo = std::min(*r.lo, p);
        r.hi = std::max(*r.hi, p);
      }
    }
    return r;
  }
  // A missing lower bound compares below every number, so these also say "bounded below".
  if (a.lo >= 0 && b.lo >= 0) return {0, std::nullopt};
  return {};
}

Range RangeOf(const ArithExpr& e) {
  switch (e.kind()) {
    case Kind::kConst:
      return {e.AsConstant(), e.AsConstant()};
    case Kind::kVar:
      return {0, std::nullopt};
    case Kind::kSum: {
      Range r{0, 0};
      for (const ArithExpr& t : e.operands()) {
        const Range tr = RangeOf(t);
        r = {AddBound(r.lo, tr.lo), AddBound(r.hi, tr.hi)};
      }
      return r;
    }
    case Kind::kProd: {
      Range r{e.coefficient(), e.coefficient()};
      for (const ArithExpr& f : e.operands()) r = MulRange(r, RangeOf(f));
      return r;
    }
    case Kind::kDiv: {
      const Range x = RangeOf(e.operands()[0]);
      if (const std::optional<int64_t> c = PositiveConstant(e.operands()[1])) {
        return {x.lo ? FloorDiv(*x.lo, *c) : std::nullopt,
                x.hi ? FloorDiv(*x.hi, *c) : std::nullopt};
      }
      // A divisor that is not negative is positive wherever the division is defined.
      const Range b = RangeOf(e.operands()[1]);
      if (x.lo >= 0 && b.lo >= 0) return {0, x.hi};
      return {};
    }
    case Kind::kMod: {
      if (const std::optional<int64_t> c = PositiveConstant(e.operands()[1])) return {0, *c - 1};
      const Range b = RangeOf(e.operands()[1]);
      if (b.lo >= 0) return {0, AddBound(b.hi, -1)};
      return {};
    }
    case Kind::kMin:
    case Kind::kMax: {
      const Range a = RangeOf(e.operands()[0]);
      const Range b = RangeOf(e.operands()[1]);
      // min(a, b) is below both upper bounds, so one known is enough; its lower bound needs
      // both (a missing one is unbounded). max(a, b) is the mirror image.
      using Bound = std::optional<int64_t>;
      const auto both = [](Bound x, Bound y,
                           const int64_t& (*pick)(const int64_t&, const int64_t&)) -> Bound {
        return x && y ? Bound(pick(*x, *y)) : std::nullopt;
      };
      const auto either = [](Bound x, Bound y,
                             const int64_t& (*pick)(const int64_t&, const int64_t&)) -> Bound {
        return x && y ? Bound(pick(*x, *y)) : (x ? x : y);
      };
      if (e.kind() == Kind::kMin) {
        return {both(a.lo, b.lo, std::min<int64_t>), either(a.hi, b.hi, std::min<int64_t>)};
      }
      return {either(a.lo, b.lo, std::max<int64_t>), both(a.hi, b.hi, std::max<int64_t>)};
    }
  }
  return {};
}

}  // namespace

namespace arith_internal {

bool InRange(const ArithExpr& e, int64_t lo, int64_t hi) {
  const Range r = RangeOf(e);
  return r.lo && *r.lo >= lo && r.hi && *r.hi <= hi;
}

}  // namespace arith_internal

namespace {

// --- Printing ---------------------------------------------------------------------------------

bool IsLeaf(const ArithExpr& e) { return e.kind() == Kind::kConst || e.kind() == Kind::kVar; }

std::string Parenthesized(const ArithExpr& e, bool parens) {
  return parens ? absl::StrCat("(", e.ToString(), ")") : e.ToString();
}

std::string Magnitude(int64_t v) {
  std::string s = absl::StrCat(v);
  return v < 0 ? s.substr(1) : s;
}

// A term of a sum without its sign, and whether it is negative.
std::pair<bool, std::string> UnsignedTerm(const ArithExpr& t) {
  if (t.kind() == Kind::kConst) return {*t.AsConstant() < 0, Magnitude(*t.AsConstant())};
  if (t.kind() != Kind::kProd) return {false, t.ToString()};
  std::vector<std::string> parts;
  for (size_t i = 0; i < t.operands().size(); ++i) {
    const ArithExpr& f = t.operands()[i];
    // `%` binds like `*`, so a modulo factor always gets parentheses; a division only when
    // something stands to its left (M*(N/4) is not M*N/4).
    parts.push_back(Parenthesized(f, f.kind() == Kind::kMod || (f.kind() == Kind::kDiv && i > 0)));
  }
  const int64_t c = t.coefficient();
  if (c != 1 && c != -1) parts.push_back(Magnitude(c));
  return {c < 0, absl::StrJoin(parts, "*")};
}

}  // namespace

bool ProvablyNonNegative(const ArithExpr& e) { return RangeOf(e).lo >= 0; }

ArithExpr::Kind ArithExpr::kind() const { return rep_->kind; }

std::optional<int64_t> ArithExpr::AsConstant() const {
  if (rep_->kind != Kind::kConst) return std::nullopt;
  return rep_->value;
}

const std::string& ArithExpr::var_name() const {
  DFC_CHECK(rep_->kind == Kind::kVar);
  return rep_->name;
}

const std::vector<ArithExpr>& ArithExpr::operands() const { return rep_->operands; }

// A constant is its own coefficient (the coefficient of the empty product).
int64_t ArithExpr::coefficient() const {
  return rep_->kind == Kind::kProd || rep_->kind == Kind::kConst ? rep_->value : 1;
}

absl::StatusOr<int64_t> ArithExpr::Evaluate(const SizeBindings& bindings) const {
  const auto overflow = [&] {
    return absl::InvalidArgumentError(absl::StrCat("int64 overflow evaluating ", ToString()));
  };
  switch (rep_->kind) {
    case Kind::kConst:
      return rep_->value;
    case Kind::kVar: {
      const auto it = bindings.find(rep_->name);
      if (it == bindings.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("size variable ", rep_->name, " is not bound"));
      }
      return it->second;
    }
    case Kind::kSum:
    case Kind::kProd: {
      const bool sum = rep_->kind == Kind::kSum;
      int64_t total = sum ? 0 : rep_->value;
      for (const ArithExpr& op : rep_->operands) {
        DFC_ASSIGN_OR_RETURN(const int64_t v, op.Evaluate(bindings));
        const bool overflowed = sum ? __builtin_add_overflow(total, v, &total)
                                    : __builtin_mul_overflow(total, v, &total);
        if (overflowed) return overflow();
      }
      return total;
    }
    case Kind::kDiv:
    case Kind::kMod: {
      DFC_ASSIGN_OR_RETURN(const int64_t a, rep_->operands[0].Evaluate(bindings));
      DFC_ASSIGN_OR_RETURN(const int64_t b, rep_->operands[1].Evaluate(bindings));
      if (b == 0) {
        return absl::InvalidArgumentError(absl::StrCat("division by zero evaluating ", ToString(),
                                                       ": ", rep_->operands[1].ToString(),
                                                       " is 0"));
      }
      const std::optional<int64_t> r = rep_->kind == Kind::kDiv ? FloorDiv(a, b) : FloorMod(a, b);
      if (!r) return overflow();
      return *r;
    }
    case Kind::kMin:
    case Kind::kMax: {
      DFC_ASSIGN_OR_RETURN(const int64_t a, rep_->operands[0].Evaluate(bindings));
      DFC_ASSIGN_OR_RETURN(const int64_t b, rep_->operands[1].Evaluate(bindings));
      return rep_->kind == Kind::kMin ? std::min(a, b) : std::max(a, b);
    }
  }
  return absl::InternalError("unknown ArithExpr kind");
}

std::vector<std::string> ArithExpr::Variables() const {
  std::vector<std::string> names;
  if (rep_->kind == Kind::kVar) names.push_back(rep_->name);
  for (const ArithExpr& op : rep_->operands) {
    std::vector<std::string> inner = op.Variables();
    names.insert(names.end(), inner.begin(), inner.end());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string ArithExpr::ToString() const {
  const std::vector<ArithExpr>& ops = rep_->operands;
  switch (rep_->kind) {
    case Kind::kConst:
      return absl::StrCat(rep_->value);
    case Kind::kVar:
      return rep_->name;
    case Kind::kProd: {
      auto [negative, text] = UnsignedTerm(*this);
      return negative ? absl::StrCat("-", text) : text;
    }
    case Kind::kSum: {
      // Positive terms first, so that -1*i + 9 reads "9 - i".
      std::vector<std::string> positive, negative;
      for (const ArithExpr& t : ops) {
        auto [is_negative, text] = UnsignedTerm(t);
        (is_negative ? negative : positive).push_back(std::move(text));
      }
      std::string out = absl::StrJoin(positive, " + ");
      for (const std::string& text : negative) {
        out = out.empty() ? absl::StrCat("-", text) : absl::StrCat(out, " - ", text);
      }
      return out;
    }
    case Kind::kDiv: {
      const Kind lhs = ops[0].kind();
      return absl::StrCat(
          Parenthesized(ops[0], lhs == Kind::kSum || lhs == Kind::kProd || lhs == Kind::kMod), "/",
          Parenthesized(ops[1], !IsLeaf(ops[1])));
    }
    case Kind::kMod:
      return absl::StrCat(Parenthesized(ops[0], !IsLeaf(ops[0])), " % ",
                          Parenthesized(ops[1], !IsLeaf(ops[1])));
    case Kind::kMin:
    case Kind::kMax:
      return absl::StrCat(rep_->kind == Kind::kMin ? "min(" : "max(", ops[0].ToString(), ", ",
                          ops[1].ToString(), ")");
  }
  return "?";
}

int ArithExpr::Compare(const ArithExpr& a, const ArithExpr& b) {
  if (a.rep_ == b.rep_) return 0;
  const Rep& x = *a.rep_;
  const Rep& y = *b.rep_;
  if (x.kind != y.kind) return x.kind < y.kind ? -1 : 1;
  if (x.kind == Kind::kVar) {
    const int c = x.name.compare(y.name);
    return (c > 0) - (c < 0);
  }
  const size_t n = std::min(x.operands.size(), y.operands.size());
  for (size_t i = 0; i < n; ++i) {
    if (const int c = Compare(x.operands[i], y.operands[i]); c != 0) return c;
  }
  if (x.operands.size() != y.operands.size()) return x.operands.size() < y.operands.size() ? -1 : 1;
  return (x.value > y.value) - (x.value < y.value);
}

size_t ArithExpr::Hash() const { return rep_->hash; }

// --- Shapes -----------------------------------------------------------------------------------

std::string ShapeToString(const SymbolicShape& shape) {
  return absl::StrCat("[",
                      absl::StrJoin(shape, ",",
                                    [](std::string* out, const ArithExpr& d) {
                                      absl::StrAppend(out, d.ToString());
                                    }),
                      "]");
}

absl::StatusOr<std::vector<int64_t>> EvaluateShape(const SymbolicShape& shape,
                                                   const SizeBindings& sizes) {
  std::vector<int64_t> dims;
  dims.reserve(shape.size());
  for (const ArithExpr& d : shape) {
    absl::StatusOr<int64_t> n = d.Evaluate(sizes);
    if (!n.ok()) return n.status();
    dims.push_back(*n);
  }
  return dims;
}

ArithExpr NumElements(const SymbolicShape& shape) {
  std::optional<ArithExpr> n = CheckedNumElements(shape);
  DFC_CHECK(n.has_value() && "int64 overflow in size arithmetic");
  return *std::move(n);
}

std::optional<ArithExpr> CheckedNumElements(const SymbolicShape& shape) {
  if (std::any_of(shape.begin(), shape.end(),
                  [](const ArithExpr& d) { return d.AsConstant() == 0; })) {
    return ArithExpr(0);
  }
  ArithExpr n = 1;
  for (const ArithExpr& d : shape) {
    std::optional<ArithExpr> next = CheckedMul(n, d);
    if (!next) return std::nullopt;
    n = *std::move(next);
  }
  return n;
}

std::optional<std::vector<int64_t>> ConstantShape(const SymbolicShape& shape) {
  std::vector<int64_t> dims;
  for (const ArithExpr& d : shape) {
    const std::optional<int64_t> v = d.AsConstant();
    if (!v) return std::nullopt;
    dims.push_back(*v);
  }
  return dims;
}

SymbolicShape ToSymbolic(const std::vector<int64_t>& dims) {
  return SymbolicShape(dims.begin(), dims.end());
}

}  // namespace dfc

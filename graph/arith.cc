// ArithExpr: the canonical form of integer size arithmetic and the simplifier that keeps every
// expression in it. Sums and products are normalised through a polynomial over atoms (variables,
// divisions, modulos), so that equal polynomials print and compare the same; divisions and
// modulos by constants are reduced with the floor-division laws that hold for every integer.
#include "graph/arith.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

#include "absl/hash/hash.h"
#include "base/check.h"
#include "graph/arith_internal.h"

namespace dfc {

// The only place that creates Reps: the factories below decide what is canonical.
struct ArithBuilder {
  static std::shared_ptr<const ArithExpr::Rep> MakeRep(Kind kind, int64_t value,
                                                       absl::string_view name,
                                                       std::vector<ArithExpr> operands) {
    auto rep = std::make_shared<ArithExpr::Rep>();
    rep->kind = kind;
    rep->value = value;
    rep->name = std::string(name);
    size_t hash = absl::Hash<std::tuple<int, int64_t, absl::string_view>>()(
        std::make_tuple(static_cast<int>(kind), value, name));
    for (const ArithExpr& op : operands) {
      hash = absl::Hash<std::pair<size_t, size_t>>()({hash, op.Hash()});
    }
    rep->hash = hash;
    rep->operands = std::move(operands);
    return rep;
  }
  static ArithExpr Make(Kind kind, int64_t value, std::vector<ArithExpr> operands) {
    return ArithExpr(MakeRep(kind, value, "", std::move(operands)));
  }
  static ArithExpr MakeVar(absl::string_view name) {
    return ArithExpr(MakeRep(Kind::kVar, 0, name, {}));
  }
};

namespace {

using arith_internal::FloorDiv;
using arith_internal::FloorMod;
using arith_internal::InRange;
using arith_internal::PositiveConstant;

// Constant arithmetic in the simplifier: sizes never come near 2^63 (those a graph supplies
// are checked by CheckedAdd and CheckedMul first), so an overflow is a bug in the caller, and
// wrapping silently would give a wrong size.
int64_t Mul64(int64_t a, int64_t b) {
  int64_t r;
  const bool overflow = __builtin_mul_overflow(a, b, &r);
  DFC_CHECK(!overflow && "int64 overflow in size arithmetic");
  return r;
}

bool Less(const ArithExpr& a, const ArithExpr& b) { return ArithExpr::Compare(a, b) < 0; }

// --- Polynomials over atoms -------------------------------------------------------------------
// A monomial is a sorted list of atoms (kVar, kDiv, kMod; repeats allowed), the empty monomial
// being the constant term. A polynomial maps monomials to non-zero coefficients.

using Monomial = std::vector<ArithExpr>;

struct MonomialLess {
  bool operator()(const Monomial& a, const Monomial& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), Less);
  }
};

using Poly = std::map<Monomial, int64_t, MonomialLess>;

// p += k·m; false when the coefficient overflows int64 (p is then left in part updated).
[[nodiscard]] bool TryAddTerm(Poly& p, const Monomial& m, int64_t k) {
  if (k == 0) return true;
  auto [it, inserted] = p.try_emplace(m, k);
  if (inserted) return true;
  if (__builtin_add_overflow(it->second, k, &it->second)) return false;
  if (it->second == 0) p.erase(it);
  return true;
}

void AddTerm(Poly& p, const Monomial& m, int64_t k) {
  DFC_CHECK(TryAddTerm(p, m, k) && "int64 overflow in size arithmetic");
}

// p += k·q; false on overflow.
[[nodiscard]] bool TryAddScaled(Poly& p, const Poly& q, int64_t k) {
  for (const auto& [m, c] : q) {
    int64_t ck;
    if (__builtin_mul_overflow(c, k, &ck) || !TryAddTerm(p, m, ck)) return false;
  }
  return true;
}

void AddScaled(Poly& p, const Poly& q, int64_t k) {
  DFC_CHECK(TryAddScaled(p, q, k) && "int64 overflow in size arithmetic");
}

// A term of a sum (anything but a sum) as coefficient times monomial.
std::pair<Monomial, int64_t> AsTerm(const ArithExpr& e) {
  switch (e.kind()) {
    case Kind::kConst:
      return {{}, *e.AsConstant()};
    case Kind::kProd:
      return {e.operands(), e.coefficient()};
    case Kind::kSum:
      DFC_CHECK(false && "a sum is not a term");
      return {};
    default:
      return {{e}, 1};
  }
}

Poly ToPoly(const ArithExpr& e) {
  Poly p;
  if (e.kind() == Kind::kSum) {
    for (const ArithExpr& t : e.operands()) {
      auto [m, k] = AsTerm(t);
      AddTerm(p, m, k);
    }
  } else {
    auto [m, k] = AsTerm(e);
    AddTerm(p, m, k);
  }
  return p;
}

// a·b; std::nullopt when a coefficient overflows int64.
std::optional<Poly> TryMulPoly(const Poly& a, const Poly& b) {
  Poly p;
  for (const auto& [ma, ka] : a) {
    for (const auto& [mb, kb] : b) {
      Monomial m;
      m.reserve(ma.size() + mb.size());
      std::merge(ma.begin(), ma.end(), mb.begin(), mb.end(), std::back_inserter(m), Less);
      int64_t k;
      if (__builtin_mul_overflow(ka, kb, &k) || !TryAddTerm(p, m, k)) return std::nullopt;
    }
  }
  return p;
}

Poly MulPoly(const Poly& a, const Poly& b) {
  std::optional<Poly> p = TryMulPoly(a, b);
  DFC_CHECK(p.has_value() && "int64 overflow in size arithmetic");
  return *std::move(p);
}

// (ma, ka) / (mb, kb) when it divides exactly as monomials: kb divides ka and mb is a
// sub-multiset of ma.
std::optional<std::pair<Monomial, int64_t>> DivideTerm(const Monomial& ma, int64_t ka,
                                                       const Monomial& mb, int64_t kb) {
  if (kb == 0 || (kb == -1 && ka == std::numeric_limits<int64_t>::min())) return std::nullopt;
  if (ka % kb != 0) return std::nullopt;
  Monomial rest;
  size_t j = 0;
  for (const ArithExpr& f : ma) {
    if (j < mb.size() && f == mb[j]) {
      ++j;
    } else {
      rest.push_back(f);
    }
  }
  if (j != mb.size()) return std::nullopt;
  return std::make_pair(std::move(rest), ka / kb);
}

ArithExpr BuildTerm(const Monomial& m, int64_t k) {
  if (m.empty()) return ArithExpr(k);
  if (k == 1 && m.size() == 1) return m[0];
  return ArithBuilder::Make(Kind::kProd, k, m);
}

// Sum laws that remove a division and a modulo of the same expression:
//   x/c*c*k + x%c*k => x*k                      (floor division's defining identity)
//   (x/c)%d*c*k + x%c*k => x%(c*d)*k            (mixed radix: two digits make one)
// Applies one of them; false when none applies.
bool ApplyRadixLaw(Poly& p) {
  for (const auto& [m, k] : p) {
    if (m.size() != 1 || m[0].kind() != Kind::kMod) continue;
    const ArithExpr mod = m[0];
    const ArithExpr& x = mod.operands()[0];
    const std::optional<int64_t> c = PositiveConstant(mod.operands()[1]);
    if (!c) continue;
    const int64_t k_mod = k;
    int64_t k_div;
    if (__builtin_mul_overflow(k_mod, *c, &k_div)) continue;
    for (const auto& [m2, k2] : p) {
      if (m2.size() != 1 || k2 != k_div) continue;
      const ArithExpr other = m2[0];
      Poly replacement;
      if (other.kind() == Kind::kDiv && other.operands()[0] == x &&
          other.operands()[1] == mod.operands()[1]) {
        replacement = ToPoly(x);
      } else if (other.kind() == Kind::kMod && other.operands()[0].kind() == Kind::kDiv &&
                 other.operands()[0].operands()[0] == x &&
                 other.operands()[0].operands()[1] == mod.operands()[1]) {
        const std::optional<int64_t> d = PositiveConstant(other.operands()[1]);
        int64_t cd;
        if (!d || __builtin_mul_overflow(*c, *d, &cd)) continue;
        replacement = ToPoly(x % ArithExpr(cd));
      } else {
        continue;
      }
      p.erase(Monomial{mod});
      p.erase(Monomial{other});
      AddScaled(p, replacement, k_mod);
      return true;
    }
  }
  return false;
}

ArithExpr FromPoly(Poly p) {
  while (ApplyRadixLaw(p)) continue;
  std::vector<ArithExpr> terms;
  std::optional<int64_t> constant;
  for (const auto& [m, k] : p) {
    if (m.empty()) {
      constant = k;
    } else {
      terms.push_back(BuildTerm(m, k));
    }
  }
  std::sort(terms.begin(), terms.end(), Less);
  if (constant) terms.push_back(ArithExpr(*constant));
  if (terms.empty()) return ArithExpr(0);
  if (terms.size() == 1) return terms[0];
  return ArithBuilder::Make(Kind::kSum, 0, std::move(terms));
}

// --- Division and modulo ----------------------------------------------------------------------

int64_t GcdOfCoefficients(const Poly& p, int64_t c) {
  int64_t g = c;
  for (const auto& [m, k] : p) g = std::gcd(g, k);
  return g;
}

Poly DivideCoefficients(const Poly& p, int64_t g) {
  Poly q;
  for (const auto& [m, k] : p) AddTerm(q, m, k / g);
  return q;
}

// Where `p` is g*v + r0, its variable terms' coefficients and c multiples of g and 0 < r0 < g:
// p without r0, and r0; else p unchanged, and 0. Then floor(p/c) == floor(g*v/c) and
// p % c == (g*v) % c + r0, since g*v % c is a multiple of g at most c - g (an offset within a
// block, gid*8 + 3 over rows of 32: (gid*8 + 3)/32 == gid/4, (gid*8 + 3)%32 == 8*(gid%4) + 3).
int64_t DropConstantBelowStep(Poly& p, int64_t c) {
  const auto constant = p.find(Monomial{});
  if (constant == p.end() || p.size() == 1) return 0;
  const int64_t r0 = constant->second;
  int64_t g = c;
  for (const auto& [m, k] : p) {
    if (!m.empty()) g = std::gcd(g, k);
  }
  if (r0 <= 0 || r0 >= g) return 0;
  p.erase(constant);
  return r0;
}

// a / c for a constant c > 0. floor((c*k + r)/c) == k + floor(r/c) for every integer k, so the
// terms whose coefficient c divides come out, and so does floor(constant/c).
ArithExpr DivByConstant(const ArithExpr& a, int64_t c) {
  if (a.kind() == Kind::kDiv) {
    if (const std::optional<int64_t> d = PositiveConstant(a.operands()[1])) {
      return a.operands()[0] / ArithExpr(Mul64(*d, c));  // (x/d)/c == x/(d*c)
    }
  }
  Poly quotient, rest;
  for (const auto& [m, k] : ToPoly(a)) {
    if (m.empty()) {
      AddTerm(quotient, m, *FloorDiv(k, c));
      AddTerm(rest, m, *FloorMod(k, c));
    } else if (k % c == 0) {
      AddTerm(quotient, m, k / c);
    } else {
      AddTerm(rest, m, k);
    }
  }
  const ArithExpr q = FromPoly(quotient);
  if (rest.empty()) return q;
  DropConstantBelowStep(rest, c);
  // floor(g*x / (g*d)) == floor(x/d)
  const int64_t g = GcdOfCoefficients(rest, c);
  const ArithExpr r = FromPoly(DivideCoefficients(rest, g));
  const int64_t d = c / g;
  if (InRange(r, 0, d - 1)) return q;
  if (r.kind() == Kind::kDiv && PositiveConstant(r.operands()[1])) return q + r / ArithExpr(d);
  return q + ArithBuilder::Make(Kind::kDiv, 0, {r, ArithExpr(d)});
}

// a % c for a constant c > 0: (c*k + r) % c == r % c, so coefficients reduce modulo c.
ArithExpr ModByConstant(const ArithExpr& a, int64_t c) {
  const Poly p = ToPoly(a);
  // x % (c*j) is x minus a multiple of c: modulo c it is x.
  Poly expanded;
  bool changed = false;
  for (const auto& [m, k] : p) {
    if (m.size() == 1 && m[0].kind() == Kind::kMod) {
      const std::optional<int64_t> d = PositiveConstant(m[0].operands()[1]);
      if (d && *d % c == 0) {
        AddScaled(expanded, ToPoly(m[0].operands()[0]), k);
        changed = true;
        continue;
      }
    }
    AddTerm(expanded, m, k);
  }
  if (changed) return FromPoly(std::move(expanded)) % ArithExpr(c);

  Poly rest;
  for (const auto& [m, k] : p) AddTerm(rest, m, *FloorMod(k, c));
  if (rest.empty()) return 0;
  if (const int64_t r0 = DropConstantBelowStep(rest, c); r0 > 0) {
    return FromPoly(std::move(rest)) % ArithExpr(c) + r0;
  }
  // (g*x) % (g*d) == g*(x % d)
  const int64_t g = GcdOfCoefficients(rest, c);
  if (g > 1) return ArithExpr(g) * (FromPoly(DivideCoefficients(rest, g)) % ArithExpr(c / g));
  const ArithExpr r = FromPoly(rest);
  if (ToPoly(r) != rest) return r % ArithExpr(c);  // a radix law fired: reduce again
  if (InRange(r, 0, c - 1)) return r;
  return ArithBuilder::Make(Kind::kMod, 0, {r, ArithExpr(c)});
}

// For a divisor with a variable in it: the quotient of an exact polynomial division by a
// single-term or a sum divisor, when there is one.
std::optional<ArithExpr> ExactQuotient(const ArithExpr& a, const ArithExpr& b) {
  const Poly pa = ToPoly(a);
  if (pa.empty()) return ArithExpr(0);
  const auto& [ma, ka] = *pa.begin();
  for (const auto& [mb, kb] : ToPoly(b)) {
    const auto t = DivideTerm(ma, ka, mb, kb);
    if (!t) continue;
    const ArithExpr q = BuildTerm(t->first, t->second);
    if (b * q == a) return q;
  }
  return std::nullopt;
}

// Splits a into the terms that the single-term b divides (their quotient) and the rest.
std::pair<Poly, Poly> SplitByTerm(const ArithExpr& a, const ArithExpr& b) {
  const auto [mb, kb] = AsTerm(b);
  Poly quotient, rest;
  for (const auto& [m, k] : ToPoly(a)) {
    if (const auto t = DivideTerm(m, k, mb, kb)) {
      AddTerm(quotient, t->first, t->second);
    } else {
      AddTerm(rest, m, k);
    }
  }
  return {std::move(quotient), std::move(rest)};
}

ArithExpr DivBySymbol(const ArithExpr& a, const ArithExpr& b) {
  if (b.kind() != Kind::kSum) {
    auto [quotient, rest] = SplitByTerm(a, b);
    if (rest.empty()) return FromPoly(std::move(quotient));
    return FromPoly(std::move(quotient)) +
           ArithBuilder::Make(Kind::kDiv, 0, {FromPoly(std::move(rest)), b});
  }
  if (std::optional<ArithExpr> q = ExactQuotient(a, b)) return *q;
  return ArithBuilder::Make(Kind::kDiv, 0, {a, b});
}

ArithExpr ModBySymbol(const ArithExpr& a, const ArithExpr& b) {
  if (b.kind() != Kind::kSum) {
    auto [quotient, rest] = SplitByTerm(a, b);
    if (rest.empty()) return 0;
    const ArithExpr r = FromPoly(std::move(rest));
    if (r.kind() == Kind::kMod && r.operands()[1] == b) return r;  // (x % b) % b
    return ArithBuilder::Make(Kind::kMod, 0, {r, b});
  }
  if (ExactQuotient(a, b)) return 0;
  return ArithBuilder::Make(Kind::kMod, 0, {a, b});
}

}  // namespace

// --- ArithExpr --------------------------------------------------------------------------------

ArithExpr::ArithExpr(int64_t value) : rep_(ArithBuilder::MakeRep(Kind::kConst, value, "", {})) {}

ArithExpr ArithExpr::Var(absl::string_view name) {
  DFC_CHECK(!name.empty());
  return ArithBuilder::MakeVar(name);
}

ArithExpr operator+(const ArithExpr& a, const ArithExpr& b) {
  if (a.AsConstant() == 0) return b;
  if (b.AsConstant() == 0) return a;
  Poly p = ToPoly(a);
  AddScaled(p, ToPoly(b), 1);
  return FromPoly(std::move(p));
}

ArithExpr operator-(const ArithExpr& a, const ArithExpr& b) { return a + ArithExpr(-1) * b; }

ArithExpr operator-(const ArithExpr& a) { return ArithExpr(-1) * a; }

ArithExpr operator*(const ArithExpr& a, const ArithExpr& b) {
  if (a.AsConstant() == 1) return b;
  if (b.AsConstant() == 1) return a;
  return FromPoly(MulPoly(ToPoly(a), ToPoly(b)));
}

std::optional<ArithExpr> CheckedAdd(const ArithExpr& a, const ArithExpr& b) {
  Poly p = ToPoly(a);
  if (!TryAddScaled(p, ToPoly(b), 1)) return std::nullopt;
  return FromPoly(std::move(p));
}

std::optional<ArithExpr> CheckedMul(const ArithExpr& a, const ArithExpr& b) {
  std::optional<Poly> p = TryMulPoly(ToPoly(a), ToPoly(b));
  if (!p) return std::nullopt;
  return FromPoly(*std::move(p));
}

ArithExpr operator/(const ArithExpr& a, const ArithExpr& b) {
  const std::optional<int64_t> bc = b.AsConstant();
  DFC_CHECK(!(bc && *bc == 0) && "size divided by the constant 0");
  const std::optional<int64_t> ac = a.AsConstant();
  if (ac && bc) {
    const std::optional<int64_t> q = FloorDiv(*ac, *bc);
    DFC_CHECK(q.has_value() && "int64 overflow in size arithmetic");
    return *q;
  }
  if (bc) {
    if (*bc == 1) return a;
    if (*bc < 0) return (-a) / ArithExpr(Mul64(*bc, -1));  // a // -c == (-a) // c
    return DivByConstant(a, *bc);
  }
  if (ac == 0) return 0;
  if (a == b) return 1;  // a size divisor is non-zero
  return DivBySymbol(a, b);
}

ArithExpr operator%(const ArithExpr& a, const ArithExpr& b) {
  const std::optional<int64_t> bc = b.AsConstant();
  DFC_CHECK(!(bc && *bc == 0) && "size modulo the constant 0");
  const std::optional<int64_t> ac = a.AsConstant();
  if (ac && bc) return *FloorMod(*ac, *bc);
  if (bc) {
    if (*bc == 1 || *bc == -1) return 0;
    if (*bc < 0) return -((-a) % ArithExpr(Mul64(*bc, -1)));  // a % -c == -((-a) % c)
    return ModByConstant(a, *bc);
  }
  if (ac == 0 || a == b) return 0;
  return ModBySymbol(a, b);
}

ArithExpr ArithExpr::CeilDiv(const ArithExpr& a, const ArithExpr& b) { return (a + b - 1) / b; }

namespace {

// min(a, b) (kMin) or max(a, b) (kMax): the side that provably bounds the other, else a node
// with its operands in canonical order.
ArithExpr Extreme(Kind kind, const ArithExpr& a, const ArithExpr& b) {
  const bool min = kind == Kind::kMin;
  if (ProvablyNonNegative(b - a)) return min ? a : b;  // a <= b
  if (ProvablyNonNegative(a - b)) return min ? b : a;  // b <= a
  return Less(b, a) ? ArithBuilder::Make(kind, 0, {b, a}) : ArithBuilder::Make(kind, 0, {a, b});
}

}  // namespace

ArithExpr ArithExpr::Min(const ArithExpr& a, const ArithExpr& b) {
  return Extreme(Kind::kMin, a, b);
}

ArithExpr ArithExpr::Max(const ArithExpr& a, const ArithExpr& b) {
  return Extreme(Kind::kMax, a, b);
}

ArithExpr ArithExpr::Substitute(const absl::flat_hash_map<std::string, ArithExpr>& values) const {
  switch (rep_->kind) {
    case Kind::kConst:
      return *this;
    case Kind::kVar: {
      const auto it = values.find(rep_->name);
      return it == values.end() ? *this : it->second;
    }
    default:
      break;
  }
  // Nothing below changed: keep this node, so sharing survives.
  std::vector<ArithExpr> ops;
  bool changed = false;
  for (const ArithExpr& op : rep_->operands) {
    ops.push_back(op.Substitute(values));
    changed = changed || ops.back().rep_ != op.rep_;
  }
  if (!changed) return *this;
  switch (rep_->kind) {
    case Kind::kSum: {
      Poly p;
      for (const ArithExpr& op : ops) AddScaled(p, ToPoly(op), 1);
      return FromPoly(std::move(p));
    }
    case Kind::kProd: {
      Poly p;
      AddTerm(p, {}, rep_->value);
      for (const ArithExpr& op : ops) p = MulPoly(p, ToPoly(op));
      return FromPoly(std::move(p));
    }
    case Kind::kDiv:
      return ops[0] / ops[1];
    case Kind::kMin:
      return Min(ops[0], ops[1]);
    case Kind::kMax:
      return Max(ops[0], ops[1]);
    default:
      return ops[0] % ops[1];
  }
}

}  // namespace dfc

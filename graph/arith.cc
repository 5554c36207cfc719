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
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status.h"

namespace dfc {

using Kind = ArithExpr::Kind;

struct ArithExpr::Rep {
  Kind kind;
  int64_t value = 0;                // kConst: the value; kProd: the coefficient
  std::string name;                 // kVar
  std::vector<ArithExpr> operands;  // kSum: terms; kProd: factors; kDiv, kMod, kMin, kMax: {a, b}
  size_t hash = 0;
};

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

// Constant arithmetic in the simplifier: sizes never come near 2^63 (those a graph supplies
// are checked by CheckedAdd and CheckedMul first), so an overflow is a bug in the caller, and
// wrapping silently would give a wrong size.
int64_t Mul64(int64_t a, int64_t b) {
  int64_t r;
  const bool overflow = __builtin_mul_overflow(a, b, &r);
  DFC_CHECK(!overflow && "int64 overflow in size arithmetic");
  return r;
}

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

bool Less(const ArithExpr& a, const ArithExpr& b) { return ArithExpr::Compare(a, b) < 0; }

std::optional<int64_t> PositiveConstant(const ArithExpr& e) {
  std::optional<int64_t> c = e.AsConstant();
  if (c && *c > 0) return c;
  return std::nullopt;
}

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

bool InRange(const ArithExpr& e, int64_t lo, int64_t hi) {
  const Range r = RangeOf(e);
  return r.lo && *r.lo >= lo && r.hi && *r.hi <= hi;
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

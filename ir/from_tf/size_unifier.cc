// Size-variable unification (see size_unifier.h).
#include "ir/from_tf/size_unifier.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace dfc::ir {

bool SizeUnifier::Unify(const ArithExpr& a, const ArithExpr& b) {
  if (a == b) return false;
  // Keep the earlier name (N over N1) when both are variables.
  const bool a_var = a.kind() == ArithExpr::Kind::kVar;
  const bool b_var = b.kind() == ArithExpr::Kind::kVar;
  if (a_var && (!b_var || b.var_name() < a.var_name())) return Bind(a.var_name(), b);
  if (b_var) return Bind(b.var_name(), a);
  // A linear equation (N + N1 + N2 = 10, the rows of a concat of three placeholders):
  // solve it for a variable that appears alone with coefficient 1 or -1, the latest-named.
  const ArithExpr e = a - b;
  std::vector<ArithExpr> terms =
      e.kind() == ArithExpr::Kind::kSum ? e.operands() : std::vector<ArithExpr>{e};
  std::optional<std::pair<std::string, ArithExpr>> best;
  for (const ArithExpr& t : terms) {
    std::string var;
    ArithExpr value;
    if (t.kind() == ArithExpr::Kind::kVar) {  // v + rest = 0: v = -rest
      var = t.var_name();
      value = t - e;
    } else if (t.kind() == ArithExpr::Kind::kProd && t.coefficient() == -1 &&
               t.operands().size() == 1 && t.operands()[0].kind() == ArithExpr::Kind::kVar) {
      var = t.operands()[0].var_name();  // -v + rest = 0: v = rest
      value = e - t;
    } else if (t.kind() == ArithExpr::Kind::kProd && t.operands().size() == 1 &&
               t.operands()[0].kind() == ArithExpr::Kind::kVar && (e - t).AsConstant() &&
               *(e - t).AsConstant() % t.coefficient() == 0) {
      // c·v + k = 0 with constants c | k (N·2592 = 7776: a reshape to a constant shape fixes
      // the batch): v = -k / c.
      var = t.operands()[0].var_name();
      value = ArithExpr(-*(e - t).AsConstant() / t.coefficient());
    } else {
      continue;
    }
    const std::vector<std::string> in_value = value.Variables();
    if (std::find(in_value.begin(), in_value.end(), var) != in_value.end()) continue;
    if (!best || best->first < var) best.emplace(var, value);
  }
  return best && Bind(best->first, best->second);
}

bool SizeUnifier::Broadcast(std::span<const SymbolicShape> shapes) {
  size_t rank = 0;
  for (const SymbolicShape& s : shapes) rank = std::max(rank, s.size());
  bool changed = false;
  for (size_t k = 0; k < rank; ++k) {
    std::optional<ArithExpr> first;
    for (const SymbolicShape& s : shapes) {
      if (k >= s.size()) continue;
      const ArithExpr& d = s[s.size() - 1 - k];
      if (d == ArithExpr(1)) continue;
      if (!first) {
        first = d;
      } else {
        changed |= Unify(*first, d);
      }
    }
  }
  return changed;
}

bool SizeUnifier::Bind(const std::string& var, const ArithExpr& value) {
  for (const std::string& v : value.Variables()) {
    if (v == var) return false;  // N = N + 1 has no solution among sizes
  }
  absl::flat_hash_map<std::string, ArithExpr> one = {{var, value}};
  for (auto& [name, expr] : substitutions_) expr = expr.Substitute(one);
  substitutions_[var] = value;
  return true;
}

bool UnifyBroadcast(const Node&, std::span<const SymbolicShape> shapes, SizeUnifier& unifier) {
  return unifier.Broadcast(shapes);
}

}  // namespace dfc::ir

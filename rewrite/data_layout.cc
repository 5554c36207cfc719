// Layout rules (see data_layout.h).
#include "rewrite/data_layout.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/expr.h"

namespace dfc::rewrite {
namespace {

// The parameters that λs inside `e` bind.
void BoundParams(const ir::ExprPtr& e, absl::flat_hash_set<const ir::Param*>& out);
void BoundParamsIn(const ir::FunPtr& f, absl::flat_hash_set<const ir::Param*>& out) {
  if (f->kind == ir::Fun::Kind::kLambda) {
    const auto& lambda = static_cast<const ir::Lambda&>(*f);
    for (const ir::ParamPtr& p : lambda.params) out.insert(p.get());
    BoundParams(lambda.body, out);
    return;
  }
  if (f->kind == ir::Fun::Kind::kUserFun) return;
  const auto& pattern = static_cast<const ir::Pattern&>(*f);
  if (pattern.f != nullptr) BoundParamsIn(pattern.f, out);
}
void BoundParams(const ir::ExprPtr& e, absl::flat_hash_set<const ir::Param*>& out) {
  if (e->kind != ir::Expr::Kind::kFunCall) return;
  const auto& call = static_cast<const ir::FunCall&>(*e);
  for (const ir::ExprPtr& a : call.args) BoundParams(a, out);
  BoundParamsIn(call.f, out);
}

// Whether `e` is Transpose $ w for a parameter w not in `bound`.
bool IsTransposedInput(const ir::ExprPtr& e, const absl::flat_hash_set<const ir::Param*>& bound) {
  const ir::FunCall* t = CallOf(e, ir::Fun::Kind::kTranspose);
  return t != nullptr && t->args[0]->kind == ir::Expr::Kind::kParam &&
         !bound.contains(static_cast<const ir::Param*>(t->args[0].get()));
}

// The first Transpose $ w in `e` that is not already the value of a let.
ir::ExprPtr FindTransposedInput(const ir::ExprPtr& e,
                                const absl::flat_hash_set<const ir::Param*>& bound);
ir::ExprPtr FindIn(const ir::FunPtr& f, const absl::flat_hash_set<const ir::Param*>& bound) {
  if (f->kind == ir::Fun::Kind::kLambda) {
    return FindTransposedInput(static_cast<const ir::Lambda&>(*f).body, bound);
  }
  if (f->kind == ir::Fun::Kind::kUserFun) return nullptr;
  const auto& pattern = static_cast<const ir::Pattern&>(*f);
  return pattern.f != nullptr ? FindIn(pattern.f, bound) : nullptr;
}
ir::ExprPtr FindTransposedInput(const ir::ExprPtr& e,
                                const absl::flat_hash_set<const ir::Param*>& bound) {
  if (IsTransposedInput(e, bound)) return e;
  if (e->kind != ir::Expr::Kind::kFunCall) return nullptr;
  const auto& call = static_cast<const ir::FunCall&>(*e);
  const bool let = call.f->kind == ir::Fun::Kind::kLambda;
  for (const ir::ExprPtr& a : call.args) {
    if (let && IsTransposedInput(a, bound)) continue;  // already bound once
    if (ir::ExprPtr found = FindTransposedInput(a, bound)) return found;
  }
  return FindIn(call.f, bound);
}

}  // namespace

Rule StoreTransposed() {
  return {"storeTransposed", "body[Transpose $ w] => (λ(wt) => body[wt]) $ (Transpose $ w)",
          [](const ir::ExprPtr& e) -> Match {
            absl::flat_hash_set<const ir::Param*> bound;
            BoundParams(e, bound);
            const ir::ExprPtr transposed = FindTransposedInput(e, bound);
            if (transposed == nullptr) {
              return Decline{"no input is read transposed (Transpose $ w, w not bound inside)"};
            }
            return [e, transposed]() -> absl::StatusOr<ir::ExprPtr> {
              const ir::ParamPtr wt = ir::MakeParam("wt", transposed->type);
              DFC_ASSIGN_OR_RETURN(
                  ir::ExprPtr body,
                  ReplaceWhere(
                      e, [&](const ir::ExprPtr& x) { return ir::ExprEquals(x, transposed); }, wt));
              return ir::Call(std::make_shared<ir::Lambda>(std::vector{wt}, body), {transposed});
            };
          }};
}

}  // namespace dfc::rewrite

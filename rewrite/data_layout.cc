// Layout rules (see data_layout.h).
#include "rewrite/data_layout.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "base/status.h"
#include "ir/expr.h"
#include "ir/traverse.h"

namespace dfc::rewrite {
namespace {

// The parameters that λs inside `e` bind.
absl::flat_hash_set<const ir::Param*> BoundParams(const ir::ExprPtr& e) {
  struct Collector : ir::ExprVisitor {
    absl::flat_hash_set<const ir::Param*> bound;
    void VisitLambda(const ir::Lambda& lambda) override {
      for (const ir::ParamPtr& p : lambda.params) bound.insert(p.get());
      ir::ExprVisitor::VisitLambda(lambda);
    }
  } collector;
  collector.Visit(e);
  return std::move(collector.bound);
}

// Whether `e` is Transpose $ w for a parameter w not in `bound`.
bool IsTransposedInput(const ir::ExprPtr& e, const absl::flat_hash_set<const ir::Param*>& bound) {
  const ir::FunCall* t = CallOf(e, ir::Fun::Kind::kTranspose);
  return t != nullptr && t->args[0]->kind == ir::Expr::Kind::kParam &&
         !bound.contains(static_cast<const ir::Param*>(t->args[0].get()));
}

// The first Transpose $ w in a walk's start that is not already the value of a let.
class TransposedInputFinder : public ir::ExprVisitor {
 public:
  explicit TransposedInputFinder(const absl::flat_hash_set<const ir::Param*>& bound)
      : bound_(bound) {}
  const ir::ExprPtr& found() const { return found_; }

  void Visit(const ir::ExprPtr& e) override {
    if (found_ != nullptr) return;
    if (IsTransposedInput(e, bound_)) {
      found_ = e;
      return;
    }
    ir::ExprVisitor::Visit(e);
  }
  void VisitCall(const ir::FunCall& call) override {
    if (call.f->kind != ir::Fun::Kind::kLambda) return ir::ExprVisitor::VisitCall(call);
    for (const ir::ExprPtr& a : call.args) {
      if (!IsTransposedInput(a, bound_)) Visit(a);  // else already bound once
    }
    VisitFun(*call.f);
  }

 private:
  const absl::flat_hash_set<const ir::Param*>& bound_;
  ir::ExprPtr found_;
};

}  // namespace

Rule StoreTransposed() {
  return {"storeTransposed", "body[Transpose $ w] => (λ(wt) => body[wt]) $ (Transpose $ w)",
          [](const ir::ExprPtr& e) -> Match {
            const absl::flat_hash_set<const ir::Param*> bound = BoundParams(e);
            TransposedInputFinder finder(bound);
            finder.Visit(e);
            const ir::ExprPtr transposed = finder.found();
            if (transposed == nullptr) {
              return Decline{"no input is read transposed (Transpose $ w, w not bound inside)"};
            }
            return [e, transposed]() -> absl::StatusOr<ir::ExprPtr> {
              const ir::ParamPtr wt = ir::MakeParam("wt", transposed->type);
              DFC_ASSIGN_OR_RETURN(
                  ir::ExprPtr body,
                  ir::ReplaceWhere(
                      e, [&](const ir::ExprPtr& x) { return ir::ExprEquals(x, transposed); }, wt));
              return ir::Call(std::make_shared<ir::Lambda>(std::vector{wt}, body), {transposed});
            };
          }};
}

}  // namespace dfc::rewrite

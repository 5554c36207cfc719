// Lowering rules (see lowering.h).
#include "rewrite/lowering.h"

#include <utility>
#include <vector>

#include "base/status.h"
#include "ir/traverse.h"

namespace dfc::rewrite {
namespace {

class TopLevelRewrite : public ir::ExprMutator {
 public:
  explicit TopLevelRewrite(const Rule& rule) : rule_(rule) {}

  absl::StatusOr<ir::ExprPtr> Mutate(const ir::ExprPtr& e) override {
    DFC_ASSIGN_OR_RETURN(auto at_root, ApplyAtRoot(rule_, e));
    if (auto* rewritten = std::get_if<ir::ExprPtr>(&at_root)) {
      return ir::ExprMutator::Mutate(*rewritten);
    }
    return ir::ExprMutator::Mutate(e);
  }

  // A Map's or a Reduce's function runs once per element: not the top level.
  absl::StatusOr<ir::FunPtr> MutatePattern(const ir::FunPtr& f,
                                           const ir::Pattern& pattern) override {
    if (ir::IsMap(pattern.kind) || ir::IsReduce(pattern.kind)) return f;
    return ir::ExprMutator::MutatePattern(f, pattern);
  }

 private:
  const Rule& rule_;
};

}  // namespace

bool IsUnstoredTensor(const ir::ExprPtr& arg) {
  return arg->type->is_array() && ir::TensorShape(arg->type) &&
         CallOf(arg, ir::Fun::Kind::kToGlobal) == nullptr;
}

Rule ToGlobalLet() {
  return {"toGlobal", "(λ(v) => B) $ x => (λ(v) => B) $ (ToGlobal(Id) $ x), x a tensor",
          [](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* let = CallOf(e, ir::Fun::Kind::kLambda);
            if (let == nullptr) return Decline{"not a let"};
            bool any = false;
            for (const ir::ExprPtr& arg : let->args) any = any || IsUnstoredTensor(arg);
            if (!any) return Decline{"the let binds no tensor that is not stored already"};
            return [f = let->f, bound = let->args]() -> absl::StatusOr<ir::ExprPtr> {
              std::vector<ir::ExprPtr> args;
              for (const ir::ExprPtr& arg : bound) {
                if (!IsUnstoredTensor(arg)) {
                  args.push_back(arg);
                  continue;
                }
                DFC_ASSIGN_OR_RETURN(ir::ExprPtr stored, ir::Call(ir::ToGlobal(ir::Id()), {arg}));
                args.push_back(std::move(stored));
              }
              return ir::Call(f, std::move(args));
            };
          }};
}

absl::StatusOr<ir::ExprPtr> ApplyAtTopLevel(const Rule& rule, const ir::ExprPtr& e) {
  return TopLevelRewrite(rule).Mutate(e);
}

}  // namespace dfc::rewrite

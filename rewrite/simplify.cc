// Simplification rules (see simplify.h).
#include "rewrite/simplify.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status.h"

namespace dfc::rewrite {
namespace {

std::string KindName(ir::Fun::Kind kind) {
  switch (kind) {
    case ir::Fun::Kind::kJoin:
      return "Join";
    case ir::Fun::Kind::kSplit:
      return "Split";
    case ir::Fun::Kind::kTranspose:
      return "Transpose";
    default:
      return "pattern";
  }
}

// outer(inner(x)) => x, for two views that undo each other.
Rule Cancel(
    std::string name, std::string law, ir::Fun::Kind outer_kind, ir::Fun::Kind inner_kind,
    std::function<std::optional<Decline>(const ir::FunCall& outer, const ir::FunCall& inner)>
        check = nullptr) {
  return {std::move(name), std::move(law),
          [outer_kind, inner_kind, check](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* outer = CallOf(e, outer_kind);
            if (outer == nullptr) return Decline{absl::StrCat("not a ", KindName(outer_kind))};
            const ir::FunCall* inner = CallOf(outer->args[0], inner_kind);
            if (inner == nullptr) {
              return Decline{absl::StrCat("the ", KindName(outer_kind), "'s input is not a ",
                                          KindName(inner_kind))};
            }
            if (check) {
              if (std::optional<Decline> no = check(*outer, *inner)) return *no;
            }
            return [x = inner->args[0]]() -> absl::StatusOr<ir::ExprPtr> { return x; };
          }};
}

}  // namespace

Rule JoinSplitId() {
  return Cancel("joinSplitId", "Join o Split(n) => id", ir::Fun::Kind::kJoin,
                ir::Fun::Kind::kSplit);
}

Rule SplitJoinId() {
  return Cancel("splitJoinId", "Split(n) o Join => id, when the joined rows have length n",
                ir::Fun::Kind::kSplit, ir::Fun::Kind::kJoin,
                [](const ir::FunCall& split, const ir::FunCall& join) -> std::optional<Decline> {
                  const ArithExpr& n = static_cast<const ir::Pattern&>(*split.f).size;
                  const ArithExpr& row = join.args[0]->type->element->length;
                  if (n == row) return std::nullopt;
                  return Decline{
                      absl::StrCat("Split(", n.ToString(), ") of rows of length ", row.ToString())};
                });
}

Rule TransposeTransposeId() {
  return Cancel("transposeTransposeId", "Transpose o Transpose => id", ir::Fun::Kind::kTranspose,
                ir::Fun::Kind::kTranspose);
}

Rule LetInline() {
  return {"letInline", "(λ(x) => body) $ v => body[x := v], when body reads x at most once",
          [](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* let = CallOf(e, ir::Fun::Kind::kLambda);
            if (let == nullptr) return Decline{"not a let"};
            const auto& lambda = static_cast<const ir::Lambda&>(*let->f);
            for (const ir::ParamPtr& p : lambda.params) {
              if (ir::Reads(*lambda.body, p.get()) > 1) {
                return Decline{absl::StrCat("the body reads ", p->name, " more than once")};
              }
            }
            return [&lambda, args = let->args, keep_e = e]() -> absl::StatusOr<ir::ExprPtr> {
              ir::ExprPtr body = lambda.body;
              for (size_t k = 0; k < args.size(); ++k) {
                DFC_ASSIGN_OR_RETURN(body, ir::Substitute(body, lambda.params[k].get(), args[k]));
              }
              return body;
            };
          }};
}

Rule AsScalarAsVectorId() {
  return {"asScalarAsVectorId", "AsScalar o AsVector(n) => id", [](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* scalars = CallOf(e, ir::Fun::Kind::kAsScalar);
            if (scalars == nullptr) return Decline{"not AsScalar"};
            const ir::FunCall* vectors = CallOf(scalars->args[0], ir::Fun::Kind::kAsVector);
            if (vectors == nullptr) return Decline{"AsScalar's input is not AsVector"};
            return [x = vectors->args[0]]() -> absl::StatusOr<ir::ExprPtr> { return x; };
          }};
}

}  // namespace dfc::rewrite

// Interchange rules (see interchange.h).
#include "rewrite/interchange.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/expr.h"

namespace dfc::rewrite {
namespace {

// Reduces inside `e` that read `c` and no parameter bound between the Map and them (`inner`),
// outermost first.
void FindReduces(const ir::ExprPtr& e, const ir::Param* c, std::vector<const ir::Param*>& inner,
                 std::vector<ir::ExprPtr>& out);

void FindReducesIn(const ir::FunPtr& f, const ir::Param* c, std::vector<const ir::Param*>& inner,
                   std::vector<ir::ExprPtr>& out) {
  if (f->kind == ir::Fun::Kind::kLambda) {
    const auto& lambda = static_cast<const ir::Lambda&>(*f);
    for (const ir::ParamPtr& p : lambda.params) inner.push_back(p.get());
    FindReduces(lambda.body, c, inner, out);
    inner.resize(inner.size() - lambda.params.size());
    return;
  }
  if (f->kind == ir::Fun::Kind::kUserFun) return;
  const auto& pattern = static_cast<const ir::Pattern&>(*f);
  if (pattern.f != nullptr) FindReducesIn(pattern.f, c, inner, out);
}

void FindReduces(const ir::ExprPtr& e, const ir::Param* c, std::vector<const ir::Param*>& inner,
                 std::vector<ir::ExprPtr>& out) {
  if (e->kind != ir::Expr::Kind::kFunCall || Reads(*e, c) == 0) return;
  if (ReduceCall(e) != nullptr) {
    bool closed = true;
    for (const ir::Param* p : inner) closed = closed && Reads(*e, p) == 0;
    if (closed) out.push_back(e);
  }
  const auto& call = static_cast<const ir::FunCall&>(*e);
  for (const ir::ExprPtr& a : call.args) FindReduces(a, c, inner, out);
  FindReducesIn(call.f, c, inner, out);
}

}  // namespace

Rule MapReduceInterchange() {
  return {
      "mapReduceInterchange",
      "Map(λc => B[Reduce(f)(init, E(c))]) $ C => Map(λv => B[v]) $ "
      "Reduce(λ(acc, x) => Map(f) $ Zip(acc, x))(Repeat(n) $ init, Transpose $ Map(E) $ C)",
      [](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* map = CallOf(e, ir::Fun::Kind::kMap);
        if (map == nullptr) return Decline{"not a high-level Map"};
        const ir::FunPtr& f = static_cast<const ir::Pattern&>(*map->f).f;
        if (f->kind != ir::Fun::Kind::kLambda) return Decline{"the Map's function is not a λ"};
        const auto& lambda = static_cast<const ir::Lambda&>(*f);
        const ir::ParamPtr c = lambda.params[0];
        std::vector<const ir::Param*> inner;
        std::vector<ir::ExprPtr> reduces;
        FindReduces(lambda.body, c.get(), inner, reduces);
        if (reduces.empty()) return Decline{"no Reduce in the Map's body reads its element"};
        // The innermost Reduce that carries all of the body's dependence on c.
        for (auto it = reduces.rbegin(); it != reduces.rend(); ++it) {
          const ir::ExprPtr reduce = *it;
          const auto& call = static_cast<const ir::FunCall&>(*reduce);
          const ir::FunPtr& step = static_cast<const ir::Pattern&>(*call.f).f;
          if (Reads(*call.args[0], c.get()) > 0 || Reads(*step, c.get()) > 0) continue;
          const ir::ParamPtr v = ir::MakeParam("v", reduce->type);
          absl::StatusOr<ir::ExprPtr> rest = ReplaceWhere(
              lambda.body, [&](const ir::ExprPtr& x) { return x == reduce; }, v);
          if (!rest.ok() || Reads(**rest, c.get()) > 0) continue;
          return [c, v, rest = *rest, init = call.args[0], elements = call.args[1], step,
                  columns = map->args[0], keep_e = e]() -> absl::StatusOr<ir::ExprPtr> {
            const ArithExpr n = columns->type->length;
            DFC_ASSIGN_OR_RETURN(
                ir::ExprPtr per_column,
                ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{c}, elements)),
                         {columns}));
            DFC_ASSIGN_OR_RETURN(ir::ExprPtr rows, ir::Call(ir::Transpose(), {per_column}));
            DFC_ASSIGN_OR_RETURN(ir::ExprPtr inits, ir::Call(ir::Repeat(n), {init}));
            DFC_ASSIGN_OR_RETURN(
                ir::FunPtr all_columns,
                ir::MakeLambda(
                    {inits->type, rows->type->element},
                    [&](std::span<const ir::ExprPtr> p) -> absl::StatusOr<ir::ExprPtr> {
                      DFC_ASSIGN_OR_RETURN(ir::ExprPtr pairs, ir::Call(ir::Zip(2), {p[0], p[1]}));
                      return ir::MapOver(
                          pairs, [&](ir::ExprPtr pair) -> absl::StatusOr<ir::ExprPtr> {
                            DFC_ASSIGN_OR_RETURN(ir::ExprPtr a, ir::Call(ir::Get(0), {pair}));
                            DFC_ASSIGN_OR_RETURN(ir::ExprPtr x, ir::Call(ir::Get(1), {pair}));
                            return ir::Call(step, {a, x});
                          });
                    },
                    {"acc", "x"}));
            DFC_ASSIGN_OR_RETURN(ir::ExprPtr folded,
                                 ir::Call(ir::Reduce(all_columns), {inits, rows}));
            return ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{v}, rest)), {folded});
          };
        }
        return Decline{
            "every Reduce that reads the element leaves other reads of it, or its "
            "init or step reads it"};
      }};
}

Rule MapMapInterchange() {
  return {"mapMapInterchange",
          "Map(λa => Map(λb => f(a, b)) $ B) $ A => Transpose $ (Map(λb => Map(λa => f(a, b)) $ "
          "A) $ B)",
          [](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* outer = CallOf(e, ir::Fun::Kind::kMap);
            if (outer == nullptr) return Decline{"not a high-level Map"};
            const ir::FunPtr& f = static_cast<const ir::Pattern&>(*outer->f).f;
            if (f->kind != ir::Fun::Kind::kLambda) return Decline{"the Map's function is not a λ"};
            const auto& lambda = static_cast<const ir::Lambda&>(*f);
            const ir::FunCall* inner = CallOf(lambda.body, ir::Fun::Kind::kMap);
            if (inner == nullptr) return Decline{"the Map's body is not a high-level Map"};
            const ir::FunPtr& g = static_cast<const ir::Pattern&>(*inner->f).f;
            if (g->kind != ir::Fun::Kind::kLambda) {
              return Decline{"the inner Map's function is not a λ"};
            }
            const ir::ParamPtr a = lambda.params[0];
            if (Reads(*inner->args[0], a.get()) > 0) {
              return Decline{"the inner Map's array depends on the outer element"};
            }
            const auto& inner_lambda = static_cast<const ir::Lambda&>(*g);
            return [a, b = inner_lambda.params[0], body = inner_lambda.body, as = outer->args[0],
                    bs = inner->args[0]]() -> absl::StatusOr<ir::ExprPtr> {
              DFC_ASSIGN_OR_RETURN(
                  ir::ExprPtr over_a,
                  ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{a}, body)), {as}));
              DFC_ASSIGN_OR_RETURN(
                  ir::ExprPtr over_b,
                  ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{b}, over_a)), {bs}));
              return ir::Call(ir::Transpose(), {over_b});
            };
          }};
}

Rule BlockRows(int rows) {
  return {
      absl::StrCat("blockRows(", rows, ")"),
      absl::StrCat("Map(λa => G(Map(λc => H(a, c)) $ C)) $ X => Join $ MapGlb(λb => Map(G) $ "
                   "Transpose $ Map(λc => Map(λa => H(a, c)) $ b) $ C) $ Split(",
                   rows, ") $ X"),
      [rows](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* outer = CallOf(e, ir::Fun::Kind::kMap);
        if (outer == nullptr) return Decline{"not a high-level Map"};
        const ir::FunPtr& f = static_cast<const ir::Pattern&>(*outer->f).f;
        if (f->kind != ir::Fun::Kind::kLambda) return Decline{"the Map's function is not a λ"};
        const ir::ExprPtr& x = outer->args[0];
        if ((x->type->length % rows).AsConstant() != std::optional<int64_t>(0)) {
          return Decline{absl::StrCat("the ", x->type->length.ToString(),
                                      " rows are not known to be a multiple of ", rows)};
        }
        const auto& lambda = static_cast<const ir::Lambda&>(*f);
        const ir::ParamPtr a = lambda.params[0];
        // G: views of the inner Map's result, outermost first.
        std::vector<ir::FunPtr> views;
        ir::ExprPtr at = lambda.body;
        while (at->kind == ir::Expr::Kind::kFunCall) {
          const auto& call = static_cast<const ir::FunCall&>(*at);
          const ir::Fun::Kind k = call.f->kind;
          if (call.args.size() != 1 ||
              (k != ir::Fun::Kind::kAsScalar && k != ir::Fun::Kind::kJoin &&
               k != ir::Fun::Kind::kSplit && k != ir::Fun::Kind::kTranspose &&
               k != ir::Fun::Kind::kAsVector)) {
            break;
          }
          views.push_back(call.f);
          at = call.args[0];
        }
        const ir::FunCall* inner = CallOf(at, ir::Fun::Kind::kMap);
        if (inner == nullptr) {
          return Decline{"the Map's body is not a high-level Map, nor views of one"};
        }
        const ir::FunPtr& g = static_cast<const ir::Pattern&>(*inner->f).f;
        if (g->kind != ir::Fun::Kind::kLambda)
          return Decline{"the inner Map's function is not a λ"};
        const ir::ExprPtr& columns = inner->args[0];
        if (Reads(*columns, a.get()) > 0) {
          return Decline{"the inner Map's array depends on the outer element"};
        }
        const auto& inner_lambda = static_cast<const ir::Lambda&>(*g);
        return [rows, a, c = inner_lambda.params[0], h = inner_lambda.body, x, columns,
                views]() -> absl::StatusOr<ir::ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr blocks_of_x, ir::Call(ir::Split(rows), {x}));
          const ir::ParamPtr b = ir::MakeParam("b", blocks_of_x->type->element);
          DFC_ASSIGN_OR_RETURN(
              ir::ExprPtr per_row,
              ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{a}, h)), {b}));
          // The r rows' Reduces as one, each element of c read once for all of them.
          DFC_ASSIGN_OR_RETURN(auto interchanged, ApplyAtRoot(MapReduceInterchange(), per_row));
          if (auto* one_walk = std::get_if<ir::ExprPtr>(&interchanged)) per_row = *one_walk;
          DFC_ASSIGN_OR_RETURN(
              ir::ExprPtr per_column,
              ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{c}, per_row)), {columns}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr block, ir::Call(ir::Transpose(), {per_column}));
          if (views.size() == 1) {
            DFC_ASSIGN_OR_RETURN(block, ir::Call(ir::Map(views[0]), {block}));
          } else if (!views.empty()) {
            const ir::ParamPtr y = ir::MakeParam("y", block->type->element);
            ir::ExprPtr viewed = y;
            for (auto it = views.rbegin(); it != views.rend(); ++it) {
              DFC_ASSIGN_OR_RETURN(viewed, ir::Call(*it, {viewed}));
            }
            DFC_ASSIGN_OR_RETURN(
                block,
                ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{y}, viewed)), {block}));
          }
          DFC_ASSIGN_OR_RETURN(
              ir::ExprPtr blocks,
              ir::Call(ir::MapGlb(0, std::make_shared<ir::Lambda>(std::vector{b}, block)),
                       {blocks_of_x}));
          return ir::Call(ir::Join(), {blocks});
        };
      }};
}

}  // namespace dfc::rewrite

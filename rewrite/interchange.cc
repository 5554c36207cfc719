// Interchange rules (see interchange.h).
#include "rewrite/interchange.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "ir/expr.h"
#include "ir/traverse.h"

namespace dfc::rewrite {
namespace {

// The Reduces inside a walk's start that read `c` and no parameter bound inside it, outermost
// first.
class ReducesReading : public ir::ScopedExprVisitor {
 public:
  explicit ReducesReading(const ir::Param* c) : c_(c) {}
  const std::vector<ir::ExprPtr>& found() const { return found_; }

  void Visit(const ir::ExprPtr& e) override {
    if (e->kind != ir::Expr::Kind::kFunCall || ir::Reads(*e, c_) == 0) return;
    if (ReduceCall(e) != nullptr && ReadsNothingBound(*e)) found_.push_back(e);
    ir::ScopedExprVisitor::Visit(e);
  }

 private:
  const ir::Param* const c_;
  std::vector<ir::ExprPtr> found_;
};

}  // namespace

Rule MapReduceInterchange() {
  return {
      "mapReduceInterchange",
      "Map(λc => B[Reduce(f)(init, E(c))]) $ C => Map(λv => B[v]) $ "
      "Reduce(λ(acc, x) => Map(f) $ Zip(acc, x))(Repeat(n) $ init, Transpose $ Map(E) $ C)",
      [](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* map = CallOf(e, ir::Fun::Kind::kMap);
        if (map == nullptr) return Decline{"not a high-level Map"};
        const ir::FunPtr& f = ir::As<ir::FunPattern>(*map->f).f;
        if (f->kind != ir::Fun::Kind::kLambda) return Decline{"the Map's function is not a λ"};
        const auto& lambda = static_cast<const ir::Lambda&>(*f);
        const ir::ParamPtr c = lambda.params[0];
        ReducesReading finder(c.get());
        finder.Visit(lambda.body);
        const std::vector<ir::ExprPtr>& reduces = finder.found();
        if (reduces.empty()) return Decline{"no Reduce in the Map's body reads its element"};
        // The innermost Reduce that carries all of the body's dependence on c.
        for (auto it = reduces.rbegin(); it != reduces.rend(); ++it) {
          const ir::ExprPtr reduce = *it;
          const auto& call = static_cast<const ir::FunCall&>(*reduce);
          const ir::FunPtr& step = ir::As<ir::FunPattern>(*call.f).f;
          if (ir::Reads(*call.args[0], c.get()) > 0 || ir::Reads(*step, c.get()) > 0) continue;
          const ir::ParamPtr v = ir::MakeParam("v", reduce->type);
          absl::StatusOr<ir::ExprPtr> rest = ir::ReplaceWhere(
              lambda.body, [&](const ir::ExprPtr& x) { return x == reduce; }, v);
          if (!rest.ok() || ir::Reads(**rest, c.get()) > 0) continue;
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

namespace {

// Whether `e` holds a Reduce that reads `a` (any Reduce, for a null `a`).
bool HoldsAReduceOf(const ir::ExprPtr& e, const ir::Param* a) {
  bool found = false;
  ir::Walk(e, [&](const ir::ExprPtr& x) {
    if (found || x->kind != ir::Expr::Kind::kFunCall || (a != nullptr && ir::Reads(*x, a) == 0)) {
      return false;
    }
    found = ReduceCall(x) != nullptr;
    return !found;
  });
  return found;
}

// What blockRows shares across a block of rows: the first (outermost) expression of the walk's
// start that reads `a`, reads no parameter bound inside it, and is
//   - a walk: a high-level Map(λc => H) $ C whose array does not read `a`, or
//   - a fold: a Reduce whose init and step do not read `a` (a row's walk over columns already
//     interchanged into one Reduce, mapReduceInterchange), and whose input holds no Reduce
//     that reads `a` (else what that Reduce is in).
class RowWalkFinder : public ir::ScopedExprVisitor {
 public:
  explicit RowWalkFinder(const ir::Param* a) : a_(a) {}
  const ir::ExprPtr& found() const { return found_; }

  void Visit(const ir::ExprPtr& e) override {
    if (found_ != nullptr || e->kind != ir::Expr::Kind::kFunCall || ir::Reads(*e, a_) == 0) {
      return;
    }
    if (!Shared(e)) return ir::ScopedExprVisitor::Visit(e);
    // A fold whose input holds a Reduce over the row would compute it once for each element
    // it folds, were the fold blocked: what that Reduce is in is shared instead.
    if (const ir::FunCall* fold = ReduceCall(e);
        fold != nullptr && HoldsAReduceOf(fold->args[1], a_)) {
      Visit(fold->args[1]);
      if (found_ != nullptr) return;
    }
    found_ = e;
  }

 private:
  bool Shared(const ir::ExprPtr& e) const {
    bool shared = false;
    if (const ir::FunCall* map = CallOf(e, ir::Fun::Kind::kMap); map != nullptr) {
      const ir::FunPtr& g = ir::As<ir::FunPattern>(*map->f).f;
      shared = g->kind == ir::Fun::Kind::kLambda && ir::Reads(*map->args[0], a_) == 0;
    } else if (const ir::FunCall* reduce = ReduceCall(e); reduce != nullptr) {
      shared = ir::Reads(*reduce->args[0], a_) == 0 &&
               ir::Reads(*ir::As<ir::FunPattern>(*reduce->f).f, a_) == 0;
    }
    return shared && ReadsNothingBound(*e);
  }

  const ir::Param* const a_;
  ir::ExprPtr found_;
};

// The views G of `walk` that make `body` (outermost first), or std::nullopt where the body
// does more than view it.
std::optional<std::vector<ir::FunPtr>> ViewsOf(const ir::ExprPtr& body, const ir::ExprPtr& walk) {
  std::vector<ir::FunPtr> views;
  ir::ExprPtr at = body;
  while (at != walk) {
    if (at->kind != ir::Expr::Kind::kFunCall) return std::nullopt;
    const auto& call = static_cast<const ir::FunCall&>(*at);
    const ir::Fun::Kind k = call.f->kind;
    if (call.args.size() != 1 ||
        (k != ir::Fun::Kind::kAsScalar && k != ir::Fun::Kind::kJoin && k != ir::Fun::Kind::kSplit &&
         k != ir::Fun::Kind::kTranspose && k != ir::Fun::Kind::kAsVector)) {
      return std::nullopt;
    }
    views.push_back(call.f);
    at = call.args[0];
  }
  return views;
}

// Map(G) $ block for views G, outermost first (Map(λy => G(y)) for more than one).
absl::StatusOr<ir::ExprPtr> MapViews(const std::vector<ir::FunPtr>& views, ir::ExprPtr block) {
  if (views.empty()) return block;
  if (views.size() == 1) return ir::Call(ir::Map(views[0]), {block});
  const ir::ParamPtr y = ir::MakeParam("y", block->type->element);
  ir::ExprPtr viewed = y;
  for (auto it = views.rbegin(); it != views.rend(); ++it) {
    DFC_ASSIGN_OR_RETURN(viewed, ir::Call(*it, {viewed}));
  }
  return ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{y}, viewed)), {block});
}

// The functions of the chain of high-level Maps that computes `array`, outermost first (a
// chain Map(g) $ Map(h) $ X is g o h); `array` becomes what the chain walks, X.
std::vector<ir::FunPtr> MapChain(ir::ExprPtr& array) {
  std::vector<ir::FunPtr> fns;
  while (const ir::FunCall* map = CallOf(array, ir::Fun::Kind::kMap)) {
    fns.push_back(ir::As<ir::FunPattern>(*map->f).f);
    array = map->args[0];
  }
  return fns;
}

// g1(g2(...gk(x))) for a chain's functions g1..gk. A λ takes its argument in place where that
// computes nothing (the innermost, applied to x: a walk over the row then reads x itself) or
// is read once; else it stays bound once.
absl::StatusOr<ir::ExprPtr> ApplyChain(const std::vector<ir::FunPtr>& fns, ir::ExprPtr x) {
  for (auto g = fns.rbegin(); g != fns.rend(); ++g) {
    const auto* lambda =
        (*g)->kind == ir::Fun::Kind::kLambda ? static_cast<const ir::Lambda*>(g->get()) : nullptr;
    if (lambda != nullptr &&
        (g == fns.rbegin() || ir::Reads(*lambda->body, lambda->params[0].get()) <= 1)) {
      DFC_ASSIGN_OR_RETURN(x, ir::Substitute(lambda->body, lambda->params[0].get(), x));
    } else {
      DFC_ASSIGN_OR_RETURN(x, ir::Call(*g, {x}));
    }
  }
  return x;
}

// The Maps that compute the rows `outer` (a high-level Map(f)) walks, fused into it, so that a
// row walk inside them is under the outer Map:
//   Map(f) $ Map(g) $ X => Map(λx => f(g(x))) $ X, and
//   Map(f) $ Zip(..., Map(g) $ X, ...) => Map(λp => f(Tuple(..., g(Get(i) $ p), ...))) $
//   Zip(..., X, ...).
// nullptr where its array is neither a Map nor a Zip of one.
absl::StatusOr<ir::ExprPtr> FuseRowMaps(const ir::FunCall& outer) {
  const ir::FunPtr f = ir::As<ir::FunPattern>(*outer.f).f;
  ir::ExprPtr rows = outer.args[0];
  if (std::vector<ir::FunPtr> chain = MapChain(rows); !chain.empty()) {
    return ir::MapOver(
        rows,
        [&](ir::ExprPtr x) -> absl::StatusOr<ir::ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr row, ApplyChain(chain, x));
          return ir::Call(f, {row});
        },
        "x");
  }
  const ir::FunCall* zip = CallOf(rows, ir::Fun::Kind::kZip);
  if (zip == nullptr) return nullptr;
  std::vector<ir::ExprPtr> arrays;
  std::vector<std::vector<ir::FunPtr>> fns;  // per array: its chain's functions
  bool any = false;
  for (ir::ExprPtr array : zip->args) {
    fns.push_back(MapChain(array));
    any = any || !fns.back().empty();
    arrays.push_back(array);
  }
  if (!any) return nullptr;
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr pairs,
                       ir::Call(ir::Zip(static_cast<int>(arrays.size())), arrays));
  return ir::MapOver(
      pairs,
      [&](ir::ExprPtr p) -> absl::StatusOr<ir::ExprPtr> {
        std::vector<ir::ExprPtr> fields;
        for (size_t i = 0; i < fns.size(); ++i) {
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr field, ir::Call(ir::Get(static_cast<int>(i)), {p}));
          DFC_ASSIGN_OR_RETURN(field, ApplyChain(fns[i], field));
          fields.push_back(std::move(field));
        }
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr tuple,
                             ir::Call(ir::Tuple(static_cast<int>(fields.size())), fields));
        return ir::Call(f, {tuple});
      },
      "p");
}

}  // namespace

Rule BlockRows(int rows) {
  return {
      absl::StrCat("blockRows(", rows, ")"),
      absl::StrCat("Map(λa => B(a, Map(λc => H(a, c)) $ C)) $ X => Join $ MapGlb(λb => (λt => "
                   "Map(λ(a, v) => B(a, v)) $ Zip(b, t)) $ Transpose $ Map(λc => Map(λa => "
                   "H(a, c)) $ b) $ C) $ Split(",
                   rows, ") $ X (rows past a multiple of ", rows,
                   ": X padded by its last row, and dropped from the result)"),
      [rows](const ir::ExprPtr& e) -> Match {
        // Under a let (storeTransposed binds a constant's layout around the body): its body.
        if (e->kind == ir::Expr::Kind::kFunCall) {
          const auto& let = static_cast<const ir::FunCall&>(*e);
          if (let.f->kind == ir::Fun::Kind::kLambda) {
            const auto& lambda = static_cast<const ir::Lambda&>(*let.f);
            Match in_body = BlockRows(rows).match(lambda.body);
            if (const auto* declined = std::get_if<Decline>(&in_body)) return *declined;
            return
                [args = let.args, params = lambda.params,
                 rewrite = std::get<Rewrite>(std::move(in_body))]() -> absl::StatusOr<ir::ExprPtr> {
                  DFC_ASSIGN_OR_RETURN(ir::ExprPtr body, rewrite());
                  return ir::Call(std::make_shared<ir::Lambda>(params, std::move(body)), args);
                };
          }
        }
        const ir::FunCall* outer = CallOf(e, ir::Fun::Kind::kMap);
        if (outer == nullptr) return Decline{"not a high-level Map"};
        const ir::FunPtr& f = ir::As<ir::FunPattern>(*outer->f).f;
        if (f->kind != ir::Fun::Kind::kLambda) return Decline{"the Map's function is not a λ"};
        const ir::ExprPtr& x = outer->args[0];
        if (HoldsAReduceOf(x, nullptr)) {
          // Rows computed by Maps with a Reduce in them (Relu's walk over its columns, under
          // the bias, the Relu and the zip with in1): fused into the Map first, so that the
          // walk is in its body, computed once a row, rather than once for each element a
          // blocked fold of its body reads.
          absl::StatusOr<ir::ExprPtr> fused = FuseRowMaps(*outer);
          if (fused.ok() && *fused != nullptr) return BlockRows(rows).match(*fused);
        }
        const ArithExpr n = x->type->length;
        if (n.AsConstant() && *n.AsConstant() < 2 * rows) {
          return Decline{
              absl::StrCat("the ", n.ToString(), " rows are fewer than two blocks of ", rows)};
        }
        const auto& lambda = static_cast<const ir::Lambda&>(*f);
        const ir::ParamPtr a = lambda.params[0];
        RowWalkFinder finder(a.get());
        finder.Visit(lambda.body);
        const ir::ExprPtr walk = finder.found();
        if (walk == nullptr) {
          // The walk may be in a Map zipped with other rows: fused first, it is in the body.
          absl::StatusOr<ir::ExprPtr> fused = FuseRowMaps(*outer);
          if (fused.ok() && *fused != nullptr) return BlockRows(rows).match(*fused);
          return Decline{
              "the Map's body has no high-level Map over an array that does not read its "
              "element, nor a Reduce whose init and step do not (what a block of rows would "
              "share)"};
        }
        // A walk over C: its function, parameter and array; a fold: none.
        const ir::FunCall* walk_call = CallOf(walk, ir::Fun::Kind::kMap);
        const ir::Lambda* inner_lambda =
            walk_call == nullptr
                ? nullptr
                : &static_cast<const ir::Lambda&>(*ir::As<ir::FunPattern>(*walk_call->f).f);
        const std::optional<std::vector<ir::FunPtr>> views =
            walk_call == nullptr ? std::nullopt : ViewsOf(lambda.body, walk);
        return [rows, n, a, c = inner_lambda ? inner_lambda->params[0] : nullptr,
                h = inner_lambda ? inner_lambda->body : walk, x, body = lambda.body, walk,
                columns = walk_call ? walk_call->args[0] : nullptr,
                views]() -> absl::StatusOr<ir::ExprPtr> {
          // A length not known to be a multiple of r: the last block repeats the last row, and
          // the rows it adds are dropped from the result.
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr blocks_of_x, SplitIntoBlocks(x, rows));
          const ir::ParamPtr b = ir::MakeParam("b", blocks_of_x->type->element);
          DFC_ASSIGN_OR_RETURN(
              ir::ExprPtr per_row,
              ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{a}, h)), {b}));
          // The r rows' Reduces as one, each element of c read once for all of them.
          DFC_ASSIGN_OR_RETURN(auto interchanged, ApplyAtRoot(MapReduceInterchange(), per_row));
          if (auto* one_walk = std::get_if<ir::ExprPtr>(&interchanged)) per_row = *one_walk;
          // A walk: the block's results, [r][m], are the columns' [m][r] transposed. A fold:
          // the r rows' folds are the block's results.
          ir::ExprPtr block = per_row;
          if (columns != nullptr) {
            DFC_ASSIGN_OR_RETURN(
                ir::ExprPtr per_column,
                ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{c}, per_row)),
                         {columns}));
            DFC_ASSIGN_OR_RETURN(block, ir::Call(ir::Transpose(), {per_column}));
          }
          if (views) {
            DFC_ASSIGN_OR_RETURN(block, MapViews(*views, block));
          } else {
            // The rest of the body, row by row, over the block's rows and their results.
            DFC_ASSIGN_OR_RETURN(
                block,
                ir::Let(
                    block,
                    [&](ir::ExprPtr t) -> absl::StatusOr<ir::ExprPtr> {
                      DFC_ASSIGN_OR_RETURN(ir::ExprPtr pairs, ir::Call(ir::Zip(2), {b, t}));
                      return ir::MapOver(
                          pairs,
                          [&](ir::ExprPtr pair) -> absl::StatusOr<ir::ExprPtr> {
                            DFC_ASSIGN_OR_RETURN(ir::ExprPtr row, ir::Call(ir::Get(0), {pair}));
                            DFC_ASSIGN_OR_RETURN(ir::ExprPtr result, ir::Call(ir::Get(1), {pair}));
                            DFC_ASSIGN_OR_RETURN(
                                ir::ExprPtr rest,
                                ir::ReplaceWhere(
                                    body, [&](const ir::ExprPtr& y) { return y == walk; }, result));
                            return ir::Substitute(rest, a.get(), row);
                          },
                          "p");
                    },
                    "t"));
          }
          DFC_ASSIGN_OR_RETURN(
              ir::ExprPtr blocks,
              ir::Call(ir::MapGlb(0, std::make_shared<ir::Lambda>(std::vector{b}, block)),
                       {blocks_of_x}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr joined, ir::Call(ir::Join(), {blocks}));
          return FirstRows(joined, n);
        };
      }};
}

Rule BlockColumns(int columns) {
  return {
      absl::StrCat("blockColumns(", columns, ")"),
      absl::StrCat("Map(λc => B[Reduce(f)(init, E(c))]) $ C => Join $ Map(λg => Map(λv => B[v]) $ "
                   "Reduce(λ(acc, x) => Map(f) $ Zip(acc, x))(Repeat(",
                   columns, ") $ init, Transpose $ Map(E) $ g)) $ Split(", columns, ") $ C"),
      [columns](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* map = CallOf(e, ir::Fun::Kind::kMap);
        if (map == nullptr) return Decline{"not a high-level Map"};
        const std::optional<int64_t> n = map->args[0]->type->length.AsConstant();
        if (!n || *n % columns != 0 || *n < 2 * columns) {
          return Decline{absl::StrCat("the Map's length ", map->args[0]->type->length.ToString(),
                                      " is not known to be two or more blocks of ", columns)};
        }
        absl::StatusOr<ir::ExprPtr> groups = ir::Call(ir::Split(columns), {map->args[0]});
        if (!groups.ok()) return Decline{std::string(groups.status().message())};
        // The Map over one block, interchanged: what each block computes.
        const ir::ParamPtr g = ir::MakeParam("g", (*groups)->type->element);
        absl::StatusOr<ir::ExprPtr> per_block = ir::Call(map->f, {g});
        if (!per_block.ok()) return Decline{std::string(per_block.status().message())};
        absl::StatusOr<std::variant<ir::ExprPtr, Decline>> interchanged =
            ApplyAtRoot(MapReduceInterchange(), *per_block);
        if (!interchanged.ok()) return Decline{std::string(interchanged.status().message())};
        if (const auto* declined = std::get_if<Decline>(&*interchanged)) return *declined;
        return [g, block = std::get<ir::ExprPtr>(*std::move(interchanged)),
                groups = *groups]() -> absl::StatusOr<ir::ExprPtr> {
          DFC_ASSIGN_OR_RETURN(
              ir::ExprPtr blocks,
              ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{g}, block)), {groups}));
          return ir::Call(ir::Join(), {blocks});
        };
      }};
}

}  // namespace dfc::rewrite

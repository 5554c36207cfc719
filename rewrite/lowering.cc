// Lowering rules (see lowering.h).
#include "rewrite/lowering.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "ir/analysis.h"
#include "ir/traverse.h"

namespace dfc::rewrite {
namespace {

class TopLevelRewrite : public TopLevelMutator {
 public:
  explicit TopLevelRewrite(const Rule& rule) : rule_(rule) {}

  absl::StatusOr<ir::ExprPtr> Mutate(const ir::ExprPtr& e) override {
    DFC_ASSIGN_OR_RETURN(auto at_root, ApplyAtRoot(rule_, e));
    if (auto* rewritten = std::get_if<ir::ExprPtr>(&at_root)) {
      return ir::ExprMutator::Mutate(*rewritten);
    }
    return ir::ExprMutator::Mutate(e);
  }

 private:
  const Rule& rule_;
};

// A let's arguments that `chosen` picks, each stored by `store(Id)` (toGlobal's and
// toPrivate's rewrite, each with its own reasons to pick); declines with `none` if it picks
// none.
Match StoreLetArguments(
    const ir::ExprPtr& e,
    const std::function<bool(const ir::Lambda&, const ir::ExprPtr& arg, size_t k)>& chosen,
    ir::FunPtr (*store)(ir::FunPtr), const char* none) {
  const ir::FunCall* let = CallOf(e, ir::Fun::Kind::kLambda);
  if (let == nullptr) return Decline{"not a let"};
  const auto& lambda = static_cast<const ir::Lambda&>(*let->f);
  std::vector<bool> kept(let->args.size());
  for (size_t k = 0; k < let->args.size(); ++k) kept[k] = chosen(lambda, let->args[k], k);
  if (std::ranges::find(kept, true) == kept.end()) return Decline{none};
  return [let, kept, store]() -> absl::StatusOr<ir::ExprPtr> {
    std::vector<ir::ExprPtr> args = let->args;
    for (size_t k = 0; k < args.size(); ++k) {
      if (!kept[k]) continue;
      DFC_ASSIGN_OR_RETURN(args[k], ir::Call(store(ir::Id()), {args[k]}));
    }
    return ir::Call(let->f, std::move(args));
  };
}

}  // namespace

absl::StatusOr<ir::FunPtr> TopLevelMutator::MutatePattern(const ir::FunPtr& f,
                                                          const ir::Pattern& pattern) {
  if (ir::IsMap(pattern.kind) || ir::IsReduce(pattern.kind)) return f;
  return ir::ExprMutator::MutatePattern(f, pattern);
}

void WalkKernel(const ir::ExprPtr& e, const std::function<bool(const ir::ExprPtr&)>& visit) {
  ir::Walk(e, [&](const ir::ExprPtr& x) {
    return CallOf(x, ir::Fun::Kind::kToGlobal) == nullptr && visit(x);
  });
}

bool IsUnstoredTensor(const ir::ExprPtr& arg) {
  return arg->type->is_array() && ir::TensorShape(arg->type) &&
         CallOf(arg, ir::Fun::Kind::kToGlobal) == nullptr;
}

Rule ToGlobalLet() {
  return {
      "toGlobal", "(λ(v) => B) $ x => (λ(v) => B) $ (ToGlobal(Id) $ x), x a tensor",
      [](const ir::ExprPtr& e) -> Match {
        return StoreLetArguments(
            e,
            [](const ir::Lambda&, const ir::ExprPtr& arg, size_t) { return IsUnstoredTensor(arg); },
            ir::ToGlobal, "the let binds no tensor that is not stored already");
      }};
}

namespace {

// e without its leading Splits (flattenRows' views of joined rows).
ir::ExprPtr WithoutSplits(const ir::ExprPtr& e) {
  ir::ExprPtr x = e;
  while (const ir::FunCall* split = CallOf(x, ir::Fun::Kind::kSplit)) x = split->args[0];
  return x;
}

// `e` with its leading Splits applied again to `x`.
absl::StatusOr<ir::ExprPtr> WithSplitsOf(const ir::ExprPtr& e, const ir::ExprPtr& x) {
  const ir::FunCall* split = CallOf(e, ir::Fun::Kind::kSplit);
  if (split == nullptr) return x;
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr inner, WithSplitsOf(split->args[0], x));
  return ir::Call(split->f, {inner});
}

}  // namespace

ir::ExprPtr MappedRows(const ir::ExprPtr& e) {
  if (CallOf(e, ir::Fun::Kind::kSplit) != nullptr) {
    const ir::ExprPtr rows = WithoutSplits(e);
    const ir::FunCall* map = MapCall(rows);
    if (map == nullptr) return MappedRows(rows);
    return map->f->kind == ir::Fun::Kind::kMapGlb ? rows : nullptr;
  }
  if (const ir::FunCall* map = MapCall(e)) {
    const ir::Fun::Kind kind = map->f->kind;
    return kind == ir::Fun::Kind::kMapGlb || kind == ir::Fun::Kind::kMapWrg ? e : nullptr;
  }
  ir::ExprPtr joined = e;
  if (const ir::FunCall* prefix = CallOf(e, ir::Fun::Kind::kReindex);
      prefix != nullptr && ir::As<ir::ReindexPattern>(*prefix->f).index_fn == ir::IndexVar()) {
    joined = prefix->args[0];
  }
  const ir::FunCall* join = CallOf(joined, ir::Fun::Kind::kJoin);
  if (join == nullptr || CallOf(join->args[0], ir::Fun::Kind::kMapGlb) == nullptr) return nullptr;
  return join->args[0];
}

Rule FlattenRows() {
  return {"flattenRows", "Map(λ(a) => Map(g) $ a) $ x => Split(m) $ Map(g) $ Join $ x",
          [](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* outer = CallOf(WithoutSplits(e), ir::Fun::Kind::kMap);
            if (outer == nullptr) return Decline{"not a Map (under Splits)"};
            const ir::ExprPtr& x = outer->args[0];
            if (!x->type->element->is_array() || !x->type->element->element->is_array()) {
              return Decline{"the rows are not arrays of arrays"};
            }
            // Split divides by the row's length: it must be known and non-zero.
            if (x->type->element->length.AsConstant().value_or(0) <= 0) {
              return Decline{"the rows' length is not a known positive number"};
            }
            if (outer->f->kind != ir::Fun::Kind::kMap ||
                ir::As<ir::FunPattern>(*outer->f).f->kind != ir::Fun::Kind::kLambda) {
              return Decline{"the Map's function is not a λ"};
            }
            const auto& lambda =
                static_cast<const ir::Lambda&>(*ir::As<ir::FunPattern>(*outer->f).f);
            const ir::FunCall* inner = CallOf(lambda.body, ir::Fun::Kind::kMap);
            if (inner == nullptr || inner->args.size() != 1 ||
                inner->args[0].get() != lambda.params[0].get()) {
              return Decline{"the λ is not a Map over its parameter"};
            }
            if (ir::Reads(*inner->f, lambda.params[0].get()) > 0) {
              return Decline{"the inner Map's function reads the row"};
            }
            return [e, x, inner]() -> absl::StatusOr<ir::ExprPtr> {
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr joined, ir::Call(ir::Join(), {x}));
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr rows, ir::Call(inner->f, {joined}));
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr split,
                                   ir::Call(ir::Split(x->type->element->length), {rows}));
              return WithSplitsOf(e, split);
            };
          }};
}

Rule StoreByBlocks(int rows) {
  return {absl::StrCat("storeByBlocks(", rows, ")"),
          absl::StrCat("x => Reindex(n, i) $ Join $ MapGlb(0)(λb => TransposeW $ Transpose $ b) $ "
                       "Split(",
                       rows, ") $ Pad(0, ⌈n/", rows, "⌉·", rows, " - n, clamp) $ x"),
          [rows](const ir::ExprPtr& e) -> Match {
            if (!e->type->is_array() || !e->type->element->is_array() ||
                !e->type->element->element->is_scalar()) {
              return Decline{"not a matrix of scalars"};
            }
            if (MappedRows(e) != nullptr) return Decline{"the rows are mapped already"};
            return [rows, e]() -> absl::StatusOr<ir::ExprPtr> {
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr blocks, SplitIntoBlocks(e, rows));
              const ir::ParamPtr b = ir::MakeParam("b", blocks->type->element);
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr columns, ir::Call(ir::Transpose(), {b}));
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr block, ir::Call(ir::TransposeW(), {columns}));
              DFC_ASSIGN_OR_RETURN(
                  ir::ExprPtr mapped,
                  ir::Call(ir::MapGlb(0, std::make_shared<ir::Lambda>(std::vector{b}, block)),
                           {blocks}));
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr joined, ir::Call(ir::Join(), {mapped}));
              return FirstRows(joined, e->type->length);
            };
          }};
}

Rule MapRows(ir::Fun::Kind kind, int dim) {
  const bool glb = kind == ir::Fun::Kind::kMapGlb;
  return {glb ? "mapGlb" : "mapWrg",
          glb ? "Map(f) $ x => MapGlb(d)(f) $ x; x => MapGlb(d)(Id) $ x"
              : "Map(f) $ x => MapWrg(d)(f) $ x; x => MapWrg(d)(Id) $ x",
          [glb, dim](const ir::ExprPtr& e) -> Match {
            if (!e->type->is_array()) return Decline{"not an array"};
            if (MappedRows(e) != nullptr) return Decline{"the rows are mapped already"};
            return [glb, dim, e]() -> absl::StatusOr<ir::ExprPtr> {
              auto mapped = [&](ir::FunPtr f) {
                return glb ? ir::MapGlb(dim, std::move(f)) : ir::MapWrg(dim, std::move(f));
              };
              if (const ir::FunCall* map = CallOf(WithoutSplits(e), ir::Fun::Kind::kMap)) {
                DFC_ASSIGN_OR_RETURN(
                    ir::ExprPtr rows,
                    ir::Call(mapped(ir::As<ir::FunPattern>(*map->f).f), map->args));
                return WithSplitsOf(e, rows);
              }
              return ir::Call(mapped(ir::Id()), {e});
            };
          }};
}

Rule MapOutputs(ir::Fun::Kind kind) {
  const bool wrg = kind == ir::Fun::Kind::kMapWrg;
  return {
      wrg ? "mapOutputsWrg" : "mapOutputsGlb",
      wrg ? "each output's rows that fold by a combiner: Map(f) $ x => MapWrg(0)(f) $ x"
          : "each output's rows: Map(f) $ x => MapGlb(0)(f) $ x",
      [kind, wrg](const ir::ExprPtr& body) -> Match {
        // The outputs the choice maps: rows not mapped yet (and, for work-groups, work to
        // share), in BodyOutputs' order, which ReplaceOutputs keeps.
        std::vector<bool> chosen;
        for (const ir::ExprPtr& v : BodyOutputs(body)) {
          chosen.push_back(v->type->is_array() && MappedRows(v) == nullptr &&
                           (!wrg || SplitsAReduce(v, 2)));
        }
        if (std::ranges::find(chosen, true) == chosen.end()) {
          return Decline{"no output has rows to map so"};
        }
        return [kind, chosen, body]() -> absl::StatusOr<ir::ExprPtr> {
          return ReplaceOutputs(
              body,
              [&](std::vector<ir::ExprPtr> outputs) -> absl::StatusOr<std::vector<ir::ExprPtr>> {
                for (size_t k = 0; k < outputs.size(); ++k) {
                  if (!chosen[k]) continue;
                  DFC_ASSIGN_OR_RETURN(auto mapped, ApplyAtRoot(MapRows(kind, 0), outputs[k]));
                  if (auto* decline = std::get_if<Decline>(&mapped)) {
                    return absl::InternalError(decline->reason);
                  }
                  outputs[k] = std::get<ir::ExprPtr>(mapped);
                }
                return outputs;
              });
        };
      }};
}

bool SplitsAReduce(const ir::ExprPtr& e, int lanes) {
  const Rule split = ReduceLclRule(0, lanes);
  bool found = false;
  WalkKernel(e, [&](const ir::ExprPtr& x) {
    if (!found && CallOf(x, ir::Fun::Kind::kReduce) != nullptr) {
      found = std::holds_alternative<Rewrite>(split.match(x));
    }
    return !found;
  });
  return found;
}

Rule MapSeqRule() {
  return {"mapSeq", "Map(f) => MapSeq(f), MapGlb(d)(f) => MapSeq(f)",
          [](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* map = MapCall(e);
            if (map == nullptr) return Decline{"not a Map"};
            if (map->f->kind != ir::Fun::Kind::kMap && map->f->kind != ir::Fun::Kind::kMapGlb) {
              return Decline{"lowered already"};
            }
            return [map]() -> absl::StatusOr<ir::ExprPtr> {
              return ir::Call(ir::MapSeq(ir::As<ir::FunPattern>(*map->f).f), map->args);
            };
          }};
}

Rule ReduceSeqRule() {
  return {"reduceSeq", "Reduce(f) => ReduceSeq(f)", [](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* reduce = CallOf(e, ir::Fun::Kind::kReduce);
            if (reduce == nullptr) return Decline{"not a high-level Reduce"};
            return [reduce]() -> absl::StatusOr<ir::ExprPtr> {
              return ir::Call(ir::ReduceSeq(ir::As<ir::FunPattern>(*reduce->f).f), reduce->args);
            };
          }};
}

Rule ReduceLclRule(int dim, int lanes) {
  return {"reduceLcl",
          absl::StrCat("Reduce(f) $ (a, x) => ReduceLcl(d)(f) $ (a, x), f a combiner, x of at "
                       "least ",
                       lanes, " scalars"),
          [dim, lanes](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* reduce = CallOf(e, ir::Fun::Kind::kReduce);
            if (reduce == nullptr) return Decline{"not a high-level Reduce"};
            const ir::FunPtr& step = ir::As<ir::FunPattern>(*reduce->f).f;
            if (ir::CombinerOf(step) == nullptr) return Decline{"its step is not a combiner"};
            const ir::TypePtr& init = reduce->args[0]->type;
            const ir::TypePtr& array = reduce->args[1]->type;
            if (!init->is_scalar() || !array->element->is_scalar() ||
                array->element->dtype != init->dtype) {
              return Decline{"it does not fold scalars into a scalar of their dtype"};
            }
            const std::optional<int64_t> n = array->length.AsConstant();
            if (n && *n < lanes) return Decline{"too short to share among the work-group"};
            return [dim, step, reduce]() -> absl::StatusOr<ir::ExprPtr> {
              return ir::Call(ir::ReduceLcl(dim, step), reduce->args);
            };
          }};
}

Rule ReduceLanesRule() {
  return {"reduceLanes",
          "Reduce(f) $ (a, AsScalar $ v) => ReduceLanes(f) $ (a, v), f a combiner, v one vector",
          [](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* reduce = CallOf(e, ir::Fun::Kind::kReduce);
            if (reduce == nullptr) return Decline{"not a high-level Reduce"};
            const ir::FunCall* lanes = CallOf(reduce->args[1], ir::Fun::Kind::kAsScalar);
            if (lanes == nullptr) return Decline{"it does not fold the lanes of vectors"};
            const ir::FunPtr& step = ir::As<ir::FunPattern>(*reduce->f).f;
            if (ir::CombinerOf(step) == nullptr) return Decline{"its step is not a combiner"};
            const ir::ExprPtr& vectors = lanes->args[0];
            const ir::TypePtr& init = reduce->args[0]->type;
            const ir::TypePtr& vector = vectors->type->element;
            if (!init->is_scalar() || vectors->type->length.AsConstant() != 1 ||
                vector->dtype != init->dtype) {
              return Decline{"it does not fold one vector into a scalar of its dtype"};
            }
            return [step, reduce, vectors]() -> absl::StatusOr<ir::ExprPtr> {
              return ir::Call(ir::ReduceLanes(step), {reduce->args[0], vectors});
            };
          }};
}

Rule ToPrivateLet(PrivateWorth worth) {
  return {
      "toPrivate", "(λ(v) => B) $ x => (λ(v) => B) $ (ToPrivate(Id) $ x), v an array worth keeping",
      [worth = std::move(worth)](const ir::ExprPtr& e) -> Match {
        return StoreLetArguments(
            e,
            [&](const ir::Lambda& lambda, const ir::ExprPtr& arg, size_t k) {
              return arg->type->is_array() && CallOf(arg, ir::Fun::Kind::kToPrivate) == nullptr &&
                     worth(*lambda.params[k], *lambda.body);
            },
            ir::ToPrivate, "no argument is worth a private array");
      }};
}

Rule ToPrivateElement(PrivateWorth worth) {
  return {"toPrivateElement",
          "Map(λ(v) => B) $ X => Map(λ(u) => (λ(v) => B) $ (ToPrivate(Id) $ u)) $ X, v an array "
          "worth keeping",
          [worth = std::move(worth)](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* call = MapCall(e);
            if (call == nullptr) call = ReduceCall(e);
            if (call == nullptr) return Decline{"not a Map or a Reduce"};
            const auto& p = ir::As<ir::FunPattern>(*call->f);
            if (p.f->kind != ir::Fun::Kind::kLambda) return Decline{"its function is no λ"};
            const auto& lambda = static_cast<const ir::Lambda&>(*p.f);
            const ir::ParamPtr& v = lambda.params.back();  // the element
            if (!v->type->is_array() || !worth(*v, *lambda.body)) {
              return Decline{"its element is not worth a private array"};
            }
            return [call, &p, &lambda]() -> absl::StatusOr<ir::ExprPtr> {
              std::vector<ir::ParamPtr> params;
              std::vector<ir::ExprPtr> reads;
              for (const ir::ParamPtr& q : lambda.params) {
                params.push_back(ir::MakeParam(q->name, q->type));
                reads.push_back(params.back());
              }
              DFC_ASSIGN_OR_RETURN(reads.back(), ir::Call(ir::ToPrivate(ir::Id()), {reads.back()}));
              // The other parameters (a Reduce's accumulator) are passed on as they are.
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr body, ir::Call(p.f, std::move(reads)));
              return ir::Call(
                  ir::WithFunction(p, std::make_shared<ir::Lambda>(params, std::move(body))),
                  call->args);
            };
          }};
}

Rule TransposeWRule(std::function<bool(const ir::ExprPtr& x)> rows_compute) {
  return {"transposeW", "Transpose $ x => TransposeW $ x, x's rows computed",
          [rows_compute = std::move(rows_compute)](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* transpose = CallOf(e, ir::Fun::Kind::kTranspose);
            if (transpose == nullptr) return Decline{"not a Transpose"};
            if (!rows_compute(transpose->args[0])) return Decline{"its rows do no arithmetic"};
            return [transpose]() { return ir::Call(ir::TransposeW(), transpose->args); };
          }};
}

absl::flat_hash_set<const ir::Expr*> StoredValues(const ir::ExprPtr& body) {
  absl::flat_hash_set<const ir::Expr*> stored;
  for (const ir::ExprPtr& out : BodyOutputs(body)) stored.insert(out.get());
  ir::Walk(body, [&](const ir::ExprPtr& e) {
    if (const ir::FunCall* let = CallOf(e, ir::Fun::Kind::kLambda)) {
      for (const ir::ExprPtr& arg : let->args) stored.insert(arg.get());
    }
    return true;
  });
  return stored;
}

std::vector<ir::ExprPtr> BodyOutputs(const ir::ExprPtr& body) {
  ir::ExprPtr e = body;
  while (const ir::FunCall* let = CallOf(e, ir::Fun::Kind::kLambda)) {
    e = static_cast<const ir::Lambda&>(*let->f).body;
  }
  if (const ir::FunCall* tuple = CallOf(e, ir::Fun::Kind::kTuple)) return tuple->args;
  return {e};
}

absl::StatusOr<ir::ExprPtr> ReplaceOutputs(
    const ir::ExprPtr& body,
    const std::function<absl::StatusOr<std::vector<ir::ExprPtr>>(std::vector<ir::ExprPtr>)>&
        rewrite) {
  if (const ir::FunCall* let = CallOf(body, ir::Fun::Kind::kLambda)) {
    const auto& lambda = static_cast<const ir::Lambda&>(*let->f);
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr inner, ReplaceOutputs(lambda.body, rewrite));
    if (inner == lambda.body) return body;
    return ir::Call(std::make_shared<ir::Lambda>(lambda.params, std::move(inner)), let->args);
  }
  const ir::FunCall* tuple = CallOf(body, ir::Fun::Kind::kTuple);
  DFC_ASSIGN_OR_RETURN(std::vector<ir::ExprPtr> outputs,
                       rewrite(tuple != nullptr ? tuple->args : std::vector<ir::ExprPtr>{body}));
  if (tuple == nullptr) return outputs[0];
  if (outputs == tuple->args) return body;
  return ir::Call(tuple->f, std::move(outputs));
}

absl::StatusOr<ir::ExprPtr> ApplyAtTopLevel(const Rule& rule, const ir::ExprPtr& e) {
  return TopLevelRewrite(rule).Mutate(e);
}

}  // namespace dfc::rewrite

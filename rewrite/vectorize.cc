// Vectorisation rules (see vectorize.h).
#include "rewrite/vectorize.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "ir/analysis.h"
#include "ir/expr.h"
#include "ir/printer.h"
#include "ir/traverse.h"
#include "rewrite/work_item.h"

namespace dfc::rewrite {
namespace {

// Whether `x` is an array of vectors of `w` lanes.
bool IsVectorsOf(const ir::ExprPtr& x, int w) {
  return x->type->is_array() && x->type->element->is_vector() && x->type->element->width == w;
}

// The arrays a Map walks together: its Zip's, or its one array.
std::vector<ir::ExprPtr> WalkedArrays(const ir::FunCall& map) {
  const ir::FunCall* zip = CallOf(map.args[0], ir::Fun::Kind::kZip);
  return zip != nullptr ? zip->args : std::vector{map.args[0]};
}

// The input of `map` made again from `arrays` in place of WalkedArrays(map).
absl::StatusOr<ir::ExprPtr> Rezip(const ir::FunCall& map, std::vector<ir::ExprPtr> arrays) {
  if (CallOf(map.args[0], ir::Fun::Kind::kZip) == nullptr) return arrays[0];
  const int arity = static_cast<int>(arrays.size());
  return ir::Call(ir::Zip(arity), std::move(arrays));
}

// `init` in every lane of one vector of w lanes, as an array of that one vector:
// AsVector(w) $ Repeat(w) $ init.
absl::StatusOr<ir::ExprPtr> InEveryLane(const ir::ExprPtr& init, int w) {
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr fill, ir::Call(ir::Repeat(w), {init}));
  return ir::Call(ir::AsVector(w), {fill});
}

// `x`, an array of scalars of length n, as n / w vectors: a Map over a Zip (or over one array)
// applies its function to vectors of the arrays, each of which is read so in turn (a chain of
// elementwise Maps becomes one over vectors); AsScalar $ v of vectors of w lanes is v; anything
// else is read w at a time. A Map whose function does not type on vectors is read w at a time.
absl::StatusOr<ir::ExprPtr> AsVectors(const ir::ExprPtr& x, int w) {
  if (const ir::FunCall* scalars = CallOf(x, ir::Fun::Kind::kAsScalar);
      scalars != nullptr && IsVectorsOf(scalars->args[0], w)) {
    return scalars->args[0];
  }
  const ir::FunCall* map = CallOf(x, ir::Fun::Kind::kMap);
  if (map != nullptr) {
    const ir::FunPtr& g = ir::As<ir::FunPattern>(*map->f).f;
    const std::vector<ir::ExprPtr> parts = WalkedArrays(*map);
    bool scalars = true;
    for (const ir::ExprPtr& a : parts) scalars = scalars && a->type->element->is_scalar();
    if (scalars) {
      auto over_vectors = [&]() -> absl::StatusOr<ir::ExprPtr> {
        std::vector<ir::ExprPtr> vectors;
        for (const ir::ExprPtr& a : parts) {
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr v, AsVectors(a, w));
          vectors.push_back(std::move(v));
        }
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr input, Rezip(*map, std::move(vectors)));
        if (g->kind == ir::Fun::Kind::kUserFun) return ir::Call(ir::Map(g), {input});
        if (g->kind != ir::Fun::Kind::kLambda) {
          return absl::InvalidArgumentError("the Map's function is a pattern");
        }
        // The same body, its parameter retyped: every call in it types again on vectors.
        const auto& lambda = static_cast<const ir::Lambda&>(*g);
        const ir::ParamPtr p = ir::MakeParam(lambda.params[0]->name, input->type->element);
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr body,
                             ir::Substitute(lambda.body, lambda.params[0].get(), p));
        return ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{p}, body)), {input});
      };
      absl::StatusOr<ir::ExprPtr> vectorised = over_vectors();
      if (vectorised.ok() && IsVectorsOf(*vectorised, w)) return vectorised;
    }
  }
  return ir::Call(ir::AsVector(w), {x});
}

// x[from, from + length) as a view: a Map over a Zip (or over one array) reads the same
// range of each of its arrays, so that AsVectors still sees the Map.
absl::StatusOr<ir::ExprPtr> Range(const ir::ExprPtr& x, int64_t from, int64_t length) {
  const ir::FunPtr view = ir::Reindex(length, ir::IndexVar() + from);
  const ir::FunCall* map = CallOf(x, ir::Fun::Kind::kMap);
  if (map == nullptr) return ir::Call(view, {x});
  std::vector<ir::ExprPtr> parts = WalkedArrays(*map);
  for (ir::ExprPtr& a : parts) {
    DFC_ASSIGN_OR_RETURN(a, ir::Call(view, {a}));
  }
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr input, Rezip(*map, std::move(parts)));
  return ir::Call(map->f, {input});
}

}  // namespace

Rule VectorizeReduce(int width) {
  return {
      absl::StrCat("vectorizeReduce(", width, ")"),
      absl::StrCat("Reduce(f)(init, X) => Reduce(f)(init, AsScalar $ Reduce(vector f)(AsVector(",
                   width, ") $ Repeat(", width, ") $ init, AsVector(", width, ") $ X))"),
      [width](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* reduce = CallOf(e, ir::Fun::Kind::kReduce);
        if (reduce == nullptr) return Decline{"not a high-level Reduce"};
        const ir::ExprPtr init = reduce->args[0], x = reduce->args[1];
        const ir::FunPtr& f = ir::As<ir::FunPattern>(*reduce->f).f;
        const ir::FunPtr combiner = ir::CombinerOf(f);
        if (combiner == nullptr) return Decline{"the step is not a combiner"};
        if (!x->type->element->is_scalar()) return Decline{"the elements are not scalars"};
        if (x->type->element->dtype == DType::kHalf || x->type->element->dtype == DType::kBool) {
          return Decline{"float16 and bool are not vectorised"};
        }
        if (CallOf(x, ir::Fun::Kind::kAsScalar) != nullptr) {
          return Decline{"the elements are already the lanes of vectors"};
        }
        // A known length that is not a multiple: the first multiple of w elements as vectors,
        // the rest (fewer than w) folded one by one after them.
        const std::optional<int64_t> n = x->type->length.AsConstant();
        const bool multiple = (x->type->length % width).AsConstant() == std::optional<int64_t>(0);
        if (!multiple && !(n.has_value() && *n > width)) {
          return Decline{absl::StrCat("length ", x->type->length.ToString(),
                                      " is neither a known multiple of ", width,
                                      " nor a known length above it")};
        }
        if (std::optional<Decline> d = CheckIdempotentInit(*combiner, init)) return *d;
        const int64_t tail = multiple ? 0 : *n % width;
        return [width, init, x, f, u = combiner, n, tail]() -> absl::StatusOr<ir::ExprPtr> {
          ir::ExprPtr head = x, rest;
          if (tail > 0) {
            DFC_ASSIGN_OR_RETURN(head, Range(x, 0, *n - tail));
            DFC_ASSIGN_OR_RETURN(rest, Range(x, *n - tail, tail));
          }
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr vectors, AsVectors(head, width));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr lanes, InEveryLane(init, width));
          DFC_ASSIGN_OR_RETURN(
              ir::FunPtr step,
              ir::MakeLambda({lanes->type, vectors->type->element},
                             [&](std::span<const ir::ExprPtr> p) -> absl::StatusOr<ir::ExprPtr> {
                               return ir::MapOver(p[0], [&](ir::ExprPtr a) {
                                 return ir::Call(u, {a, p[1]});
                               });
                             },
                             {"acc", "x"}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr partial, ir::Call(ir::Reduce(step), {lanes, vectors}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr scalars, ir::Call(ir::AsScalar(), {partial}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr folded, ir::Call(ir::Reduce(f), {init, scalars}));
          if (rest == nullptr) return folded;
          return ir::Call(ir::Reduce(f), {folded, rest});
        };
      }};
}

namespace {

// Why `e` is not a Map of scalars that vectorizeMaps(w) reads as vectors, or nothing.
std::optional<Decline> CheckElementwiseMap(const ir::ExprPtr& e, int width) {
  const ir::FunCall* map = CallOf(e, ir::Fun::Kind::kMap);
  if (map == nullptr) return Decline{"not a high-level Map"};
  const ir::FunPtr& f = ir::As<ir::FunPattern>(*map->f).f;
  if (f->kind != ir::Fun::Kind::kUserFun && f->kind != ir::Fun::Kind::kLambda) {
    return Decline{"the Map's function is a pattern"};
  }
  if (!e->type->element->is_scalar()) return Decline{"the Map's elements are not scalars"};
  std::vector<DType> dtypes = {e->type->element->dtype};
  for (const ir::ExprPtr& a : WalkedArrays(*map)) {
    if (!a->type->element->is_scalar()) {
      return Decline{"the Map's input is not an array of scalars (or a Zip of them)"};
    }
    dtypes.push_back(a->type->element->dtype);
  }
  for (DType t : dtypes) {
    if (t == DType::kHalf || t == DType::kBool) {
      return Decline{"float16 and bool are not vectorised"};
    }
  }
  if ((e->type->length % width).AsConstant() != std::optional<int64_t>(0)) {
    return Decline{absl::StrCat("length ", e->type->length.ToString(),
                                " is not known to be a multiple of ", width)};
  }
  return std::nullopt;
}

// AsScalar $ AsVectors(e), or why `e`'s function does not type on vectors.
absl::StatusOr<ir::ExprPtr> VectorizedMap(const ir::ExprPtr& e, int width) {
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr vectors, AsVectors(e, width));
  if (CallOf(vectors, ir::Fun::Kind::kMap) == nullptr) {
    return absl::InvalidArgumentError("the Map's function does not type on vectors");
  }
  return ir::Call(ir::AsScalar(), {vectors});
}

// Every Map of scalars in `e` that reads its inputs as vectors, outermost first (the Maps nested
// in its inputs are read as vectors with it), but a Reduce's input: vectorizeReduce reads that
// with its Reduce.
class MapVectorizer : public ir::ExprMutator {
 public:
  explicit MapVectorizer(int width) : width_(width) {}
  int count() const { return count_; }

  absl::StatusOr<ir::ExprPtr> Mutate(const ir::ExprPtr& e) override {
    if (!CheckElementwiseMap(e, width_)) {
      if (absl::StatusOr<ir::ExprPtr> vectorised = VectorizedMap(e, width_); vectorised.ok()) {
        ++count_;
        return vectorised;
      }
    }
    return ir::ExprMutator::Mutate(e);
  }

  absl::StatusOr<ir::ExprPtr> MutateCall(const ir::ExprPtr& e, const ir::FunCall& call) override {
    const ir::FunCall* input = ir::IsReduce(call.f->kind) ? MapCall(call.args[1]) : nullptr;
    if (input == nullptr) return ir::ExprMutator::MutateCall(e, call);
    // The Reduce's input Map itself stays: only what is inside it is vectorised.
    std::vector<ir::ExprPtr> args = call.args;
    DFC_ASSIGN_OR_RETURN(args[0], Mutate(call.args[0]));
    DFC_ASSIGN_OR_RETURN(args[1], ir::ExprMutator::MutateCall(call.args[1], *input));
    DFC_ASSIGN_OR_RETURN(ir::FunPtr f, MutateFun(call.f));
    if (f == call.f && args == call.args) return e;
    return ir::Call(std::move(f), std::move(args));
  }

 private:
  const int width_;
  int count_ = 0;
};

}  // namespace

namespace {

using Bindings = absl::flat_hash_map<const ir::Param*, ir::ExprPtr>;

// An expression typed again on vectors (VectorizeColumns): the parameters of `env` replaced,
// and every function applied to what its arguments now are.
class Widener : public ir::ExprMutator {
 public:
  Widener(Bindings& env, int width) : env_(env), width_(width) {}

  absl::StatusOr<ir::ExprPtr> MutateParam(const ir::ExprPtr& e) override {
    const auto it = env_.find(static_cast<const ir::Param*>(e.get()));
    return it == env_.end() ? e : it->second;
  }

  absl::StatusOr<ir::ExprPtr> MutateCall(const ir::ExprPtr& e, const ir::FunCall& call) override {
    std::vector<ir::ExprPtr> args;
    for (const ir::ExprPtr& a : call.args) {
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr arg, Mutate(a));
      args.push_back(std::move(arg));
    }
    if (call.f->kind == ir::Fun::Kind::kReduce && args[0]->type->is_scalar() &&
        args[1]->type->element->is_vector()) {
      // Every lane starts from the initial value: At(AsVector(w) $ Repeat(w) $ init, 0).
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr lanes, InEveryLane(args[0], width_));
      const ir::ExprPtr zero = ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0));
      DFC_ASSIGN_OR_RETURN(args[0], ir::Call(ir::At(), {lanes, zero}));
    }
    std::vector<ir::TypePtr> types;
    for (const ir::ExprPtr& a : args) types.push_back(a->type);
    DFC_ASSIGN_OR_RETURN(ir::FunPtr f, WidenFun(call.f, types));
    if (f == call.f && args == call.args) return e;
    return ir::Call(std::move(f), std::move(args));
  }

  // `f` applied to arguments of `types`: a Lambda's parameters retyped to them, and a
  // pattern's function to what the pattern applies it to.
  absl::StatusOr<ir::FunPtr> WidenFun(const ir::FunPtr& f, const std::vector<ir::TypePtr>& types) {
    if (f->kind == ir::Fun::Kind::kUserFun) return f;
    if (f->kind == ir::Fun::Kind::kLambda) {
      const auto& lambda = static_cast<const ir::Lambda&>(*f);
      if (lambda.params.size() != types.size()) {
        return absl::InvalidArgumentError("a λ applied to the wrong number of arguments");
      }
      std::vector<ir::ParamPtr> params;
      for (size_t k = 0; k < types.size(); ++k) {
        params.push_back(ir::MakeParam(lambda.params[k]->name, types[k]));
        env_[lambda.params[k].get()] = params.back();
      }
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr body, Mutate(lambda.body));
      return std::make_shared<ir::Lambda>(std::move(params), std::move(body));
    }
    if (!ir::FunPattern::Holds(f->kind)) return f;
    const auto& pattern = ir::As<ir::FunPattern>(*f);
    std::vector<ir::TypePtr> inner;
    if (f->kind == ir::Fun::Kind::kMap) {
      inner = {types[0]->element};
    } else if (f->kind == ir::Fun::Kind::kReduce) {
      inner = {types[0], types[1]->element};
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(ir::ToString(f), "'s function is not typed again on vectors"));
    }
    DFC_ASSIGN_OR_RETURN(ir::FunPtr g, WidenFun(pattern.f, inner));
    return ir::WithFunction(pattern, std::move(g));
  }

 private:
  Bindings& env_;
  const int width_;
};

}  // namespace

Rule VectorizeColumns(int width) {
  return {
      absl::StrCat("vectorizeColumns(", width, ")"),
      absl::StrCat("Map(λc => F(c)) $ X => AsScalar $ Map(λv => F(v)) $ Transpose $ Map(AsVector(",
                   width, ")) $ Transpose $ X"),
      [width](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* map = CallOf(e, ir::Fun::Kind::kMap);
        if (map == nullptr) return Decline{"not a high-level Map"};
        const ir::FunPtr& f = ir::As<ir::FunPattern>(*map->f).f;
        if (f->kind != ir::Fun::Kind::kLambda) return Decline{"the Map's function is not a λ"};
        const ir::ExprPtr& x = map->args[0];
        const ir::TypePtr& row = x->type->element;
        if (!row->is_array() || !row->element->is_scalar()) {
          return Decline{"the Map is not over the rows of a matrix of scalars"};
        }
        // F computes a scalar, or a row of them (a MatMul's row of outputs).
        const ir::TypePtr& out = e->type->element;
        const bool rows = out->is_array() && out->element->is_scalar();
        if (!out->is_scalar() && !rows) {
          return Decline{"the Map's elements are neither scalars nor arrays of scalars"};
        }
        for (DType t : {row->element->dtype, ir::BaseDType(out)}) {
          if (t == DType::kHalf || t == DType::kBool) {
            return Decline{"float16 and bool are not vectorised"};
          }
        }
        if ((x->type->length % width).AsConstant() != std::optional<int64_t>(0)) {
          return Decline{absl::StrCat("the ", x->type->length.ToString(),
                                      " rows are not known to be a multiple of ", width)};
        }
        auto vectorised = [&]() -> absl::StatusOr<ir::ExprPtr> {
          // Transpose $ X, X = Transpose $ Y being Y itself.
          const ir::FunCall* transposed = CallOf(x, ir::Fun::Kind::kTranspose);
          ir::ExprPtr columns = transposed != nullptr ? transposed->args[0] : nullptr;
          if (columns == nullptr) {
            DFC_ASSIGN_OR_RETURN(columns, ir::Call(ir::Transpose(), {x}));
          }
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr vectors,
                               ir::Call(ir::Map(ir::AsVector(width)), {columns}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr input, ir::Call(ir::Transpose(), {vectors}));
          Bindings env;
          Widener widener(env, width);
          DFC_ASSIGN_OR_RETURN(ir::FunPtr g, widener.WidenFun(f, {input->type->element}));
          // Scalars: a vector of lanes from each v (Map(F) $ vectors). Rows: [m] vectors from
          // one v, the block of w rows Transpose $ Split(w) $ AsScalar $ F(v), one block a
          // work-item (MapGlb), so that the code generator computes F(v) once for its w rows.
          ir::ParamPtr v = ir::MakeParam("v", input->type->element);
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr lanes,
                               rows ? ir::Call(g, {v}) : ir::Call(ir::Map(g), {input}));
          if (!IsVectorsOf(lanes, width)) {
            return absl::InvalidArgumentError("the function does not compute vectors of lanes");
          }
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr scalars, ir::Call(ir::AsScalar(), {lanes}));
          if (!rows) return scalars;
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr split, ir::Call(ir::Split(width), {scalars}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr block, ir::Call(ir::Transpose(), {split}));
          auto per_block = std::make_shared<ir::Lambda>(std::vector{v}, block);
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr blocks, ir::Call(ir::MapGlb(0, per_block), {input}));
          return ir::Call(ir::Join(), {blocks});
        };
        absl::StatusOr<ir::ExprPtr> v = vectorised();
        if (!v.ok()) return Decline{std::string(v.status().message())};
        return [v = *std::move(v)]() -> absl::StatusOr<ir::ExprPtr> { return v; };
      }};
}

Rule VectorizeAccumulator(int width) {
  return {
      absl::StrCat("vectorizeAccumulator(", width, ")"),
      absl::StrCat("Reduce(λ(acc, r) => Map(g) $ Zip(acc, A...))(Repeat(n) $ init, X) => AsScalar "
                   "$ Reduce(λ(acc, r) => Map(g) $ Zip(acc, AsVector(",
                   width, ") $ A...))(AsVector(", width, ") $ Repeat(n) $ init, X)"),
      [width](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* reduce = CallOf(e, ir::Fun::Kind::kReduce);
        if (reduce == nullptr) return Decline{"not a high-level Reduce"};
        const ir::FunCall* repeat = CallOf(reduce->args[0], ir::Fun::Kind::kRepeat);
        if (repeat == nullptr || !repeat->args[0]->type->is_scalar()) {
          return Decline{"the accumulator is not an array of one scalar repeated"};
        }
        const DType dtype = repeat->args[0]->type->dtype;
        if (dtype == DType::kHalf || dtype == DType::kBool) {
          return Decline{"float16 and bool are not vectorised"};
        }
        const ArithExpr& n = reduce->args[0]->type->length;
        if ((n % width).AsConstant() != std::optional<int64_t>(0)) {
          return Decline{absl::StrCat("the ", n.ToString(),
                                      " accumulators are not a known multiple of ", width)};
        }
        const ir::FunPtr& f = ir::As<ir::FunPattern>(*reduce->f).f;
        if (f->kind != ir::Fun::Kind::kLambda) return Decline{"the step is not a λ"};
        const auto& step = static_cast<const ir::Lambda&>(*f);
        if (step.params.size() != 2) return Decline{"the step does not take (acc, x)"};
        const ir::ParamPtr& acc = step.params[0];
        const ir::FunCall* map = CallOf(step.body, ir::Fun::Kind::kMap);
        if (map == nullptr) return Decline{"the step is not a Map"};
        const ir::FunCall* zip = CallOf(map->args[0], ir::Fun::Kind::kZip);
        const std::vector<ir::ExprPtr> arrays =
            zip != nullptr ? zip->args : std::vector<ir::ExprPtr>{map->args[0]};
        if (std::count(arrays.begin(), arrays.end(), acc) != 1) {
          return Decline{"the step's Map does not walk the accumulator once"};
        }
        for (const ir::ExprPtr& a : arrays) {
          if (a != acc && (ir::Reads(*a, acc.get()) > 0 || !a->type->element->is_scalar())) {
            return Decline{"the step walks an array that is not of scalars beside the accumulator"};
          }
        }
        const ir::FunPtr& g = ir::As<ir::FunPattern>(*map->f).f;
        if (ir::Reads(*g, acc.get()) > 0)
          return Decline{"the step's function reads the accumulator"};
        std::optional<std::string> refused;
        ir::Walk(step.body, [&](const ir::ExprPtr& x) {
          if (const ir::FunCall* call = CallOf(x, ir::Fun::Kind::kUserFun)) {
            refused = refused ? refused : VectorRefusal(static_cast<const ir::UserFun&>(*call->f));
          }
          return !refused;
        });
        if (refused) return Decline{*refused};
        return [width, reduce, f, arrays, acc, g]() -> absl::StatusOr<ir::ExprPtr> {
          const auto& step = static_cast<const ir::Lambda&>(*f);
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr init, ir::Call(ir::AsVector(width), {reduce->args[0]}));
          const ir::ParamPtr vacc = ir::MakeParam(acc->name, init->type);
          const ir::ParamPtr x = ir::MakeParam(step.params[1]->name, step.params[1]->type);
          std::vector<ir::ExprPtr> vectors;
          for (const ir::ExprPtr& a : arrays) {
            if (a == acc) {
              vectors.push_back(vacc);
              continue;
            }
            DFC_ASSIGN_OR_RETURN(ir::ExprPtr read, ir::Substitute(a, step.params[1].get(), x));
            DFC_ASSIGN_OR_RETURN(read, ir::Call(ir::AsVector(width), {read}));
            vectors.push_back(std::move(read));
          }
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr input,
                               vectors.size() == 1
                                   ? absl::StatusOr<ir::ExprPtr>(vectors[0])
                                   : ir::Call(ir::Zip(static_cast<int>(vectors.size())), vectors));
          // g over the vectors' tuple, each call in it typed again (a λ inside retyped too),
          // the step's element read through the new step's.
          Bindings env = {{step.params[1].get(), x}};
          Widener widener(env, width);
          DFC_ASSIGN_OR_RETURN(ir::FunPtr h, widener.WidenFun(g, {input->type->element}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr updated, ir::Call(ir::Map(h), {input}));
          auto vstep = std::make_shared<ir::Lambda>(std::vector{vacc, x}, updated);
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr folded,
                               ir::Call(ir::Reduce(vstep), {init, reduce->args[1]}));
          return ir::Call(ir::AsScalar(), {folded});
        };
      }};
}

Rule VectorizeMaps(int width) {
  return {absl::StrCat("vectorizeMaps(", width, ")"),
          absl::StrCat("Map(f) $ Zip(X1, ..., Xk) => AsScalar $ Map(f) $ Zip(AsVector(", width,
                       ") $ X1, ...) at every Map of scalars, outermost first, an Xi that is "
                       "such a Map read so in turn, but a Reduce's input"),
          [width](const ir::ExprPtr& e) -> Match {
            MapVectorizer vectorizer(width);
            absl::StatusOr<ir::ExprPtr> vectorised = vectorizer.Mutate(e);
            if (!vectorised.ok()) return Decline{std::string(vectorised.status().message())};
            if (vectorizer.count() == 0) {
              return Decline{"no Map of scalars reads its inputs as vectors"};
            }
            return [v = *std::move(vectorised)]() -> absl::StatusOr<ir::ExprPtr> { return v; };
          }};
}

namespace {

// Whether `e` is `AsVector(w) $ x` of the type of `vectors` (w the width of their lanes).
bool ReadsAsVectors(const ir::ExprPtr& e, const ir::ExprPtr& x, const ir::TypePtr& vectors) {
  const ir::FunCall* as_vector = CallOf(e, ir::Fun::Kind::kAsVector);
  return as_vector != nullptr && ir::ExprEquals(as_vector->args[0], x) &&
         ir::TypeEquals(e->type, vectors);
}

// Whether `body` reads the parameter `x` only as `AsVector(w) $ read` (of the type of `vectors`),
// at least once, or as another field of it (Get(j) $ x, j != `field`; `field` < 0: x is no
// tuple, `read` is x itself).
bool ReadsOnlyAsVectors(const ir::ExprPtr& body, const ir::Param* x, const ir::ExprPtr& read,
                        const ir::TypePtr& vectors, int field) {
  int reads = 0, accounted = 0, as_vectors = 0;
  ir::Walk(body, [&](const ir::ExprPtr& e) {
    reads += e.get() == x;
    if (ReadsAsVectors(e, read, vectors)) {
      ++as_vectors;
      ++accounted;
    } else if (const ir::FunCall* get = CallOf(e, ir::Fun::Kind::kGet);
               field >= 0 && get != nullptr && get->args[0].get() == x &&
               ir::As<ir::GetPattern>(*get->f).index != field) {
      ++accounted;
    }
    return true;
  });
  return as_vectors > 0 && accounted == reads;
}

}  // namespace

Rule VectorsAcrossMaps() {
  return {
      "vectorsAcrossMaps",
      "Map(λx => B[AsVector(w) $ x]) $ Map(λy => AsScalar $ G) $ X => Map(λx => B[x]) $ "
      "Map(λy => G) $ X (also for one array of a Zip)",
      [](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* outer = CallOf(e, ir::Fun::Kind::kMap);
        if (outer == nullptr) return Decline{"not a high-level Map"};
        const ir::FunPtr& f = ir::As<ir::FunPattern>(*outer->f).f;
        if (f->kind != ir::Fun::Kind::kLambda) return Decline{"its function is not a λ"};
        const auto& consumer = static_cast<const ir::Lambda&>(*f);
        const ir::ParamPtr& x = consumer.params[0];
        const ir::FunCall* zip = CallOf(outer->args[0], ir::Fun::Kind::kZip);
        std::vector<ir::ExprPtr> arrays =
            zip != nullptr ? zip->args : std::vector<ir::ExprPtr>{outer->args[0]};
        for (size_t i = 0; i < arrays.size(); ++i) {
          // The producer: Map(λy => AsScalar $ G) $ X.
          const ir::FunCall* inner = CallOf(arrays[i], ir::Fun::Kind::kMap);
          const ir::FunPtr g = inner == nullptr ? nullptr : ir::As<ir::FunPattern>(*inner->f).f;
          if (g == nullptr || g->kind != ir::Fun::Kind::kLambda) continue;
          const auto& producer = static_cast<const ir::Lambda&>(*g);
          const ir::FunCall* lanes = CallOf(producer.body, ir::Fun::Kind::kAsScalar);
          if (lanes == nullptr) continue;
          const ir::ExprPtr& vectors = lanes->args[0];
          // The rows as the consumer reads them: x, or Get(i) $ x.
          const int field = zip == nullptr ? -1 : static_cast<int>(i);
          auto read =
              zip == nullptr ? absl::StatusOr<ir::ExprPtr>(x) : ir::Call(ir::Get(field), {x});
          if (!read.ok()) return Decline{std::string(read.status().message())};
          if (!ReadsOnlyAsVectors(consumer.body, x.get(), *read, vectors->type, field)) continue;
          const ir::FunPtr zip_f = zip == nullptr ? nullptr : zip->f;
          return [f, g, zip_f, arrays, i, read = *read, vectors,
                  rows = inner->args]() mutable -> absl::StatusOr<ir::ExprPtr> {
            const auto& consumer = static_cast<const ir::Lambda&>(*f);
            const ir::ParamPtr& x = consumer.params[0];
            const auto& producer = static_cast<const ir::Lambda&>(*g);
            DFC_ASSIGN_OR_RETURN(
                arrays[i],
                ir::Call(ir::Map(std::make_shared<ir::Lambda>(producer.params, vectors)), rows));
            DFC_ASSIGN_OR_RETURN(ir::ExprPtr input,
                                 zip_f == nullptr ? arrays[0] : ir::Call(zip_f, arrays));
            const ir::ParamPtr x2 = ir::MakeParam(x->name, input->type->element);
            DFC_ASSIGN_OR_RETURN(
                ir::ExprPtr new_read,
                zip_f == nullptr ? ir::ExprPtr(x2) : ir::Call(ir::Get(static_cast<int>(i)), {x2}));
            DFC_ASSIGN_OR_RETURN(
                ir::ExprPtr body,
                ir::ReplaceWhere(
                    consumer.body,
                    [&](const ir::ExprPtr& y) { return ReadsAsVectors(y, read, vectors->type); },
                    new_read));
            DFC_ASSIGN_OR_RETURN(body, ir::Substitute(body, x.get(), x2));
            return ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{x2}, body)), {input});
          };
        }
        return Decline{"no array of it is rows of vectors listed as scalars and read back so"};
      }};
}

}  // namespace dfc::rewrite

// GeneratedOps: the code generator's evaluation, mirrored to count what it emits (see work.h).
//
// GeneratedOps mirrors the code generator (codegen/generator.h), which holds for each value a
// CVal: a scalar is a thunk that emits its computation each time it is forced, an array a
// function from an index to its element's CVal (a view, nothing stored), a tuple its fields.
// Here each value is a LazyCost instead: the same shape, with the operations each of those
// steps emits in place of the C text. Indices are not tracked: every element of an array costs
// the same, which is what views over tensors of one shape give.
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/analysis.h"
#include "ir/work.h"
#include "ir/work_internal.h"

namespace dfc::ir {
namespace {

using work_internal::Cost;
using work_internal::Made;
using work_internal::Make;
using work_internal::Plus;
using work_internal::Total;
using work_internal::Walk;

// Whether `f` only views its element as scalars (AsScalar, or a λ of AsScalar and Join of its
// parameter): the generator writes a Map of it as it writes its argument.
bool ViewsItsElement(const Fun& f) {
  if (f.kind == Fun::Kind::kAsScalar) return true;
  if (f.kind != Fun::Kind::kLambda) return false;
  const auto& lambda = static_cast<const Lambda&>(f);
  if (lambda.params.size() != 1) return false;
  const Expr* e = lambda.body.get();
  bool as_scalar = false;
  while (e->kind == Expr::Kind::kFunCall) {
    const auto& call = static_cast<const FunCall&>(*e);
    if (call.args.size() != 1) return false;
    if (call.f->kind == Fun::Kind::kAsScalar) {
      as_scalar = true;
    } else if (call.f->kind != Fun::Kind::kJoin) {
      return false;
    }
    e = call.args[0].get();
  }
  return as_scalar && e == lambda.params[0].get();
}

}  // namespace

class GeneratedCounter::Evaluator {
 public:
  explicit Evaluator(GeneratedOptions options) : options_(std::move(options)) {}

  double Stored(const ExprPtr& e) {
    elsewhere_ = 0;
    const double ops = StoredBody(e);
    return ops + elsewhere_;
  }

  double StoredBody(const ExprPtr& e) {
    double ops = 0;
    ExprPtr body = e;
    // The top-level lets: each value stored by a kernel of its own, then read as memory.
    while (body->kind == Expr::Kind::kFunCall) {
      const auto& call = static_cast<const FunCall&>(*body);
      if (call.f->kind != Fun::Kind::kLambda) break;
      const auto& let = static_cast<const Lambda&>(*call.f);
      for (size_t k = 0; k < call.args.size(); ++k) {
        ops += StoredValue(call.args[k]);
        top_[let.params[k].get()] = Zero(let.params[k]->type);
      }
      body = let.body;
    }
    if (body->kind == Expr::Kind::kFunCall &&
        static_cast<const FunCall&>(*body).f->kind == Fun::Kind::kTuple) {
      for (const ExprPtr& out : static_cast<const FunCall&>(*body).args) ops += StoredValue(out);
      return ops;
    }
    return ops + StoredValue(body);
  }

  double StoredWithInputs(const ExprPtr& e,
                          const std::vector<std::pair<const Param*, ExprPtr>>& inputs) {
    // The values first, at the top level (evaluated once however often they are asked).
    std::vector<std::pair<const Param*, Cost>> bound;
    for (const auto& [p, value] : inputs) {
      bound.emplace_back(p, value != nullptr ? Eval(value, nullptr) : Zero(p->type));
    }
    // The consumer reads the parameters: none of its own values may be kept.
    absl::flat_hash_map<const Expr*, Cost> saved;
    saved.swap(memo_);
    for (const auto& [p, cost] : bound) top_[p] = cost;
    const double ops = Stored(e);
    for (const auto& [p, cost] : bound) top_.erase(p);
    memo_.swap(saved);
    return ops;
  }

 private:
  struct Frame {
    std::shared_ptr<const Frame> parent;
    absl::flat_hash_map<const Param*, Cost> bindings;
  };
  using Env = std::shared_ptr<const Frame>;

  // A value stored as a kernel's output: its blocks or rows (Join, Split and Reindex of them
  // are the same memory), each element computed once.
  double StoredValue(const ExprPtr& e) {
    ExprPtr x = e;
    while (x->kind == Expr::Kind::kFunCall) {
      const auto& call = static_cast<const FunCall&>(*x);
      const Fun::Kind k = call.f->kind;
      if (k != Fun::Kind::kJoin && k != Fun::Kind::kSplit && k != Fun::Kind::kReindex &&
          k != Fun::Kind::kToGlobal && k != Fun::Kind::kId) {
        break;
      }
      if (k == Fun::Kind::kToGlobal && As<FunPattern>(*call.f).f->kind != Fun::Kind::kId) {
        break;
      }
      x = call.args[0];
    }
    const double stage = Total(*Eval(x, nullptr));
    return stage;
  }

  double Length(const TypePtr& array) {
    absl::StatusOr<int64_t> n = array->length.Evaluate(Sizes(array->length));
    return n.ok() ? static_cast<double>(*n) : 1;
  }
  // The options' sizes, and 1 for every other variable of `e`.
  const SizeBindings& Sizes(const ArithExpr& e) {
    for (const std::string& v : e.Variables()) {
      if (!options_.sizes.contains(v)) options_.sizes[v] = 1;
    }
    return options_.sizes;
  }

  Cost Zero(const TypePtr& type) {
    if (auto it = zeros_.find(type.get()); it != zeros_.end()) return it->second;
    LazyCost c;
    if (type->is_tuple()) {
      c.shape = LazyCost::Shape::kTuple;
      for (const TypePtr& t : type->elements) c.fields.push_back(Zero(t));
    } else if (type->is_array()) {
      c.shape = LazyCost::Shape::kArray;
      c.length = Length(type);
      c.element = Zero(type->element);
    } else if (type->is_vector()) {
      c.lanes = type->width;
    }
    Cost zero = Make(std::move(c));
    zeros_.emplace(type.get(), zero);
    keep_types_.push_back(type);
    return zero;
  }

  Cost Lookup(const Param& p, const Env& env) {
    for (const Frame* frame = env.get(); frame != nullptr; frame = frame->parent.get()) {
      if (auto it = frame->bindings.find(&p); it != frame->bindings.end()) return it->second;
    }
    if (auto it = top_.find(&p); it != top_.end()) return it->second;
    return Zero(p.type);  // a kernel's input, read as memory
  }

  Cost Eval(const ExprPtr& e, const Env& env) {
    switch (e->kind) {
      case Expr::Kind::kParam:
        return Lookup(static_cast<const Param&>(*e), env);
      case Expr::Kind::kLiteral:
        return Zero(e->type);
      case Expr::Kind::kFunCall:
        break;
    }
    // A value of the top level is the same wherever it is read: evaluated once.
    const bool top = env == nullptr;
    if (top) {
      if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    }
    const auto& call = static_cast<const FunCall&>(*e);
    if (call.f->kind == Fun::Kind::kToGlobal && per_element_ == 0) {
      // A tensor the lowering stores by a kernel of its own (toGlobal), then read as memory.
      elsewhere_ += StoredValue(e);
      Cost stored = Zero(e->type);
      if (top) {
        memo_.emplace(e.get(), stored);
        keep_exprs_.push_back(e);
      }
      return stored;
    }
    std::vector<Cost> args;
    for (const ExprPtr& a : call.args) args.push_back(Eval(a, env));
    Cost out = call.f->kind == Fun::Kind::kLambda
                   ? ApplyLambda(static_cast<const Lambda&>(*call.f), std::move(args), env)
                   : Apply(*call.f, std::move(args), e->type, env);
    if (top) {
      memo_.emplace(e.get(), out);
      keep_exprs_.push_back(e);
    }
    return out;
  }

  // λ(params) => body applied: each scalar bound is forced once, where it is bound (the
  // generator's Bind); an array stays a view, unless it is kept in a private array.
  Cost ApplyLambda(const Lambda& lambda, std::vector<Cost> args, const Env& env) {
    auto frame = std::make_shared<Frame>(Frame{.parent = env, .bindings = {}});
    double made = 0;
    for (size_t k = 0; k < args.size() && k < lambda.params.size(); ++k) {
      const Param* p = lambda.params[k].get();
      made += args[k]->make;
      Cost bound = Made(args[k]);
      if (bound->shape == LazyCost::Shape::kArray && options_.private_arrays &&
          KeptPrivately(lambda, *p, *bound)) {
        made += Total(*bound);
        bound = Zero(p->type);
      } else {
        bound = Bind(bound, made);
      }
      frame->bindings[p] = std::move(bound);
    }
    return Plus(Eval(lambda.body, frame), made);
  }

  // The generator's Bind: a scalar forced once now (adding what that costs to `made`), an
  // array left a view, a tuple field by field.
  Cost Bind(const Cost& c, double& made) {
    switch (c->shape) {
      case LazyCost::Shape::kScalar:
        made += c->force;
        return c->force == 0 ? c : Make(LazyCost{});
      case LazyCost::Shape::kArray:
        return c;
      case LazyCost::Shape::kTuple: {
        LazyCost t = *c;
        for (Cost& f : t.fields) f = Bind(f, made);
        return Make(std::move(t));
      }
    }
    return c;
  }

  // What forcing every scalar of a (non-array) value once costs: a tuple's fields, each.
  double Forced(const LazyCost& c) {
    if (c.shape == LazyCost::Shape::kScalar) return c.force;
    double ops = 0;
    for (const Cost& f : c.fields) ops += f->make + Forced(*f);
    return ops;
  }

  // The lowering's toPrivate: an array bound by a λ whose value computes, read more than once
  // by its body, of a known size of at most kMaxPrivateElements.
  bool KeptPrivately(const Lambda& lambda, const Param& p, const LazyCost& value) {
    if (Total(value) == 0) return false;
    auto key = std::make_pair(&lambda, &p);
    auto it = reread_.find(key);
    if (it == reread_.end()) it = reread_.emplace(key, Reads(*lambda.body, &p) > 1).first;
    if (!it->second) return false;
    double elements = 1;
    TypePtr t = p.type;
    while (t->is_array()) {
      if (!t->length.AsConstant()) return false;
      elements *= static_cast<double>(*t->length.AsConstant());
      t = t->element;
    }
    return t->is_scalar() && elements <= kMaxPrivateElements;
  }

  static LazyCost Array(double length, double make, Cost element) {
    LazyCost c;
    c.shape = LazyCost::Shape::kArray;
    c.length = length;
    c.make = make;
    c.element = std::move(element);
    return c;
  }

  // A view whose element i is f(array's element i), rows kept through (Map(f) o Join =
  // Join o Map(Map(f))), as the generator's MappedView.
  Cost MapView(const LazyCost& array, const std::function<Cost(const Cost&)>& f) {
    LazyCost c = Array(array.length, array.make, f(array.element));
    if (array.rows != nullptr) {
      c.rows = MapView(*array.rows, [&](const Cost& row) { return MapView(*row, f); });
    }
    return Make(std::move(c));
  }

  // Zip of arrays of one length, rows kept through as the generator's ZippedView.
  Cost ZipView(const std::vector<Cost>& arrays) {
    LazyCost tuple;
    tuple.shape = LazyCost::Shape::kTuple;
    for (const Cost& a : arrays) {
      tuple.make += a->element->make;
      tuple.fields.push_back(Made(a->element));
    }
    LazyCost c = Array(arrays[0]->length, 0, Make(std::move(tuple)));
    for (const Cost& a : arrays) c.make += a->make;
    const Cost* joined = nullptr;
    for (const Cost& a : arrays) {
      if (a->rows != nullptr) {
        joined = &a;
        break;
      }
    }
    if (joined != nullptr) {
      const double m = (*joined)->rows->element->length;
      std::vector<Cost> rows;
      for (const Cost& a : arrays) {
        if (a->rows != nullptr && a->rows->element->length == m) {
          rows.push_back(Made(a->rows));
        } else {
          rows.push_back(Make(Array(a->length / m, 0, Make(Array(m, 0, a->element)))));
        }
      }
      c.rows = MapView(*ZipView(rows),
                       [this](const Cost& t) { return Plus(ZipView(t->fields), t->make); });
    }
    return Make(std::move(c));
  }

  // `c` with every cost multiplied by `factor`.
  static Cost Scaled(const LazyCost& c, double factor) {
    LazyCost s = c;
    s.make *= factor;
    s.force *= factor;
    for (Cost& f : s.fields) f = Scaled(*f, factor);
    if (s.element != nullptr) s.element = Scaled(*s.element, factor);
    if (s.rows != nullptr) s.rows = Scaled(*s.rows, factor);
    if (s.written != nullptr) s.written = Scaled(*s.written, factor);
    return Make(std::move(s));
  }

  // The elementwise sum of values of one shape (Concat's parts: the generator emits each
  // part's code in a branch of its own).
  Cost SumOf(const std::vector<Cost>& parts) {
    LazyCost c = *parts[0];
    c.rows = nullptr;
    c.written = nullptr;
    for (size_t k = 1; k < parts.size(); ++k) {
      c.make += parts[k]->make;
      c.force += parts[k]->force;
    }
    if (c.shape == LazyCost::Shape::kTuple) {
      for (size_t i = 0; i < c.fields.size(); ++i) {
        std::vector<Cost> fields;
        for (const Cost& p : parts) fields.push_back(p->fields[i]);
        c.fields[i] = SumOf(fields);
      }
    } else if (c.shape == LazyCost::Shape::kArray) {
      std::vector<Cost> elements;
      for (const Cost& p : parts) elements.push_back(p->element);
      c.element = SumOf(elements);
    }
    return Make(std::move(c));
  }

  // A Map's or a Reduce's function applied to an element: inside a kernel's rows, where a
  // ToGlobal is no kernel of its own.
  Cost PerElement(const Fun& g, std::vector<Cost> args, const TypePtr& result, const Env& env) {
    ++per_element_;
    Cost out = Apply(g, std::move(args), result, env);
    --per_element_;
    return out;
  }

  Cost Apply(const Fun& f, std::vector<Cost> args, const TypePtr& result, const Env& env) {
    using K = Fun::Kind;
    double made = 0;
    for (const Cost& a : args) made += a->make;
    const auto inner = [](const Cost& c) { return Total(*Made(c)); };
    switch (f.kind) {
      case K::kLambda:
        return ApplyLambda(static_cast<const Lambda&>(f), std::move(args), env);
      case K::kUserFun: {
        LazyCost c;
        c.make = made;
        c.lanes = result->is_vector() ? result->width : 1;
        c.force = c.lanes;
        for (const Cost& a : args) c.force += Forced(*a);
        return Make(std::move(c));
      }
      case K::kMap:
      case K::kMapGlb:
      case K::kMapWrg:
      case K::kMapLcl:
      case K::kMapSeq: {
        const Fun& g = *As<FunPattern>(f).f;
        const TypePtr element = result->element;
        Cost mapped =
            MapView(*args[0], [&](const Cost& x) { return PerElement(g, {x}, element, env); });
        if (args[0]->written != nullptr && ViewsItsElement(g)) {
          // Written as its argument is (a TransposeW's columns, vector by vector).
          LazyCost c = *mapped;
          c.written = args[0]->written;
          return Make(std::move(c));
        }
        return mapped;
      }
      case K::kReduce:
      case K::kReduceSeq:
      case K::kReduceLcl: {
        // The accumulator is made from init, then each element obtained once and the step's
        // every scalar computed once; the result lives in variables.
        const Fun& g = *As<FunPattern>(f).f;
        const Cost acc = Zero(result);
        const double loop = Walk(*args[1], [&](const Cost& x) {
          return Total(*PerElement(g, {acc, x}, result, env));
        });
        return Plus(Zero(result), made + inner(args[0]) + loop);
      }
      case K::kReduceLanes: {
        // The vector forced once, its halves combined down to one lane (w - 1 lanes of
        // operations), then with the accumulator.
        const LazyCost& vector = *args[1]->element;
        return Plus(Zero(result), made + inner(args[0]) + Total(vector) + vector.lanes);
      }
      case K::kZip:
        return ZipView(args);
      case K::kGet:
        return Plus(args[0]->fields[As<GetPattern>(f).index], made);
      case K::kTuple: {
        LazyCost c;
        c.shape = LazyCost::Shape::kTuple;
        c.make = made;
        for (const Cost& a : args) c.fields.push_back(Made(a));
        return Make(std::move(c));
      }
      case K::kSplit:
        if (args[0]->rows != nullptr && args[0]->rows->element->length == Length(result->element)) {
          return Make(Array(Length(result), made, args[0]->rows->element));
        }
        [[fallthrough]];
      case K::kSlide: {
        const double window = Length(result->element);
        return Make(Array(Length(result), made, Make(Array(window, 0, args[0]->element))));
      }
      case K::kJoin: {
        // A fold walks joined rows in nested loops (the generator's CVal::rows).
        const LazyCost& rows = *args[0];
        LazyCost c = Array(Length(result), made, Plus(rows.element->element, rows.element->make));
        if (rows.element->length > 1) c.rows = Made(args[0]);
        return Make(std::move(c));
      }
      case K::kTranspose:
      case K::kTransposeW: {
        const LazyCost& rows = *args[0];
        const Cost column =
            Make(Array(rows.length, 0, Plus(rows.element->element, rows.element->make)));
        LazyCost c = Array(Length(result), made, column);
        if (f.kind == K::kTransposeW) c.written = Made(args[0]);
        return Make(std::move(c));
      }
      case K::kPad:
      case K::kReindex:
        return Make(Array(Length(result), made, args[0]->element));
      case K::kConcat: {
        std::vector<Cost> elements;
        for (const Cost& a : args) elements.push_back(a->element);
        return Make(Array(Length(result), made, SumOf(elements)));
      }
      case K::kRepeat:
        return Make(Array(Length(result), made, Made(args[0])));
      case K::kAt:
        return Plus(args[0]->element, made + Forced(*args[1]));
      case K::kAsVector: {
        LazyCost lanes;
        lanes.lanes = result->element->width;
        lanes.force = lanes.lanes * Total(*args[0]->element);
        return Make(Array(Length(result), made, Make(std::move(lanes))));
      }
      case K::kAsScalar: {
        LazyCost lane;
        lane.force = Total(*args[0]->element);
        LazyCost c = Array(Length(result), made, Make(std::move(lane)));
        c.written = Made(args[0]);
        return Make(std::move(c));
      }
      case K::kId:
        return args[0];
      case K::kToGlobal:
      case K::kToLocal:
        return Apply(*As<FunPattern>(f).f, std::move(args), result, env);
      case K::kToPrivate:
        return Plus(Zero(result),
                    Total(*Apply(*As<FunPattern>(f).f, std::move(args), result, env)));
      default:
        return Plus(Zero(result), made);  // Iota, SizeValue: no arithmetic
    }
  }

  GeneratedOptions options_;
  absl::flat_hash_map<const Expr*, Cost> memo_;
  std::vector<ExprPtr> keep_exprs_;  // the memo's keys stay alive
  absl::flat_hash_map<const Type*, Cost> zeros_;
  std::vector<TypePtr> keep_types_;
  absl::flat_hash_map<const Param*, Cost> top_;
  absl::flat_hash_map<std::pair<const Lambda*, const Param*>, bool> reread_;
  double elsewhere_ = 0;  // the kernels of the ToGlobals met while counting
  int per_element_ = 0;   // how many Map or Reduce functions deep the evaluation is
};

GeneratedCounter::GeneratedCounter(GeneratedOptions options)
    : evaluator_(std::make_unique<Evaluator>(std::move(options))) {}
GeneratedCounter::~GeneratedCounter() = default;

double GeneratedCounter::Stored(const ExprPtr& e) { return evaluator_->Stored(e); }

double GeneratedCounter::Stored(const ExprPtr& e,
                                const std::vector<std::pair<const Param*, ExprPtr>>& inputs) {
  return evaluator_->StoredWithInputs(e, inputs);
}

double GeneratedOps(const ExprPtr& e, const GeneratedOptions& options) {
  return GeneratedCounter(options).Stored(e);
}

}  // namespace dfc::ir

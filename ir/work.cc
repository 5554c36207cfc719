// Counting the work of expressions (see work.h): StrictOps, StoreOps, and the LazyCost algebra
// that GeneratedOps (work_generated.cc) evaluates with.
#include "ir/work.h"

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/work_internal.h"

namespace dfc::ir {
namespace {

// The lanes a UserFun computes when applied to arguments of `types`: a vector's width, else 1.
int Lanes(const std::vector<TypePtr>& types) {
  int lanes = 1;
  for (const TypePtr& t : types) {
    if (t != nullptr && t->is_vector()) lanes = t->width;
  }
  return lanes;
}

class StrictCounter {
 public:
  ArithExpr Of(const ExprPtr& e) {
    if (e->kind != Expr::Kind::kFunCall) return 0;
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    const auto& call = static_cast<const FunCall&>(*e);
    // A value lowered to ToGlobal is stored by a kernel of its own, and read here.
    if (call.f->kind == Fun::Kind::kToGlobal) return 0;
    ArithExpr ops = 0;
    std::vector<TypePtr> types;
    for (const ExprPtr& a : call.args) {
      ops = ops + Of(a);
      types.push_back(a->type);
    }
    ops = ops + Apply(*call.f, types);
    memo_.emplace(e.get(), ops);
    return ops;
  }

  // The operations of applying `f` once to arguments of `types`.
  ArithExpr Apply(const Fun& f, const std::vector<TypePtr>& types) {
    using K = Fun::Kind;
    if (f.kind == K::kUserFun) return Lanes(types);
    if (f.kind == K::kLambda) return Of(static_cast<const Lambda&>(f).body);
    if (!FunPattern::Holds(f.kind)) return 0;  // a view
    const Fun& g = *As<FunPattern>(f).f;
    if (IsMap(f.kind)) return types[0]->length * Apply(g, {types[0]->element});
    if (f.kind == K::kReduceLanes) {
      // The halves of one vector combined until one lane is left, then with the accumulator.
      const TypePtr& vector = types[1]->element;
      return vector->is_vector() ? ArithExpr(vector->width) : ArithExpr(1);
    }
    if (IsReduce(f.kind)) return types[1]->length * Apply(g, {types[0], types[1]->element});
    return Apply(g, types);  // ToGlobal, ToLocal, ToPrivate
  }

 private:
  absl::flat_hash_map<const Expr*, ArithExpr> memo_;
};

}  // namespace

namespace work_internal {

Cost Make(LazyCost c) { return std::make_shared<const LazyCost>(std::move(c)); }

// `c` with `extra` more paid when it is made.
Cost Plus(const Cost& c, double extra) {
  if (extra == 0) return c;
  LazyCost more = *c;
  more.make += extra;
  return Make(std::move(more));
}

// `c` with nothing paid when it is made (made already, by whoever holds it).
Cost Made(const Cost& c) { return c->make == 0 ? c : Plus(c, -c->make); }

// Everything the value costs when it is made and each of its scalars is forced once (each
// element of an array obtained once): what storing it costs.
double Total(const LazyCost& c) {
  double rest = 0;
  switch (c.shape) {
    case LazyCost::Shape::kScalar:
      rest = c.force;
      break;
    case LazyCost::Shape::kTuple:
      for (const Cost& f : c.fields) rest += Total(*f);
      break;
    case LazyCost::Shape::kArray:
      // A writer computes its parts once; rows joined are stored row by row, each made once.
      if (c.written != nullptr) {
        rest = Total(*c.written);
      } else if (c.rows != nullptr) {
        rest = Total(*c.rows);
      } else {
        rest = c.length * Total(*c.element);
      }
      break;
  }
  return c.make + rest;
}

// The cost of obtaining each element once, as a fold walks the array: row by row where it
// was joined from rows (the generator's nested loops), else element by element; `each` is
// what one element costs once obtained.
double Walk(const LazyCost& array, const std::function<double(const Cost&)>& each) {
  if (array.rows != nullptr) {
    return Walk(*array.rows, [&](const Cost& row) { return row->make + Walk(*row, each); });
  }
  return array.length * (array.element->make + each(Made(array.element)));
}

}  // namespace work_internal

ArithExpr StrictOps(const ExprPtr& e) { return StrictCounter().Of(e); }

double StoreOps(const TypePtr& type) {
  double bytes = static_cast<double>(SizeOf(BaseDType(type)));
  for (TypePtr t = type; t->is_array(); t = t->element) {
    bytes *= static_cast<double>(t->length.AsConstant().value_or(1));
  }
  return StoreOpsOfBytes(bytes);
}

}  // namespace dfc::ir

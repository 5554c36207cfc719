// The IR interpreter. Values are materialised (a Transpose copies); that is fine for an oracle.
// Lengths come from the types, evaluated under the size bindings, so that zero-size arrays
// keep their inner lengths (Transpose of a [[T]_5]_0 is five empty arrays).
#include "ir/interpreter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status.h"

namespace dfc::ir {

struct Interpreter::Frame {
  absl::flat_hash_map<const Param*, Value> env;
};

namespace {

absl::Status EvalError(const Fun& f, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat(FunName(f), ": ", message));
}

// A value of `type` with every scalar `fill` (Pad's constant elements).
absl::StatusOr<Value> Filled(const TypePtr& type, const Scalar& fill, const SizeBindings& sizes) {
  if (type->is_scalar()) return Value::Of(fill);
  if (!type->is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot fill a value of type ", TypeToString(type)));
  }
  DFC_ASSIGN_OR_RETURN(int64_t n, type->length.Evaluate(sizes));
  DFC_ASSIGN_OR_RETURN(Value element, Filled(type->element, fill, sizes));
  return Value::Array(std::vector<Value>(n, element));
}

}  // namespace

absl::StatusOr<int64_t> Interpreter::Size(const ArithExpr& e, const SizeBindings& extra) const {
  if (extra.empty()) return e.Evaluate(sizes_);
  SizeBindings all = sizes_;
  for (const auto& [name, value] : extra) all[name] = value;
  return e.Evaluate(all);
}

absl::StatusOr<Value> Interpreter::Evaluate(const ExprPtr& expr,
                                            const absl::flat_hash_map<const Param*, Value>& env) {
  Frame frame{env};
  return Eval(expr, frame);
}

absl::StatusOr<Value> Interpreter::Apply(const FunPtr& f, std::vector<Value> args) {
  if (f->kind != Fun::Kind::kLambda) {
    return absl::InvalidArgumentError(absl::StrCat("Apply takes a Lambda, not ", FunName(*f)));
  }
  std::vector<TypePtr> types;
  for (const ParamPtr& p : static_cast<const Lambda&>(*f).params) types.push_back(p->type);
  Frame frame;
  return ApplyIn(*f, std::move(args), types, frame);
}

absl::StatusOr<const Value*> Interpreter::Bound(const Param& p, const Frame& frame) {
  auto it = frame.env.find(&p);
  if (it == frame.env.end()) {
    return absl::InvalidArgumentError(absl::StrCat("parameter ", p.name, " is not bound"));
  }
  return &it->second;
}

absl::StatusOr<Value> Interpreter::Eval(const ExprPtr& expr, Frame& frame) {
  switch (expr->kind) {
    case Expr::Kind::kParam: {
      DFC_ASSIGN_OR_RETURN(const Value* bound, Bound(static_cast<const Param&>(*expr), frame));
      return *bound;
    }
    case Expr::Kind::kLiteral:
      return Value::Of(static_cast<const Literal&>(*expr).value);
    case Expr::Kind::kFunCall: {
      const auto& call = static_cast<const FunCall&>(*expr);
      if (call.f->kind == Fun::Kind::kAt || call.f->kind == Fun::Kind::kGet) {
        return EvalElement(call, frame);
      }
      std::vector<Value> args;
      args.reserve(call.args.size());
      for (const ExprPtr& a : call.args) {
        DFC_ASSIGN_OR_RETURN(Value v, Eval(a, frame));
        args.push_back(std::move(v));
      }
      std::vector<TypePtr> types;
      for (const ExprPtr& a : call.args) types.push_back(a->type);
      return ApplyIn(*call.f, std::move(args), types, frame);
    }
  }
  return absl::InternalError("unknown expression kind");
}

namespace {

// Which element an At or Get selects from `whole`, or the error At reports for an index out of
// range. `index` is At's evaluated index.
absl::StatusOr<size_t> Selected(const Fun& f, const Value& whole, const Value* index) {
  if (f.kind == Fun::Kind::kGet) return As<GetPattern>(f).index;
  int64_t i = index->scalar.AsInt64();
  const int64_t n = static_cast<int64_t>(whole.elements.size());
  if (index->scalar.dtype == DType::kUInt64 && i < 0) i = n;  // huge: out of range
  if (i < 0 || i >= n) {
    return EvalError(f, absl::StrCat("index ", index->scalar.ToString(), " is not in [0, ", n, ")"));
  }
  return static_cast<size_t>(i);
}

}  // namespace

absl::StatusOr<Value> Interpreter::EvalElement(const FunCall& outer, Frame& frame) {
  // The chain from the outermost call in; every index is evaluated before any pointer into the
  // environment is taken, since evaluating one binds Params and may move the environment's values.
  std::vector<const FunCall*> chain = {&outer};
  while (chain.back()->args[0]->kind == Expr::Kind::kFunCall) {
    const auto& inner = static_cast<const FunCall&>(*chain.back()->args[0]);
    if (inner.f->kind != Fun::Kind::kAt && inner.f->kind != Fun::Kind::kGet) break;
    chain.push_back(&inner);
  }
  std::vector<Value> indices(chain.size());
  for (size_t k = 0; k < chain.size(); ++k) {
    if (chain[k]->f->kind == Fun::Kind::kAt) {
      DFC_ASSIGN_OR_RETURN(indices[k], Eval(chain[k]->args[1], frame));
    }
  }
  const ExprPtr& base = chain.back()->args[0];
  Value evaluated;
  const Value* at = &evaluated;
  if (base->kind == Expr::Kind::kParam) {
    DFC_ASSIGN_OR_RETURN(at, Bound(static_cast<const Param&>(*base), frame));
  } else {
    DFC_ASSIGN_OR_RETURN(evaluated, Eval(base, frame));
  }
  for (size_t k = chain.size(); k-- > 0;) {
    DFC_ASSIGN_OR_RETURN(size_t i, Selected(*chain[k]->f, *at, &indices[k]));
    at = &at->elements[i];
  }
  return *at;
}

absl::StatusOr<Value> Interpreter::ApplyIn(const Fun& f, std::vector<Value> args,
                                           const std::vector<TypePtr>& types, Frame& frame) {
  const auto& p = static_cast<const Pattern&>(f);
  switch (f.kind) {
    case Fun::Kind::kLambda: {
      const auto& lambda = static_cast<const Lambda&>(f);
      if (args.size() != lambda.params.size()) return EvalError(f, "wrong number of arguments");
      // Bind, evaluate, restore: a Lambda applied inside its own body's Map rebinds safely.
      std::vector<std::optional<Value>> saved;
      for (size_t k = 0; k < args.size(); ++k) {
        const Param* param = lambda.params[k].get();
        auto it = frame.env.find(param);
        saved.push_back(it == frame.env.end() ? std::nullopt
                                              : std::optional<Value>(std::move(it->second)));
        frame.env[param] = std::move(args[k]);
      }
      absl::StatusOr<Value> result = Eval(lambda.body, frame);
      for (size_t k = 0; k < saved.size(); ++k) {
        const Param* param = lambda.params[k].get();
        if (saved[k]) {
          frame.env[param] = std::move(*saved[k]);
        } else {
          frame.env.erase(param);
        }
      }
      return result;
    }
    case Fun::Kind::kUserFun: {
      const auto& uf = static_cast<const UserFun&>(f);
      ++calls_[uf.name];
      // Lane by lane on vectors, a scalar argument the same in every lane.
      const auto vector = std::ranges::find(args, Value::Kind::kVector, &Value::kind);
      if (vector != args.end()) {
        std::vector<Value> lanes;
        for (size_t lane = 0; lane < vector->elements.size(); ++lane) {
          std::vector<Scalar> scalars;
          for (const Value& a : args) {
            scalars.push_back(a.kind == Value::Kind::kVector ? a.elements[lane].scalar : a.scalar);
          }
          DFC_ASSIGN_OR_RETURN(Scalar s, uf.host(scalars));
          lanes.push_back(Value::Of(s));
        }
        return Value::Vector(std::move(lanes));
      }
      std::vector<Scalar> scalars;
      for (const Value& a : args) scalars.push_back(a.scalar);
      DFC_ASSIGN_OR_RETURN(Scalar s, uf.host(scalars));
      return Value::Of(s);
    }
    case Fun::Kind::kMap:
    case Fun::Kind::kMapGlb:
    case Fun::Kind::kMapWrg:
    case Fun::Kind::kMapLcl:
    case Fun::Kind::kMapSeq: {
      std::vector<Value> out;
      out.reserve(args[0].elements.size());
      for (Value& element : args[0].elements) {
        std::vector<Value> one;
        one.push_back(std::move(element));
        DFC_ASSIGN_OR_RETURN(
            Value v, ApplyIn(*As<FunPattern>(p).f, std::move(one), {types[0]->element}, frame));
        out.push_back(std::move(v));
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kReduce:
    case Fun::Kind::kReduceSeq:
    case Fun::Kind::kReduceLcl: {  // a combiner's order of folding changes rounding only
      Value acc = std::move(args[0]);
      for (Value& element : args[1].elements) {
        std::vector<Value> two;
        two.push_back(std::move(acc));
        two.push_back(std::move(element));
        DFC_ASSIGN_OR_RETURN(acc, ApplyIn(*As<FunPattern>(p).f, std::move(two),
                                          {types[0], types[1]->element}, frame));
      }
      return acc;
    }
    case Fun::Kind::kReduceLanes: {  // the device's order: lo and hi halves, then init
      std::vector<Value> lanes = std::move(args[1].elements[0].elements);
      for (size_t half = lanes.size() / 2; half >= 1; half /= 2) {
        for (size_t l = 0; l < half; ++l) {
          std::vector<Value> two;
          two.push_back(std::move(lanes[l]));
          two.push_back(std::move(lanes[l + half]));
          DFC_ASSIGN_OR_RETURN(
              lanes[l], ApplyIn(*As<FunPattern>(p).f, std::move(two), {types[0], types[0]}, frame));
        }
        lanes.resize(half);
      }
      std::vector<Value> two;
      two.push_back(std::move(args[0]));
      two.push_back(std::move(lanes[0]));
      return ApplyIn(*As<FunPattern>(p).f, std::move(two), {types[0], types[0]}, frame);
    }
    case Fun::Kind::kZip: {
      size_t n = args[0].elements.size();
      std::vector<Value> out(n);
      for (size_t i = 0; i < n; ++i) {
        std::vector<Value> fields;
        for (Value& a : args) fields.push_back(std::move(a.elements[i]));
        out[i] = Value::Tuple(std::move(fields));
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kGet:
    case Fun::Kind::kAt: {
      DFC_ASSIGN_OR_RETURN(size_t i,
                           Selected(f, args[0], args.size() > 1 ? &args[1] : nullptr));
      return std::move(args[0].elements[i]);
    }
    case Fun::Kind::kTuple:
      return Value::Tuple(std::move(args));
    case Fun::Kind::kSplit: {
      DFC_ASSIGN_OR_RETURN(int64_t chunk, Size(As<SplitPattern>(p).chunk));
      if (chunk <= 0) return EvalError(f, absl::StrCat("chunk size ", chunk, " is not positive"));
      std::vector<Value> out;
      std::vector<Value>& in = args[0].elements;
      for (size_t start = 0; start < in.size(); start += chunk) {
        std::vector<Value> part(std::make_move_iterator(in.begin() + start),
                                std::make_move_iterator(in.begin() + start + chunk));
        out.push_back(Value::Array(std::move(part)));
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kJoin: {
      std::vector<Value> out;
      for (Value& row : args[0].elements) {
        for (Value& v : row.elements) out.push_back(std::move(v));
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kTranspose:
    case Fun::Kind::kTransposeW: {
      // The row count comes from the type: an empty outer array still has inner arrays.
      DFC_ASSIGN_OR_RETURN(int64_t rows, Size(types[0]->element->length));
      std::vector<Value> out(rows, Value::Array({}));
      for (Value& row : args[0].elements) {
        for (int64_t j = 0; j < rows; ++j) out[j].elements.push_back(std::move(row.elements[j]));
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kSlide: {
      DFC_ASSIGN_OR_RETURN(int64_t size, Size(As<SlidePattern>(p).size));
      DFC_ASSIGN_OR_RETURN(int64_t step, Size(As<SlidePattern>(p).step));
      const std::vector<Value>& in = args[0].elements;
      std::vector<Value> out;
      for (int64_t start = 0; start + size <= static_cast<int64_t>(in.size()); start += step) {
        out.push_back(
            Value::Array(std::vector<Value>(in.begin() + start, in.begin() + start + size)));
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kPad: {
      DFC_ASSIGN_OR_RETURN(int64_t left, Size(As<PadPattern>(p).left));
      DFC_ASSIGN_OR_RETURN(int64_t right, Size(As<PadPattern>(p).right));
      const std::vector<Value>& in = args[0].elements;
      const int64_t n = static_cast<int64_t>(in.size());
      std::vector<Value> out;
      out.reserve(n + left + right);
      std::optional<Value> fill;
      for (int64_t j = -left; j < n + right; ++j) {
        if (j >= 0 && j < n) {
          out.push_back(in[j]);
          continue;
        }
        int64_t src = 0;
        switch (As<PadPattern>(p).mode) {
          case PadMode::kConstant:
            if (!fill) {
              DFC_ASSIGN_OR_RETURN(Value v,
                                   Filled(types[0]->element, As<PadPattern>(p).value, sizes_));
              fill = std::move(v);
            }
            out.push_back(*fill);
            continue;
          case PadMode::kClamp:
            src = std::clamp<int64_t>(j, 0, n - 1);
            break;
          case PadMode::kReflect:
            src = j < 0 ? -j : 2 * (n - 1) - j;
            break;
          case PadMode::kSymmetric:
            src = j < 0 ? -j - 1 : 2 * n - 1 - j;
            break;
        }
        if (src < 0 || src >= n) {
          return EvalError(f, absl::StrCat("padding reaches past an array of length ", n));
        }
        out.push_back(in[src]);
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kAsVector: {
      DFC_ASSIGN_OR_RETURN(int64_t width, Size(As<AsVectorPattern>(p).width));
      std::vector<Value> out;
      std::vector<Value>& in = args[0].elements;
      for (size_t start = 0; start < in.size(); start += width) {
        std::vector<Value> lanes(std::make_move_iterator(in.begin() + start),
                                 std::make_move_iterator(in.begin() + start + width));
        out.push_back(Value::Vector(std::move(lanes)));
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kAsScalar: {
      std::vector<Value> out;
      for (Value& v : args[0].elements) {
        for (Value& lane : v.elements) out.push_back(std::move(lane));
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kId:
      return std::move(args[0]);
    case Fun::Kind::kReindex: {
      DFC_ASSIGN_OR_RETURN(int64_t length, Size(As<ReindexPattern>(p).length));
      const std::vector<Value>& in = args[0].elements;
      SizeBindings at = sizes_;
      const std::string var = IndexVar().var_name();
      std::vector<Value> out;
      out.reserve(length);
      for (int64_t i = 0; i < length; ++i) {
        at[var] = i;
        DFC_ASSIGN_OR_RETURN(int64_t src, As<ReindexPattern>(p).index_fn.Evaluate(at));
        if (src < 0 || src >= static_cast<int64_t>(in.size())) {
          return absl::InternalError(absl::StrCat(FunName(f), ": index ", src, " for i = ", i,
                                                  " is outside an array of length ", in.size()));
        }
        out.push_back(in[src]);
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kConcat: {
      std::vector<Value> out;
      for (Value& a : args) {
        for (Value& v : a.elements) out.push_back(std::move(v));
      }
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kRepeat: {
      DFC_ASSIGN_OR_RETURN(int64_t count, Size(As<RepeatPattern>(p).count));
      return Value::Array(std::vector<Value>(count, args[0]));
    }
    case Fun::Kind::kIota: {
      DFC_ASSIGN_OR_RETURN(int64_t count, Size(As<SizePattern>(p).size));
      std::vector<Value> out;
      out.reserve(count);
      for (int64_t k = 0; k < count; ++k)
        out.push_back(Value::Of(Scalar::Int(As<SizePattern>(p).dtype, k)));
      return Value::Array(std::move(out));
    }
    case Fun::Kind::kSizeValue: {
      DFC_ASSIGN_OR_RETURN(int64_t value, Size(As<SizePattern>(p).size));
      return Value::Of(Scalar::Int(As<SizePattern>(p).dtype, value));
    }
    case Fun::Kind::kToGlobal:
    case Fun::Kind::kToLocal:
    case Fun::Kind::kToPrivate:
      return ApplyIn(*As<FunPattern>(p).f, std::move(args), types, frame);
  }
  return EvalError(f, "unknown function kind");
}

}  // namespace dfc::ir

// What every rule's test does (../shared/STYLE.md): after a match, the expression before and
// after the rewrite are evaluated by the IR interpreter (the oracle) on the same seeded random
// inputs, over several bindings of the size variables, and must give equal values.
#ifndef DFC_TESTS_RULE_TESTING_H_
#define DFC_TESTS_RULE_TESTING_H_

#include <random>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "gtest/gtest.h"
#include "ir/expr.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "ir/type.h"
#include "rewrite/device_profile.h"
#include "rewrite/rule.h"

namespace dfc::rewrite::testing {

// A random value of `type` (floats uniform in [-1, 1), integers in [-100, 100)).
inline absl::StatusOr<ir::Value> RandomValue(const ir::TypePtr& type, const SizeBindings& sizes,
                                             std::mt19937_64& rng) {
  if (type->is_array()) {
    DFC_ASSIGN_OR_RETURN(int64_t n, type->length.Evaluate(sizes));
    std::vector<ir::Value> elements;
    for (int64_t i = 0; i < n; ++i) {
      DFC_ASSIGN_OR_RETURN(ir::Value v, RandomValue(type->element, sizes, rng));
      elements.push_back(std::move(v));
    }
    return ir::Value::Array(std::move(elements));
  }
  if (type->is_tuple()) {
    std::vector<ir::Value> fields;
    for (const ir::TypePtr& t : type->elements) {
      DFC_ASSIGN_OR_RETURN(ir::Value v, RandomValue(t, sizes, rng));
      fields.push_back(std::move(v));
    }
    return ir::Value::Tuple(std::move(fields));
  }
  if (IsFloating(type->dtype)) {
    return ir::Value::Of(
        ir::Scalar::Float(type->dtype, std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng)));
  }
  return ir::Value::Of(
      ir::Scalar::Int(type->dtype, std::uniform_int_distribution<int>(-100, 99)(rng)));
}

// Rewrites `e` at its root with `rule` (which must match) and returns the result.
inline ir::ExprPtr MustRewrite(const Rule& rule, const ir::ExprPtr& e) {
  absl::StatusOr<std::variant<ir::ExprPtr, Decline>> r = ApplyAtRoot(rule, e);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return nullptr;
  if (const Decline* d = std::get_if<Decline>(&*r)) {
    ADD_FAILURE() << rule.name << " declined " << ir::ToString(e) << ": " << d->reason;
    return nullptr;
  }
  return std::get<ir::ExprPtr>(*r);
}

// The reason `rule` declines at the root of `e` ("" and a failure if it matches).
inline std::string DeclineReason(const Rule& rule, const ir::ExprPtr& e) {
  Match m = rule.match(e);
  if (const Decline* d = std::get_if<Decline>(&m)) return d->reason;
  ADD_FAILURE() << rule.name << " matched " << ir::ToString(e);
  return "";
}

// `before` and `after` give equal values for the same random `params` under each binding.
inline void ExpectEquivalent(const ir::ExprPtr& before, const ir::ExprPtr& after,
                             const std::vector<ir::ParamPtr>& params,
                             const std::vector<SizeBindings>& bindings, int seeds = 3) {
  ASSERT_NE(after, nullptr);
  for (const SizeBindings& sizes : bindings) {
    for (int seed = 0; seed < seeds; ++seed) {
      std::mt19937_64 rng(seed);
      absl::flat_hash_map<const ir::Param*, ir::Value> env;
      for (const ir::ParamPtr& p : params) {
        absl::StatusOr<ir::Value> v = RandomValue(p->type, sizes, rng);
        ASSERT_TRUE(v.ok()) << v.status();
        env[p.get()] = *std::move(v);
      }
      ir::Interpreter interpreter(sizes);
      absl::StatusOr<ir::Value> want = interpreter.Evaluate(before, env);
      absl::StatusOr<ir::Value> got = interpreter.Evaluate(after, env);
      ASSERT_TRUE(want.ok()) << want.status();
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(*got, *want) << "seed " << seed << "\nbefore: " << ir::ToString(before)
                             << "\nafter:  " << ir::ToString(after);
    }
  }
}

inline ir::ExprPtr Must(absl::StatusOr<ir::ExprPtr> e) {
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *e : nullptr;
}

// float -> float UserFuns with their host twins, and a float sum step (a combiner).
inline ir::FunPtr Unary(const std::string& name, const std::string& body, float (*host)(float)) {
  return ir::MakeUserFun(name, {"x"}, body, {DType::kFloat}, DType::kFloat,
                         [host](std::span<const ir::Scalar> a) -> absl::StatusOr<ir::Scalar> {
                           return ir::Scalar::Float(DType::kFloat,
                                                    host(static_cast<float>(a[0].f)));
                         });
}
inline ir::FunPtr Neg() {
  return Unary("neg", "return -x;", [](float x) { return -x; });
}
inline ir::FunPtr Twice() {
  return Unary("twice", "return 2 * x;", [](float x) { return 2 * x; });
}
inline ir::FunPtr Add() {
  return ir::MakeCombiner("add", "return acc + x;", DType::kFloat,
                          [](std::span<const ir::Scalar> a) -> absl::StatusOr<ir::Scalar> {
                            return ir::Scalar::Float(DType::kFloat, static_cast<float>(a[0].f) +
                                                                        static_cast<float>(a[1].f));
                          });
}

inline ir::TypePtr Floats(SymbolicShape shape) { return ir::TensorType(DType::kFloat, shape); }
inline ir::TypePtr Ints(SymbolicShape shape) { return ir::TensorType(DType::kInt32, shape); }

// int32 sum (a combiner) and product: sums of integers do not depend on their order, so a
// rule that reorders a sum gives exactly equal values on them.
inline ir::FunPtr IntAdd() {
  return ir::MakeCombiner("iadd", "return acc + x;", DType::kInt32,
                          [](std::span<const ir::Scalar> a) -> absl::StatusOr<ir::Scalar> {
                            return ir::Scalar::Int(DType::kInt32, a[0].i + a[1].i);
                          });
}
inline ir::FunPtr IntMul() {
  return ir::MakeUserFun("imul", {"x", "y"}, "return x * y;", {DType::kInt32, DType::kInt32},
                         DType::kInt32,
                         [](std::span<const ir::Scalar> a) -> absl::StatusOr<ir::Scalar> {
                           return ir::Scalar::Int(DType::kInt32, a[0].i * a[1].i);
                         });
}

// Reduce(iadd)(init, Map(λp => imul(p.0, p.1)) $ Zip(a, b)): a dot product as
// MatMul's translation makes it.
inline absl::StatusOr<ir::ExprPtr> Dot(const ir::ExprPtr& a, const ir::ExprPtr& b,
                                       int64_t init = 0) {
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr pairs, ir::Call(ir::Zip(2), {a, b}));
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr products,
                       ir::MapOver(pairs, [](ir::ExprPtr p) -> absl::StatusOr<ir::ExprPtr> {
                         DFC_ASSIGN_OR_RETURN(ir::ExprPtr x, ir::Call(ir::Get(0), {p}));
                         DFC_ASSIGN_OR_RETURN(ir::ExprPtr y, ir::Call(ir::Get(1), {p}));
                         return ir::Call(IntMul(), {x, y});
                       }));
  return ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, init)), products,
                        [](ir::ExprPtr acc, ir::ExprPtr v) {
                          return ir::Call(IntAdd(), {acc, v});
                        });
}

// The dot product of `row` with each column of `b`: Map(λcol => Dot(row, col)) $ Transpose(b).
inline absl::StatusOr<ir::ExprPtr> DotEachColumn(const ir::ExprPtr& row, const ir::ExprPtr& b) {
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr columns, ir::Call(ir::Transpose(), {b}));
  return ir::MapOver(
      columns, [&](ir::ExprPtr col) { return Dot(row, col); }, "col");
}

// A MatMul, a [N, k] times b [k, m], as dfc translates it: a Map over a's rows of DotEachColumn.
inline absl::StatusOr<ir::ExprPtr> MatMul(const ir::ExprPtr& a, const ir::ExprPtr& b) {
  return ir::MapOver(
      a, [&](ir::ExprPtr row) { return DotEachColumn(row, b); }, "row");
}

// The size variable the tests use, and bindings for it: one, a few, a multiple of the chunk
// sizes, a larger one.
// The named device profile ("cpu", "nvidia"), a failure where there is none.
inline DeviceProfile Profile(absl::string_view name) {
  absl::StatusOr<DeviceProfile> profile = NamedProfile(name);
  EXPECT_TRUE(profile.ok()) << profile.status();
  return profile.ok() ? *profile : DeviceProfile{};
}

inline const ArithExpr kN = ArithExpr::Var("N");
inline const std::vector<SizeBindings> kSizes = {{{"N", 1}}, {{"N", 3}}, {{"N", 12}}, {{"N", 96}}};

// A fold of rows into n accumulators: acc[j] = step(acc[j], row element (and the row's other
// array)), as the translations of a convolution (RowTimesMatrix: x times a filter row) and of a
// pool (the max of the window's rows of channels) write it.
inline ir::ExprPtr FoldIntoAccumulators(const ir::ExprPtr& init, int64_t n, const ir::ExprPtr& rows,
                                        bool times_scalar) {
  const ir::ExprPtr inits = Must(ir::Call(ir::Repeat(n), {init}));
  return Must(ir::ReduceOver(
      inits, rows, [&](ir::ExprPtr acc, ir::ExprPtr p) -> absl::StatusOr<ir::ExprPtr> {
        if (!times_scalar) {  // p is a row of n: acc[j] = max-like step of (acc[j], p[j])
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr pairs, ir::Call(ir::Zip(2), {acc, p}));
          return ir::MapOver(pairs, [](ir::ExprPtr q) -> absl::StatusOr<ir::ExprPtr> {
            DFC_ASSIGN_OR_RETURN(ir::ExprPtr a, ir::Call(ir::Get(0), {q}));
            DFC_ASSIGN_OR_RETURN(ir::ExprPtr x, ir::Call(ir::Get(1), {q}));
            return ir::Call(IntAdd(), {a, x});
          });
        }
        // p is (x, row of n): acc[j] = acc[j] + x * row[j]
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr x, ir::Call(ir::Get(0), {p}));
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr w, ir::Call(ir::Get(1), {p}));
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr pairs, ir::Call(ir::Zip(2), {acc, w}));
        return ir::MapOver(pairs, [&](ir::ExprPtr q) -> absl::StatusOr<ir::ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr a, ir::Call(ir::Get(0), {q}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr y, ir::Call(ir::Get(1), {q}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr product, ir::Call(IntMul(), {x, y}));
          return ir::Call(IntAdd(), {a, product});
        });
      }));
}

inline const ir::ExprPtr kZero = ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0));

}  // namespace dfc::rewrite::testing

#endif  // DFC_TESTS_RULE_TESTING_H_

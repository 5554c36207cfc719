// The IR interpreter: evaluates any expression, high-level or lowered, on host values. It is
// the oracle for every rewrite, and every translation is checked by it against the reference
// executor. Lowered patterns evaluate as their high-level twins (MapGlb as Map, ReduceSeq as
// Reduce, ToGlobal(f) as f): memory and parallelism do not change values.
#ifndef DFC_IR_INTERPRETER_H_
#define DFC_IR_INTERPRETER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/arith.h"
#include "ir/expr.h"
#include "ir/value.h"

namespace dfc::ir {

class Interpreter {
 public:
  explicit Interpreter(SizeBindings sizes = {}) : sizes_(std::move(sizes)) {}

  // Evaluates `expr` with its free Params bound by `env`. Errors: an unbound Param or size
  // variable, an At index out of range, a UserFun whose host twin refuses its input.
  absl::StatusOr<Value> Evaluate(const ExprPtr& expr,
                                 const absl::flat_hash_map<const Param*, Value>& env = {});
  // Applies a function (a Lambda of a whole cluster, say) to argument values.
  absl::StatusOr<Value> Apply(const FunPtr& f, std::vector<Value> args);

  // How many times each UserFun has been applied, by name: tests use it to prove that a
  // shared value was computed once.
  const absl::flat_hash_map<std::string, int64_t>& calls() const { return calls_; }

 private:
  struct Frame;
  absl::StatusOr<Value> Eval(const ExprPtr& expr, Frame& frame);
  // The value `p` is bound to in `frame`, or the error that it is unbound.
  static absl::StatusOr<const Value*> Bound(const Param& p, const Frame& frame);
  // Eval of a chain of At and Get calls: the chain walks its base in place when that is a bound
  // Param, so reading one pixel of an image copies the pixel, not the image.
  absl::StatusOr<Value> EvalElement(const FunCall& call, Frame& frame);
  // `types` are the argument types: lengths that only a type knows (the inner length of an
  // empty array of arrays) come from them.
  absl::StatusOr<Value> ApplyIn(const Fun& f, std::vector<Value> args,
                                const std::vector<TypePtr>& types, Frame& frame);
  absl::StatusOr<int64_t> Size(const ArithExpr& e, const SizeBindings& extra = {}) const;

  SizeBindings sizes_;
  absl::flat_hash_map<std::string, int64_t> calls_;
};

}  // namespace dfc::ir

#endif  // DFC_IR_INTERPRETER_H_

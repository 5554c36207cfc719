// Walking the IR, written once, after Halide's IRVisitor and IRMutator.
//
// The children of a node, in the order every walk takes them: a FunCall's arguments, first to
// last, then its function; a Lambda's body; a pattern's function (Map(f), Reduce(f), To*(f)).
// Params, Literals and UserFuns have none. A walk is pre-order: a node before its children.
//
// ExprVisitor reads; ExprMutator rebuilds. A mutator's default recursion returns the very node
// it was given when no child changed, so sharing survives a rewrite and "did anything change?"
// is a pointer compare.
#ifndef DFC_IR_TRAVERSE_H_
#define DFC_IR_TRAVERSE_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"

namespace dfc::ir {

class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;

  // Visits `e` by its kind. A subclass that overrides this (a search that stops once it found
  // what it looks for) calls ExprVisitor::Visit to go on.
  virtual void Visit(const ExprPtr& e);
  // Visits what `f` holds, by its kind.
  virtual void VisitFun(const Fun& f);

  virtual void VisitParam(const Param&) {}
  virtual void VisitLiteral(const Literal&) {}
  // The arguments, then the function.
  virtual void VisitCall(const FunCall& call);
  // The body (a subclass that tracks bound parameters binds lambda.params around it).
  virtual void VisitLambda(const Lambda& lambda);
  // The function the pattern applies, if it has one.
  virtual void VisitPattern(const Pattern& pattern);
};

// A visitor that knows the parameters bound by the λs between where its walk started and the
// node it visits (a rule's question "does this read nothing bound inside the Map?").
class ScopedExprVisitor : public ExprVisitor {
 public:
  void VisitLambda(const Lambda& lambda) override;

 protected:
  const std::vector<const Param*>& bound() const { return bound_; }
  // Whether `e` reads no parameter in bound().
  bool ReadsNothingBound(const Expr& e) const;

 private:
  std::vector<const Param*> bound_;
};

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;

  // `e` mutated, by its kind: `e` itself when nothing in it changed.
  virtual absl::StatusOr<ExprPtr> Mutate(const ExprPtr& e);
  // `f` mutated, by its kind: `f` itself when nothing in it changed.
  virtual absl::StatusOr<FunPtr> MutateFun(const FunPtr& f);

 protected:
  virtual absl::StatusOr<ExprPtr> MutateParam(const ExprPtr& e) { return e; }
  virtual absl::StatusOr<ExprPtr> MutateLiteral(const ExprPtr& e) { return e; }
  // The arguments, then the function; a changed call is made again with ir::Call, which infers
  // its type anew.
  virtual absl::StatusOr<ExprPtr> MutateCall(const ExprPtr& e, const FunCall& call);
  // The body, under the same parameters.
  virtual absl::StatusOr<FunPtr> MutateLambda(const FunPtr& f, const Lambda& lambda);
  // The function the pattern applies, if it has one (WithFunction).
  virtual absl::StatusOr<FunPtr> MutatePattern(const FunPtr& f, const Pattern& pattern);
};

// Calls `visit` on every expression of `e`, pre-order; where it returns false, the
// expression's children are skipped.
void Walk(const ExprPtr& e, const std::function<bool(const ExprPtr&)>& visit);

// The expression of `e` at `position`, counted pre-order from 0 (e itself), replaced by
// `value` of its type: what a search that numbered the places it could rewrite (ApplyAtEach)
// rewrites one at a time. `e` itself if there is no such position.
absl::StatusOr<ExprPtr> ReplaceAt(const ExprPtr& e, int64_t position, const ExprPtr& value);

}  // namespace dfc::ir

#endif  // DFC_IR_TRAVERSE_H_

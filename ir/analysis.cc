// IR queries and substitutions (see analysis.h), each a walk of ir/traverse.h.
#include "ir/analysis.h"

#include <algorithm>

#include "base/status.h"
#include "ir/traverse.h"

namespace dfc::ir {
namespace {

// Counts the reads of one parameter, a read under a Map's or a Reduce's function as two.
class ReadCounter : public ExprVisitor {
 public:
  explicit ReadCounter(const Param* param) : param_(param) {}
  int reads() const { return std::min(reads_, 2); }

  void Visit(const ExprPtr& e) override {
    if (reads_ < 2) ExprVisitor::Visit(e);
  }
  void VisitParam(const Param& p) override { reads_ += &p == param_ ? 1 : 0; }
  void VisitPattern(const Pattern& p) override {
    const int before = reads_;
    ExprVisitor::VisitPattern(p);
    if ((IsMap(p.kind) || IsReduce(p.kind)) && reads_ > before) reads_ = before + 2;
  }

 private:
  const Param* const param_;
  int reads_ = 0;
};

// Whether a UserFun or a Reduce is applied anywhere.
class ArithmeticFinder : public ExprVisitor {
 public:
  bool found() const { return found_; }
  void Visit(const ExprPtr& e) override {
    if (!found_) ExprVisitor::Visit(e);
  }
  void VisitFun(const Fun& f) override {
    found_ = found_ || f.kind == Fun::Kind::kUserFun || IsReduce(f.kind);
    if (!found_) ExprVisitor::VisitFun(f);
  }

 private:
  bool found_ = false;
};

class ParamSubstituter : public ExprMutator {
 public:
  ParamSubstituter(const Param* param, const ExprPtr& value) : param_(param), value_(value) {}
  absl::StatusOr<ExprPtr> MutateParam(const ExprPtr& e) override {
    return e.get() == param_ ? value_ : e;
  }

 private:
  const Param* const param_;
  const ExprPtr& value_;
};

class TargetReplacer : public ExprMutator {
 public:
  TargetReplacer(const std::function<bool(const ExprPtr&)>& is_target, const ExprPtr& value)
      : is_target_(is_target), value_(value) {}
  absl::StatusOr<ExprPtr> Mutate(const ExprPtr& e) override {
    if (is_target_(e)) return value_;
    return ExprMutator::Mutate(e);
  }

 private:
  const std::function<bool(const ExprPtr&)>& is_target_;
  const ExprPtr& value_;
};

}  // namespace

int Reads(const Expr& e, const Param* param) {
  if (e.kind == Expr::Kind::kParam) return &e == param ? 1 : 0;
  if (e.kind != Expr::Kind::kFunCall) return 0;
  ReadCounter counter(param);
  counter.VisitCall(static_cast<const FunCall&>(e));
  return counter.reads();
}

int Reads(const Fun& f, const Param* param) {
  ReadCounter counter(param);
  counter.VisitFun(f);
  return counter.reads();
}

bool Computes(const Expr& e) {
  if (e.kind != Expr::Kind::kFunCall) return false;
  ArithmeticFinder finder;
  finder.VisitCall(static_cast<const FunCall&>(e));
  return finder.found();
}

bool Computes(const Fun& f) {
  if (f.kind == Fun::Kind::kUserFun || IsReduce(f.kind)) return true;
  ArithmeticFinder finder;
  finder.VisitFun(f);
  return finder.found();
}

absl::StatusOr<ExprPtr> Substitute(const ExprPtr& e, const Param* param, const ExprPtr& value) {
  return ParamSubstituter(param, value).Mutate(e);
}

absl::StatusOr<ExprPtr> ReplaceWhere(const ExprPtr& e,
                                     const std::function<bool(const ExprPtr&)>& is_target,
                                     const ExprPtr& value) {
  return TargetReplacer(is_target, value).Mutate(e);
}

FunPtr CombinerOf(const FunPtr& step) {
  if (step->kind == Fun::Kind::kUserFun) {
    return static_cast<const UserFun&>(*step).combiner ? step : nullptr;
  }
  if (step->kind != Fun::Kind::kLambda) return nullptr;
  const auto& lambda = static_cast<const Lambda&>(*step);
  if (lambda.params.size() != 2 || lambda.body->kind != Expr::Kind::kFunCall) return nullptr;
  const auto& call = static_cast<const FunCall&>(*lambda.body);
  if (call.f->kind != Fun::Kind::kUserFun || call.args.size() != 2 ||
      call.args[0] != lambda.params[0] || call.args[1] != lambda.params[1]) {
    return nullptr;
  }
  return CombinerOf(call.f);
}

}  // namespace dfc::ir

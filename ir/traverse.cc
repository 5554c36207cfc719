// The IR's one descent (see traverse.h).
#include "ir/traverse.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "base/status.h"
#include "ir/analysis.h"

namespace dfc::ir {

void ExprVisitor::Visit(const ExprPtr& e) {
  switch (e->kind) {
    case Expr::Kind::kParam:
      return VisitParam(static_cast<const Param&>(*e));
    case Expr::Kind::kLiteral:
      return VisitLiteral(static_cast<const Literal&>(*e));
    case Expr::Kind::kFunCall:
      return VisitCall(static_cast<const FunCall&>(*e));
  }
}

void ExprVisitor::VisitFun(const Fun& f) {
  switch (f.kind) {
    case Fun::Kind::kLambda:
      return VisitLambda(static_cast<const Lambda&>(f));
    case Fun::Kind::kUserFun:
      return;
    default:
      return VisitPattern(static_cast<const Pattern&>(f));
  }
}

void ExprVisitor::VisitCall(const FunCall& call) {
  for (const ExprPtr& a : call.args) Visit(a);
  VisitFun(*call.f);
}

void ExprVisitor::VisitLambda(const Lambda& lambda) { Visit(lambda.body); }

void ExprVisitor::VisitPattern(const Pattern& pattern) {
  if (FunPattern::Holds(pattern.kind)) VisitFun(*As<FunPattern>(pattern).f);
}

void ScopedExprVisitor::VisitLambda(const Lambda& lambda) {
  for (const ParamPtr& p : lambda.params) bound_.push_back(p.get());
  ExprVisitor::VisitLambda(lambda);
  bound_.resize(bound_.size() - lambda.params.size());
}

bool ScopedExprVisitor::ReadsNothingBound(const Expr& e) const {
  return std::ranges::none_of(bound_, [&](const Param* p) { return Reads(e, p) > 0; });
}

absl::StatusOr<ExprPtr> ExprMutator::Mutate(const ExprPtr& e) {
  switch (e->kind) {
    case Expr::Kind::kParam:
      return MutateParam(e);
    case Expr::Kind::kLiteral:
      return MutateLiteral(e);
    case Expr::Kind::kFunCall:
      return MutateCall(e, static_cast<const FunCall&>(*e));
  }
  return e;
}

absl::StatusOr<FunPtr> ExprMutator::MutateFun(const FunPtr& f) {
  switch (f->kind) {
    case Fun::Kind::kLambda:
      return MutateLambda(f, static_cast<const Lambda&>(*f));
    case Fun::Kind::kUserFun:
      return f;
    default:
      return MutatePattern(f, static_cast<const Pattern&>(*f));
  }
}

absl::StatusOr<ExprPtr> ExprMutator::MutateCall(const ExprPtr& e, const FunCall& call) {
  std::vector<ExprPtr> args;
  args.reserve(call.args.size());
  bool changed = false;
  for (const ExprPtr& a : call.args) {
    DFC_ASSIGN_OR_RETURN(ExprPtr arg, Mutate(a));
    changed = changed || arg != a;
    args.push_back(std::move(arg));
  }
  DFC_ASSIGN_OR_RETURN(FunPtr f, MutateFun(call.f));
  if (!changed && f == call.f) return e;
  return Call(std::move(f), std::move(args));
}

absl::StatusOr<FunPtr> ExprMutator::MutateLambda(const FunPtr& f, const Lambda& lambda) {
  DFC_ASSIGN_OR_RETURN(ExprPtr body, Mutate(lambda.body));
  if (body == lambda.body) return f;
  return std::make_shared<Lambda>(lambda.params, std::move(body));
}

absl::StatusOr<FunPtr> ExprMutator::MutatePattern(const FunPtr& f, const Pattern& pattern) {
  if (!FunPattern::Holds(pattern.kind)) return f;
  const auto& applying = As<FunPattern>(pattern);
  DFC_ASSIGN_OR_RETURN(FunPtr inner, MutateFun(applying.f));
  if (inner == applying.f) return f;
  return WithFunction(applying, std::move(inner));
}

namespace {

class Walker : public ExprVisitor {
 public:
  explicit Walker(const std::function<bool(const ExprPtr&)>& visit) : visit_(visit) {}
  void Visit(const ExprPtr& e) override {
    if (visit_(e)) ExprVisitor::Visit(e);
  }

 private:
  const std::function<bool(const ExprPtr&)>& visit_;
};

class PositionReplacer : public ExprMutator {
 public:
  PositionReplacer(int64_t position, const ExprPtr& value) : position_(position), value_(value) {}
  absl::StatusOr<ExprPtr> Mutate(const ExprPtr& e) override {
    if (next_ > position_) return e;  // replaced already: the rest stays as it is
    if (next_++ == position_) return value_;
    return ExprMutator::Mutate(e);
  }

 private:
  const int64_t position_;
  const ExprPtr& value_;
  int64_t next_ = 0;
};

}  // namespace

void Walk(const ExprPtr& e, const std::function<bool(const ExprPtr&)>& visit) {
  Walker(visit).Visit(e);
}

absl::StatusOr<ExprPtr> ReplaceAt(const ExprPtr& e, int64_t position, const ExprPtr& value) {
  return PositionReplacer(position, value).Mutate(e);
}

}  // namespace dfc::ir

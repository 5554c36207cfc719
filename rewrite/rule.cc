// The rule driver (see rule.h).
#include "rewrite/rule.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/check.h"
#include "ir/printer.h"
#include "ir/type.h"

namespace dfc::rewrite {
namespace {

absl::StatusOr<ir::FunPtr> ApplyOnceIn(const Rule& rule, const ir::FunPtr& f);

}  // namespace

absl::StatusOr<std::variant<ir::ExprPtr, Decline>> ApplyAtRoot(const Rule& rule,
                                                               const ir::ExprPtr& e) {
  Match match = rule.match(e);
  if (auto* decline = std::get_if<Decline>(&match)) return *decline;
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr rewritten, std::get<Rewrite>(match)());
  if (!ir::TypeEquals(rewritten->type, e->type)) {
    return absl::InternalError(absl::StrCat(
        "rule ", rule.name, " (", rule.law, ") changed type ", ir::TypeToString(e->type), " to ",
        ir::TypeToString(rewritten->type), " rewriting ", ir::ToString(e)));
  }
  return rewritten;
}

absl::StatusOr<ir::ExprPtr> ApplyOnce(const Rule& rule, const ir::ExprPtr& e) {
  DFC_ASSIGN_OR_RETURN(auto at_root, ApplyAtRoot(rule, e));
  if (auto* rewritten = std::get_if<ir::ExprPtr>(&at_root)) return *rewritten;
  if (e->kind != ir::Expr::Kind::kFunCall) return nullptr;
  const auto& call = static_cast<const ir::FunCall&>(*e);
  for (size_t k = 0; k < call.args.size(); ++k) {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr arg, ApplyOnce(rule, call.args[k]));
    if (arg == nullptr) continue;
    std::vector<ir::ExprPtr> args = call.args;
    args[k] = std::move(arg);
    return ir::Call(call.f, std::move(args));
  }
  DFC_ASSIGN_OR_RETURN(ir::FunPtr f, ApplyOnceIn(rule, call.f));
  if (f == nullptr) return nullptr;
  return ir::Call(std::move(f), call.args);
}

absl::StatusOr<ir::ExprPtr> ApplyEverywhere(const Rule& rule, const ir::ExprPtr& e, int* count,
                                            int limit) {
  ir::ExprPtr current = e;
  for (int n = 0; n < limit; ++n) {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr next, ApplyOnce(rule, current));
    if (next == nullptr) {
      if (count != nullptr) *count = n;
      return current;
    }
    current = std::move(next);
  }
  return absl::InternalError(absl::StrCat("rule ", rule.name, " still matched after ", limit,
                                          " rewrites of ", ir::ToString(e)));
}

ir::FunPtr WithFunction(const ir::Pattern& pattern, ir::FunPtr f) {
  auto copy = std::make_shared<ir::Pattern>(pattern);
  copy->f = std::move(f);
  return copy;
}

const ir::FunCall* CallOf(const ir::ExprPtr& e, ir::Fun::Kind kind) {
  if (e->kind != ir::Expr::Kind::kFunCall) return nullptr;
  const auto* call = static_cast<const ir::FunCall*>(e.get());
  return call->f->kind == kind ? call : nullptr;
}

const ir::FunCall* MapCall(const ir::ExprPtr& e) {
  if (e->kind != ir::Expr::Kind::kFunCall) return nullptr;
  const auto* call = static_cast<const ir::FunCall*>(e.get());
  return ir::IsMap(call->f->kind) ? call : nullptr;
}

const ir::FunCall* ReduceCall(const ir::ExprPtr& e) {
  if (e->kind != ir::Expr::Kind::kFunCall) return nullptr;
  const auto* call = static_cast<const ir::FunCall*>(e.get());
  return ir::IsReduce(call->f->kind) ? call : nullptr;
}

ir::FunPtr CombinerOf(const ir::FunPtr& step) {
  if (step->kind == ir::Fun::Kind::kUserFun) {
    return static_cast<const ir::UserFun&>(*step).combiner ? step : nullptr;
  }
  if (step->kind != ir::Fun::Kind::kLambda) return nullptr;
  const auto& lambda = static_cast<const ir::Lambda&>(*step);
  const ir::FunCall* call = CallOf(lambda.body, ir::Fun::Kind::kUserFun);
  if (lambda.params.size() != 2 || call == nullptr || call->args.size() != 2 ||
      call->args[0] != lambda.params[0] || call->args[1] != lambda.params[1]) {
    return nullptr;
  }
  return CombinerOf(call->f);
}

std::optional<Decline> CheckIdempotentInit(const ir::Fun& combiner, const ir::ExprPtr& init) {
  if (init->kind != ir::Expr::Kind::kLiteral) return Decline{"init is not a literal"};
  const ir::Scalar& value = static_cast<const ir::Literal&>(*init).value;
  const ir::Scalar twice[] = {value, value};
  absl::StatusOr<ir::Scalar> combined = static_cast<const ir::UserFun&>(combiner).host(twice);
  if (!combined.ok() || !(*combined == value)) {
    return Decline{"init is not left unchanged by combining it with itself"};
  }
  return std::nullopt;
}

int Reads(const ir::Fun& f, const ir::Param* param) {
  if (f.kind == ir::Fun::Kind::kLambda) {
    return Reads(*static_cast<const ir::Lambda&>(f).body, param);
  }
  if (f.kind == ir::Fun::Kind::kUserFun) return 0;
  const auto& p = static_cast<const ir::Pattern&>(f);
  if (p.f == nullptr) return 0;
  const int inner = Reads(*p.f, param);
  const bool per_element = ir::IsMap(f.kind) || ir::IsReduce(f.kind);
  return per_element && inner > 0 ? 2 : inner;
}

int Reads(const ir::Expr& e, const ir::Param* param) {
  if (e.kind == ir::Expr::Kind::kParam) return &e == param ? 1 : 0;
  if (e.kind != ir::Expr::Kind::kFunCall) return 0;
  const auto& call = static_cast<const ir::FunCall&>(e);
  int n = Reads(*call.f, param);
  for (const ir::ExprPtr& a : call.args) n += Reads(*a, param);
  return std::min(n, 2);
}

namespace {

absl::StatusOr<ir::FunPtr> SubstituteIn(const ir::FunPtr& f, const ir::Param* param,
                                        const ir::ExprPtr& value) {
  if (Reads(*f, param) == 0) return f;
  if (f->kind == ir::Fun::Kind::kLambda) {
    const auto& lambda = static_cast<const ir::Lambda&>(*f);
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr body, Substitute(lambda.body, param, value));
    return std::make_shared<ir::Lambda>(lambda.params, std::move(body));
  }
  const auto& pattern = static_cast<const ir::Pattern&>(*f);
  DFC_ASSIGN_OR_RETURN(ir::FunPtr inner, SubstituteIn(pattern.f, param, value));
  return WithFunction(pattern, std::move(inner));
}

}  // namespace

absl::StatusOr<ir::ExprPtr> Substitute(const ir::ExprPtr& e, const ir::Param* param,
                                       const ir::ExprPtr& value) {
  if (e.get() == param) return value;
  if (e->kind != ir::Expr::Kind::kFunCall || Reads(*e, param) == 0) return e;
  const auto& call = static_cast<const ir::FunCall&>(*e);
  std::vector<ir::ExprPtr> args;
  for (const ir::ExprPtr& a : call.args) {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr arg, Substitute(a, param, value));
    args.push_back(std::move(arg));
  }
  DFC_ASSIGN_OR_RETURN(ir::FunPtr f, SubstituteIn(call.f, param, value));
  return ir::Call(std::move(f), std::move(args));
}

namespace {

absl::StatusOr<ir::FunPtr> ReplaceIn(const ir::FunPtr& f,
                                     const std::function<bool(const ir::ExprPtr&)>& is_target,
                                     const ir::ExprPtr& value) {
  if (f->kind == ir::Fun::Kind::kLambda) {
    const auto& lambda = static_cast<const ir::Lambda&>(*f);
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr body, ReplaceWhere(lambda.body, is_target, value));
    if (body == lambda.body) return f;
    return std::make_shared<ir::Lambda>(lambda.params, std::move(body));
  }
  if (f->kind == ir::Fun::Kind::kUserFun) return f;
  const auto& pattern = static_cast<const ir::Pattern&>(*f);
  if (pattern.f == nullptr) return f;
  DFC_ASSIGN_OR_RETURN(ir::FunPtr inner, ReplaceIn(pattern.f, is_target, value));
  if (inner == pattern.f) return f;
  return WithFunction(pattern, std::move(inner));
}

}  // namespace

absl::StatusOr<ir::ExprPtr> ReplaceWhere(const ir::ExprPtr& e,
                                         const std::function<bool(const ir::ExprPtr&)>& is_target,
                                         const ir::ExprPtr& value) {
  if (is_target(e)) return value;
  if (e->kind != ir::Expr::Kind::kFunCall) return e;
  const auto& call = static_cast<const ir::FunCall&>(*e);
  bool changed = false;
  std::vector<ir::ExprPtr> args;
  for (const ir::ExprPtr& a : call.args) {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr arg, ReplaceWhere(a, is_target, value));
    changed = changed || arg != a;
    args.push_back(std::move(arg));
  }
  DFC_ASSIGN_OR_RETURN(ir::FunPtr f, ReplaceIn(call.f, is_target, value));
  if (!changed && f == call.f) return e;
  return ir::Call(std::move(f), std::move(args));
}

namespace {

absl::Status ApplyAtEachIn(const Rule& rule, const ir::FunPtr& f, int limit,
                           std::vector<ir::FunPtr>& out);

absl::Status ApplyAtEachInto(const Rule& rule, const ir::ExprPtr& e, int limit,
                             std::vector<ir::ExprPtr>& out) {
  if (static_cast<int>(out.size()) >= limit) return absl::OkStatus();
  DFC_ASSIGN_OR_RETURN(auto at_root, ApplyAtRoot(rule, e));
  if (auto* rewritten = std::get_if<ir::ExprPtr>(&at_root)) out.push_back(*rewritten);
  if (e->kind != ir::Expr::Kind::kFunCall) return absl::OkStatus();
  const auto& call = static_cast<const ir::FunCall&>(*e);
  for (size_t k = 0; k < call.args.size(); ++k) {
    std::vector<ir::ExprPtr> rewrites;
    DFC_RETURN_IF_ERROR(
        ApplyAtEachInto(rule, call.args[k], limit - static_cast<int>(out.size()), rewrites));
    for (ir::ExprPtr& arg : rewrites) {
      std::vector<ir::ExprPtr> args = call.args;
      args[k] = std::move(arg);
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr rebuilt, ir::Call(call.f, std::move(args)));
      out.push_back(std::move(rebuilt));
    }
  }
  std::vector<ir::FunPtr> functions;
  DFC_RETURN_IF_ERROR(ApplyAtEachIn(rule, call.f, limit - static_cast<int>(out.size()), functions));
  for (ir::FunPtr& f : functions) {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr rebuilt, ir::Call(std::move(f), call.args));
    out.push_back(std::move(rebuilt));
  }
  return absl::OkStatus();
}

absl::Status ApplyAtEachIn(const Rule& rule, const ir::FunPtr& f, int limit,
                           std::vector<ir::FunPtr>& out) {
  if (f->kind == ir::Fun::Kind::kLambda) {
    const auto& lambda = static_cast<const ir::Lambda&>(*f);
    std::vector<ir::ExprPtr> bodies;
    DFC_RETURN_IF_ERROR(ApplyAtEachInto(rule, lambda.body, limit, bodies));
    for (ir::ExprPtr& body : bodies) {
      out.push_back(std::make_shared<ir::Lambda>(lambda.params, std::move(body)));
    }
    return absl::OkStatus();
  }
  if (f->kind == ir::Fun::Kind::kUserFun) return absl::OkStatus();
  const auto& pattern = static_cast<const ir::Pattern&>(*f);
  if (pattern.f == nullptr) return absl::OkStatus();
  std::vector<ir::FunPtr> inner;
  DFC_RETURN_IF_ERROR(ApplyAtEachIn(rule, pattern.f, limit, inner));
  for (ir::FunPtr& g : inner) out.push_back(WithFunction(pattern, std::move(g)));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<ir::ExprPtr>> ApplyAtEach(const Rule& rule, const ir::ExprPtr& e,
                                                     int limit) {
  std::vector<ir::ExprPtr> out;
  DFC_RETURN_IF_ERROR(ApplyAtEachInto(rule, e, limit, out));
  if (static_cast<int>(out.size()) > limit) out.resize(limit);
  return out;
}

namespace {

// The first rewrite inside a function: a Lambda's body, or the function a pattern applies.
absl::StatusOr<ir::FunPtr> ApplyOnceIn(const Rule& rule, const ir::FunPtr& f) {
  if (f->kind == ir::Fun::Kind::kLambda) {
    const auto& lambda = static_cast<const ir::Lambda&>(*f);
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr body, ApplyOnce(rule, lambda.body));
    if (body == nullptr) return nullptr;
    return std::make_shared<ir::Lambda>(lambda.params, std::move(body));
  }
  if (f->kind == ir::Fun::Kind::kUserFun) return nullptr;
  const auto& pattern = static_cast<const ir::Pattern&>(*f);
  if (pattern.f == nullptr) return nullptr;
  DFC_ASSIGN_OR_RETURN(ir::FunPtr inner, ApplyOnceIn(rule, pattern.f));
  if (inner == nullptr) return nullptr;
  return WithFunction(pattern, std::move(inner));
}

}  // namespace
}  // namespace dfc::rewrite

// The rule driver (see rule.h).
#include "rewrite/rule.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "ir/printer.h"
#include "ir/traverse.h"
#include "ir/type.h"

namespace dfc::rewrite {
namespace {

// Rewrites the first place, pre-order, where the rule matches.
class FirstRewrite : public ir::ExprMutator {
 public:
  explicit FirstRewrite(const Rule& rule) : rule_(rule) {}
  bool rewrote() const { return rewrote_; }

  absl::StatusOr<ir::ExprPtr> Mutate(const ir::ExprPtr& e) override {
    if (rewrote_) return e;
    DFC_ASSIGN_OR_RETURN(auto at_root, ApplyAtRoot(rule_, e));
    if (auto* rewritten = std::get_if<ir::ExprPtr>(&at_root)) {
      rewrote_ = true;
      return *rewritten;
    }
    return ir::ExprMutator::Mutate(e);
  }

 private:
  const Rule& rule_;
  bool rewrote_ = false;
};

// Every place, pre-order, where the rule matches (numbered as ir::ReplaceAt counts them), with
// its rewrite; at most `limit`.
class EveryRewrite : public ir::ExprVisitor {
 public:
  EveryRewrite(const Rule& rule, int limit) : rule_(rule), limit_(limit) {}
  const absl::Status& status() const { return status_; }
  const std::vector<std::pair<int64_t, ir::ExprPtr>>& rewrites() const { return rewrites_; }

  void Visit(const ir::ExprPtr& e) override {
    if (!status_.ok() || static_cast<int>(rewrites_.size()) >= limit_) return;
    const int64_t position = next_++;
    absl::StatusOr<std::variant<ir::ExprPtr, Decline>> at_root = ApplyAtRoot(rule_, e);
    if (!at_root.ok()) {
      status_ = at_root.status();
      return;
    }
    if (auto* rewritten = std::get_if<ir::ExprPtr>(&*at_root)) {
      rewrites_.emplace_back(position, *rewritten);
    }
    ir::ExprVisitor::Visit(e);
  }

 private:
  const Rule& rule_;
  const int limit_;
  absl::Status status_;
  int64_t next_ = 0;
  std::vector<std::pair<int64_t, ir::ExprPtr>> rewrites_;
};

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
  FirstRewrite first(rule);
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr rewritten, first.Mutate(e));
  return first.rewrote() ? rewritten : nullptr;
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

absl::StatusOr<std::vector<ir::ExprPtr>> ApplyAtEach(const Rule& rule, const ir::ExprPtr& e,
                                                     int limit) {
  EveryRewrite every(rule, limit);
  every.Visit(e);
  DFC_RETURN_IF_ERROR(every.status());
  std::vector<ir::ExprPtr> out;
  for (const auto& [position, rewritten] : every.rewrites()) {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr whole, ir::ReplaceAt(e, position, rewritten));
    out.push_back(std::move(whole));
  }
  return out;
}

absl::StatusOr<ir::ExprPtr> SplitIntoBlocks(const ir::ExprPtr& x, int rows) {
  const ArithExpr& n = x->type->length;
  ir::ExprPtr padded = x;
  if ((n % rows).AsConstant() != std::optional<int64_t>(0)) {
    DFC_ASSIGN_OR_RETURN(
        padded,
        ir::Call(ir::Pad(0, ArithExpr::CeilDiv(n, rows) * rows - n, ir::PadMode::kClamp), {x}));
  }
  return ir::Call(ir::Split(rows), {padded});
}

absl::StatusOr<ir::ExprPtr> FirstRows(const ir::ExprPtr& joined, const ArithExpr& n) {
  if (joined->type->length == n) return joined;
  return ir::Call(ir::Reindex(n, ir::IndexVar()), {joined});
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

}  // namespace dfc::rewrite

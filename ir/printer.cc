// The printer: Lift's notation, with Params renamed apart (x, x1, x2...) so that nested
// lambdas read unambiguously.
#include "ir/printer.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dfc::ir {
namespace {

class Printer {
 public:
  std::string Expr(const ExprPtr& e) {
    switch (e->kind) {
      case Expr::Kind::kParam:
        return Name(static_cast<const Param&>(*e));
      case Expr::Kind::kLiteral:
        return static_cast<const Literal&>(*e).value.ToString();
      case Expr::Kind::kFunCall:
        return Call(static_cast<const FunCall&>(*e));
    }
    return "?";
  }

  std::string Fun(const FunPtr& f) {
    switch (f->kind) {
      case Fun::Kind::kLambda:
        return Lambda(static_cast<const ir::Lambda&>(*f));
      case Fun::Kind::kUserFun:
        return static_cast<const UserFun&>(*f).name;
      default:
        break;
    }
    if (!FunPattern::Holds(f->kind)) return FunName(*f);
    // Map(f), MapGlb(0)(f), ToGlobal(f)...
    std::string name = FunName(*f);
    std::string inner = Fun(As<FunPattern>(*f).f);
    if (name.back() == ')') return absl::StrCat(name, "(", inner, ")");
    return absl::StrCat(name, "(", inner, ")");
  }

 private:
  std::string Name(const Param& p) {
    auto it = names_.find(&p);
    if (it != names_.end()) return it->second;
    // A free Param (a cluster input seen without its Lambda) keeps its own name.
    return Fresh(p);
  }

  std::string Fresh(const Param& p) {
    std::string name = p.name.empty() ? "p" : p.name;
    for (int k = 1; used_.contains(name); ++k) name = absl::StrCat(p.name, k);
    used_.insert(name);
    names_[&p] = name;
    return name;
  }

  std::string Lambda(const ir::Lambda& l) {
    // λ(x) => f(x) prints as f: the eta-reduced form reads better in Map(neg).
    if (l.body->kind == Expr::Kind::kFunCall) {
      const auto& call = static_cast<const FunCall&>(*l.body);
      if (call.f->kind == Fun::Kind::kUserFun && call.args.size() == l.params.size()) {
        bool eta = true;
        for (size_t k = 0; k < l.params.size(); ++k) eta &= call.args[k] == l.params[k];
        if (eta) return static_cast<const UserFun&>(*call.f).name;
      }
    }
    std::vector<std::string> params;
    for (const ParamPtr& p : l.params) params.push_back(Fresh(*p));
    return absl::StrCat("λ(", absl::StrJoin(params, ", "), ") => ", Expr(l.body));
  }

  std::string Args(const std::vector<ExprPtr>& args) {
    std::vector<std::string> parts;
    for (const ExprPtr& a : args) parts.push_back(Expr(a));
    return absl::StrJoin(parts, ", ");
  }

  std::string Call(const FunCall& call) {
    if (call.f->kind == Fun::Kind::kUserFun) {
      return absl::StrCat(static_cast<const UserFun&>(*call.f).name, "(", Args(call.args), ")");
    }
    if (call.f->kind == Fun::Kind::kLambda) {
      // A let: the argument is evaluated once and named by the parameter.
      return absl::StrCat(
          "(", Fun(call.f), ") $ ",
          call.args.size() == 1 ? Operand(call.args[0]) : absl::StrCat("(", Args(call.args), ")"));
    }
    if (call.args.size() != 1) {
      std::string f = Fun(call.f);
      return absl::StrCat(f, call.args.empty() ? "" : absl::StrCat(" $ (", Args(call.args), ")"));
    }
    // One-argument patterns compose: F o G $ x.
    std::vector<std::string> chain = {Fun(call.f)};
    const ExprPtr* arg = &call.args[0];
    while ((*arg)->kind == Expr::Kind::kFunCall) {
      const auto& inner = static_cast<const FunCall&>(**arg);
      if (inner.args.size() != 1 || inner.f->kind == Fun::Kind::kLambda ||
          inner.f->kind == Fun::Kind::kUserFun) {
        break;
      }
      chain.push_back(Fun(inner.f));
      arg = &inner.args[0];
    }
    return absl::StrCat(absl::StrJoin(chain, " o "), " $ ", Operand(*arg));
  }

  // An argument after `$`: parenthesised unless it is atomic.
  std::string Operand(const ExprPtr& e) {
    std::string s = Expr(e);
    if (e->kind != Expr::Kind::kFunCall) return s;
    const auto& call = static_cast<const FunCall&>(*e);
    if (call.f->kind == Fun::Kind::kUserFun) return s;
    return absl::StrCat("(", s, ")");
  }

  absl::flat_hash_map<const Param*, std::string> names_;
  absl::flat_hash_set<std::string> used_;
};

}  // namespace

std::string ToString(const ExprPtr& expr) { return Printer().Expr(expr); }
std::string ToString(const FunPtr& fun) { return Printer().Fun(fun); }

}  // namespace dfc::ir

// The default lowering strategy (see lower_for_device.h).
#include "rewrite/lower_for_device.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "ir/analysis.h"
#include "ir/traverse.h"
#include "rewrite/lowering.h"
#include "rewrite/vectorize.h"
#include "rewrite/work_item.h"

namespace dfc::rewrite {
namespace {

using ir::ExprPtr;
using ir::Fun;
using ir::FunCall;

// `rule` rewritten at the root of `e`, or `e` where it declines.
absl::StatusOr<ExprPtr> AtRootOrSelf(const Rule& rule, const ExprPtr& e) {
  DFC_ASSIGN_OR_RETURN(auto at_root, ApplyAtRoot(rule, e));
  if (auto* rewritten = std::get_if<ExprPtr>(&at_root)) return *rewritten;
  return e;
}

// `rule` wherever it matches, innermost first: a place is rewritten after everything below it,
// and again until the rule declines there.
class BottomUp : public ir::ExprMutator {
 public:
  explicit BottomUp(Rule rule) : rule_(std::move(rule)) {}

  absl::StatusOr<ExprPtr> Mutate(const ExprPtr& e) override {
    DFC_ASSIGN_OR_RETURN(ExprPtr current, ir::ExprMutator::Mutate(e));
    for (;;) {
      DFC_ASSIGN_OR_RETURN(ExprPtr next, AtRootOrSelf(rule_, current));
      if (next == current) return current;
      current = std::move(next);
    }
  }

 private:
  Rule rule_;
};

// reduceLcl at the Reduces a work-group computes together: not those inside the elements or the
// step of a Reduce it splits already (one work-item's share), nor a ToGlobal's.
class SplitReduces : public ir::ExprMutator {
 public:
  explicit SplitReduces(int lanes) : rule_(ReduceLclRule(0, lanes)), lanes_(lanes) {}

  absl::StatusOr<ExprPtr> Mutate(const ExprPtr& e) override {
    if (CallOf(e, Fun::Kind::kToGlobal) != nullptr) return e;
    DFC_ASSIGN_OR_RETURN(ExprPtr split, AtRootOrSelf(rule_, e));
    if (split == e) return ir::ExprMutator::Mutate(e);
    const auto& call = static_cast<const FunCall&>(*split);
    DFC_ASSIGN_OR_RETURN(ExprPtr init, Mutate(call.args[0]));
    if (init == call.args[0]) return split;
    return ir::Call(call.f, {init, call.args[1]});
  }

  bool Matches(const ExprPtr& e) const { return SplitsAReduce(e, lanes_); }

 private:
  Rule rule_;
  int lanes_;
};

// The rows of kernels mapped onto work-items; roots() are the MapGlb and MapWrg calls made so.
class KernelMapping {
 public:
  explicit KernelMapping(const DeviceProfile& profile)
      : lanes_(profile.WorkGroupReductionSize()),
        concurrent_(profile.ConcurrentWorkItems()),
        split_(lanes_ > 0 ? lanes_ : 1) {}

  // The values one kernel stores, mapped. Where a step chose (MapOutputs: a MapWrg, or a
  // MapGlb of the rows themselves), as it chose; elsewhere MapWrg(0) for those of few rows whose
  // work splits a Reduce (alone, an output that splits nothing would have every work-item
  // repeat its row for nothing), unless together they would fill the device, and MapGlb(0) for
  // the rest.
  absl::StatusOr<std::vector<ExprPtr>> Map(std::vector<ExprPtr> values) {
    std::vector<bool> by_groups(values.size(), false), chosen(values.size(), false);
    int64_t rows = 0;
    for (size_t k = 0; k < values.size(); ++k) {
      const ExprPtr mapped = MappedRows(values[k]);
      const Fun::Kind kind =
          mapped ? static_cast<const FunCall&>(*mapped).f->kind : Fun::Kind::kMap;
      if (kind == Fun::Kind::kMapWrg || (kind == Fun::Kind::kMapGlb && mapped == values[k])) {
        chosen[k] = true;
        by_groups[k] = kind == Fun::Kind::kMapWrg;
        DFC_RETURN_IF_ERROR(CheckChosenGroups(values[k], by_groups[k]));
        continue;
      }
      if (lanes_ == 0) continue;
      const std::optional<int64_t> n = values[k]->type->is_array()
                                           ? values[k]->type->length.AsConstant()
                                           : std::optional<int64_t>(1);
      if (n && *n < concurrent_ && split_.Matches(values[k])) {
        by_groups[k] = true;
        rows += *n;
      }
    }
    if (rows >= concurrent_) {  // the device is full
      for (size_t k = 0; k < values.size(); ++k) by_groups[k] = by_groups[k] && chosen[k];
    }
    for (size_t k = 0; k < values.size(); ++k) {
      ExprPtr& v = values[k];
      if (by_groups[k]) {
        DFC_ASSIGN_OR_RETURN(v, split_.Mutate(v));
        if (!chosen[k] && v->type->is_array()) {
          // Blocks of rows (Join $ MapGlb) are a view of the rows a work-group computes.
          DFC_ASSIGN_OR_RETURN(v, MappedRows(v) != nullptr
                                      ? ir::Call(ir::MapWrg(0, ir::Id()), {v})
                                      : AtRootOrSelf(MapRows(Fun::Kind::kMapWrg, 0), v));
        }
      } else if (v->type->is_array()) {
        if (MappedRows(v) == nullptr) {
          // Rows of arrays of arrays: join them until each row is a matrix at most.
          for (ExprPtr flat = nullptr; flat != v;) {
            flat = v;
            DFC_ASSIGN_OR_RETURN(v, AtRootOrSelf(FlattenRows(), flat));
          }
        }
        DFC_ASSIGN_OR_RETURN(v, AtRootOrSelf(MapRows(Fun::Kind::kMapGlb, 0), v));
      }
      if (const ExprPtr root = MappedRows(v)) roots_.insert(root.get());
    }
    return values;
  }

  const absl::flat_hash_set<const ir::Expr*>& roots() const { return roots_; }

 private:
  // Whether the profile can run rows a step gave to work-groups: it must reduce in them, and
  // the rows must have a Reduce to share.
  absl::Status CheckChosenGroups(const ExprPtr& v, bool by_groups) const {
    if (!by_groups) return absl::OkStatus();
    if (lanes_ == 0) {
      return absl::UnimplementedError(
          "rows mapped onto work-groups (mapOutputsWrg) on a device that does not reduce in "
          "work-groups cannot be mapped onto the device");
    }
    if (!split_.Matches(v)) {
      return absl::UnimplementedError(
          absl::StrCat("rows mapped onto work-groups (mapOutputsWrg) with no Reduce that ", lanes_,
                       " work-items can share cannot be mapped onto the device"));
    }
    return absl::OkStatus();
  }

  const int lanes_;
  const int64_t concurrent_;
  SplitReduces split_;
  absl::flat_hash_set<const ir::Expr*> roots_;
};

// The rows a CPU work-item copies together when a kernel stores a matrix it does not compute
// (a transposed input, StoreTransposed): a cache line of floats.
constexpr int kCopyBlockRows = 16;

// Each ToGlobal's value, at the top level, mapped as a kernel of its own: on a CPU, a matrix
// that is only a view of memory is copied by blocks of rows (storeByBlocks); a GPU reads a
// transposed view with neighbouring work-items on neighbouring elements, coalesced row by row.
class StoredKernels : public TopLevelMutator {
 public:
  StoredKernels(KernelMapping& mapping, const DeviceProfile& profile)
      : mapping_(mapping), by_blocks_(!profile.is_gpu) {}

 protected:
  absl::StatusOr<ExprPtr> MutateCall(const ExprPtr& e, const FunCall& call) override {
    DFC_ASSIGN_OR_RETURN(ExprPtr inner, ir::ExprMutator::MutateCall(e, call));
    const FunCall* stored = CallOf(inner, Fun::Kind::kToGlobal);
    if (stored == nullptr) return inner;
    ExprPtr value = stored->args[0];
    if (by_blocks_ && !ir::Computes(*value)) {
      DFC_ASSIGN_OR_RETURN(value, AtRootOrSelf(StoreByBlocks(kCopyBlockRows), value));
    }
    DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> mapped, mapping_.Map({std::move(value)}));
    return ir::Call(stored->f, std::move(mapped));
  }

 private:
  KernelMapping& mapping_;
  const bool by_blocks_;
};

// mapSeq and reduceSeq everywhere but at the kernels' roots.
class Sequential : public ir::ExprMutator {
 public:
  explicit Sequential(const absl::flat_hash_set<const ir::Expr*>& roots) : roots_(roots) {}

  absl::StatusOr<ExprPtr> Mutate(const ExprPtr& e) override {
    if (e->kind != ir::Expr::Kind::kFunCall || roots_.contains(e.get())) {
      return ir::ExprMutator::Mutate(e);
    }
    for (const Rule& rule : {MapSeqRule(), ReduceLanesRule(), ReduceSeqRule()}) {
      DFC_ASSIGN_OR_RETURN(ExprPtr lowered, AtRootOrSelf(rule, e));
      if (lowered != e) return ir::ExprMutator::Mutate(lowered);
    }
    return ir::ExprMutator::Mutate(e);
  }

 private:
  const absl::flat_hash_set<const ir::Expr*>& roots_;
};

// Where a work-item keeps what it computes: toPrivate at the lets inside its code (the functions
// of Maps and Reduces) and at the elements those functions bind, transposeW at a Transpose of
// computed rows. An array computes where reading an element does arithmetic: its expression
// has a UserFun or a Reduce, or reads a parameter bound to such an array that is not stored.
class WorkItemStorage : public ir::ExprMutator {
 protected:
  absl::StatusOr<ExprPtr> MutateCall(const ExprPtr& e, const FunCall& call) override {
    if (call.f->kind == Fun::Kind::kLambda) return MutateLet(call);
    if (call.f->kind == Fun::Kind::kTranspose) {
      DFC_ASSIGN_OR_RETURN(ExprPtr inner, ir::ExprMutator::MutateCall(e, call));
      return AtRootOrSelf(TransposeWRule([this](const ExprPtr& x) { return RowsCompute(x); }),
                          inner);
    }
    const ir::FunCall* per_element = MapCall(e);
    if (per_element == nullptr) per_element = ReduceCall(e);
    const ir::FunPtr f =
        per_element == nullptr ? nullptr : ir::As<ir::FunPattern>(*per_element->f).f;
    if (f == nullptr || f->kind != Fun::Kind::kLambda) return ir::ExprMutator::MutateCall(e, call);
    // The function's last parameter is bound to each element (a Reduce's first, to its
    // accumulator, a variable of the work-item).
    const auto& lambda = static_cast<const ir::Lambda&>(*f);
    for (const ir::ParamPtr& v : lambda.params) computes_[v.get()] = false;
    computes_[lambda.params.back().get()] = Computes(call.args.back());
    // An element of Map(λr => E) $ y is E, with r bound to an element of y.
    if (const FunCall* rows = MapCall(Resolved(call.args.back()))) {
      const ir::FunPtr& g = ir::As<ir::FunPattern>(*rows->f).f;
      if (g->kind == Fun::Kind::kLambda) {
        bound_[lambda.params.back().get()] = static_cast<const ir::Lambda&>(*g).body;
      }
    }
    DFC_ASSIGN_OR_RETURN(ExprPtr kept, AtRootOrSelf(ToPrivateElement(Worth()), e));
    if (kept != e) {
      // λ(u) => (λ(v) => B) $ (ToPrivate(Id) $ u): u is what v was.
      const auto& outer = static_cast<const ir::Lambda&>(
          *ir::As<ir::FunPattern>(*static_cast<const FunCall&>(*kept).f).f);
      for (size_t k = 0; k < lambda.params.size(); ++k) {
        computes_[outer.params[k].get()] = computes_[lambda.params[k].get()];
      }
    }
    return ir::ExprMutator::MutateCall(kept, static_cast<const FunCall&>(*kept));
  }

  absl::StatusOr<ir::FunPtr> MutatePattern(const ir::FunPtr& f,
                                           const ir::Pattern& pattern) override {
    const bool per_element = ir::IsMap(pattern.kind) || ir::IsReduce(pattern.kind);
    depth_ += per_element;
    absl::StatusOr<ir::FunPtr> mutated = ir::ExprMutator::MutatePattern(f, pattern);
    depth_ -= per_element;
    return mutated;
  }

 private:
  absl::StatusOr<ExprPtr> MutateLet(const FunCall& call) {
    const auto& lambda = static_cast<const ir::Lambda&>(*call.f);
    std::vector<ExprPtr> args;
    for (const ExprPtr& arg : call.args) {
      DFC_ASSIGN_OR_RETURN(ExprPtr mutated, Mutate(arg));
      args.push_back(std::move(mutated));
    }
    for (size_t k = 0; k < args.size(); ++k) {
      computes_[lambda.params[k].get()] = Computes(args[k]);
      bound_[lambda.params[k].get()] = args[k];
    }
    DFC_ASSIGN_OR_RETURN(ExprPtr let, ir::Call(call.f, args));
    if (depth_ > 0) {
      DFC_ASSIGN_OR_RETURN(let, AtRootOrSelf(ToPrivateLet(Worth()), let));
      for (size_t k = 0; k < args.size(); ++k) {
        const ExprPtr& arg = static_cast<const FunCall&>(*let).args[k];
        if (CallOf(arg, Fun::Kind::kToPrivate) != nullptr) {
          computes_[lambda.params[k].get()] = false;  // read from the private array
          bound_[lambda.params[k].get()] = arg;
        }
      }
    }
    DFC_ASSIGN_OR_RETURN(ExprPtr body, Mutate(lambda.body));
    const auto& made = static_cast<const FunCall&>(*let);
    if (body == lambda.body) return let;
    return ir::Call(std::make_shared<ir::Lambda>(lambda.params, std::move(body)), made.args);
  }

  // Kept in a private array: v's value computes, and `body` reads it more than once (or reads a
  // Transpose of computed rows, by columns, which would compute every row for each), and it
  // has a known size of at most kMaxPrivateElements.
  PrivateWorth Worth() const {
    return [this](const ir::Param& v, const ir::Expr& body) {
      auto computes = computes_.find(&v);
      if (computes == computes_.end() || !computes->second) return false;
      auto value = bound_.find(&v);
      if (ir::Reads(body, &v) <= 1 && (value == bound_.end() || !ComputedColumns(value->second))) {
        return false;
      }
      const std::optional<int64_t> n = ConstantElements(v.type);
      return n && *n <= kMaxPrivateElements;
    };
  }

  // `x` with the parameters bound by lets (and the elements of Maps, as far as known)
  // replaced by their values, at its root only.
  ExprPtr Resolved(ExprPtr x) const {
    while (x->kind == ir::Expr::Kind::kParam) {
      auto it = bound_.find(static_cast<const ir::Param*>(x.get()));
      if (it == bound_.end()) break;
      x = it->second;
    }
    return x;
  }

  // Whether `x`'s rows do arithmetic: it is a Map whose function computes.
  bool RowsCompute(const ExprPtr& x) const {
    ExprPtr rows = Resolved(x);
    // Blocks of columns joined (blockColumns): each block's rows computed.
    if (const FunCall* join = CallOf(rows, Fun::Kind::kJoin)) rows = Resolved(join->args[0]);
    const FunCall* map = MapCall(rows);
    return map != nullptr && ir::Computes(*ir::As<ir::FunPattern>(*map->f).f);
  }

  bool ComputedColumns(const ExprPtr& x) const {
    return CallOf(Resolved(x), Fun::Kind::kTransposeW) != nullptr;
  }

  bool Computes(const ExprPtr& e) const {
    bool found = false;
    ir::Walk(e, [&](const ExprPtr& x) {
      if (found) return false;
      if (x->kind == ir::Expr::Kind::kParam) {
        auto it = computes_.find(static_cast<const ir::Param*>(x.get()));
        found = it != computes_.end() && it->second;
        return false;
      }
      if (x->kind != ir::Expr::Kind::kFunCall) return false;
      const FunCall& call = static_cast<const FunCall&>(*x);
      if (call.f->kind == Fun::Kind::kToGlobal || call.f->kind == Fun::Kind::kToPrivate) {
        return false;  // read from memory
      }
      found = call.f->kind == Fun::Kind::kUserFun || ir::IsReduce(call.f->kind) ||
              (call.f->kind != Fun::Kind::kLambda && ir::Computes(*call.f));
      return !found;
    });
    return found;
  }

  int depth_ = 0;  // the Map and Reduce functions the walk is inside
  absl::flat_hash_map<const ir::Param*, bool> computes_;
  absl::flat_hash_map<const ir::Param*, ExprPtr> bound_;
};

// The first thing in lowered IR that a work-item cannot hold or compute: an array accumulator
// outside a kernel's rows or beyond its registers, a UserFun that is not lane-wise applied to
// vectors, vectors of float16. Inside a Map's or a Reduce's function is inside the rows.
class Unmappable : public ir::ExprVisitor {
 public:
  const std::optional<std::string>& why() const { return why_; }

  void Visit(const ExprPtr& e) override {
    if (!why_) ir::ExprVisitor::Visit(e);
  }

  void VisitCall(const FunCall& call) override {
    if (ir::IsReduce(call.f->kind)) why_ = AccumulatorRefusal(call.args[0]->type, depth_ > 0);
    if (const ir::UserFun* f = LaneWise(call); f != nullptr && !why_) why_ = VectorRefusal(*f);
    if (call.f->kind == Fun::Kind::kAsVector && !why_) {
      why_ = AsVectorRefusal(ir::BaseDType(call.type));
    }
    if (!why_) ir::ExprVisitor::VisitCall(call);
  }

  void VisitPattern(const ir::Pattern& pattern) override {
    const bool per_element = ir::IsMap(pattern.kind) || ir::IsReduce(pattern.kind);
    depth_ += per_element;
    ir::ExprVisitor::VisitPattern(pattern);
    depth_ -= per_element;
  }

 private:
  // The UserFun `call` applies to vectors, called or as a pattern's function, or nullptr.
  static const ir::UserFun* LaneWise(const FunCall& call) {
    const auto vector = [](const ExprPtr& a) { return a->type->is_vector(); };
    if (call.f->kind == Fun::Kind::kUserFun) {
      return std::ranges::any_of(call.args, vector) ? &static_cast<const ir::UserFun&>(*call.f)
                                                    : nullptr;
    }
    const bool map = ir::IsMap(call.f->kind), reduce = ir::IsReduce(call.f->kind);
    if (!map && !reduce) return nullptr;
    const ir::FunPtr& f = ir::As<ir::FunPattern>(*call.f).f;
    if (f->kind != Fun::Kind::kUserFun) return nullptr;
    const bool on_vectors = call.f->kind == Fun::Kind::kReduceLanes ||
                            call.args.back()->type->element->is_vector() ||
                            (reduce && call.args[0]->type->is_vector());
    return on_vectors ? &static_cast<const ir::UserFun&>(*f) : nullptr;
  }

  int depth_ = 0;
  std::optional<std::string> why_;
};

// The first Map or Reduce left as the high-level pattern, which says nothing of who computes it.
class HighLevel : public ir::ExprVisitor {
 public:
  const ir::Pattern* found() const { return found_; }

  void Visit(const ExprPtr& e) override {
    if (found_ == nullptr) ir::ExprVisitor::Visit(e);
  }

  void VisitPattern(const ir::Pattern& pattern) override {
    if (pattern.kind == Fun::Kind::kMap || pattern.kind == Fun::Kind::kReduce) {
      found_ = &pattern;
      return;
    }
    ir::ExprVisitor::VisitPattern(pattern);
  }

 private:
  const ir::Pattern* found_ = nullptr;
};

}  // namespace

std::vector<Stage> LoweringStages(const DeviceProfile& profile) {
  // The kernels' rows that kernel-rows maps are the roots sequential keeps.
  auto mapping = std::make_shared<KernelMapping>(profile);
  const auto stored_kernels = [mapping, profile](const ExprPtr& e) {
    return StoredKernels(*mapping, profile).Mutate(e);
  };
  const auto kernel_rows = [mapping](const ExprPtr& e) {
    return ReplaceOutputs(
        e, [&](std::vector<ExprPtr> outputs) { return mapping->Map(std::move(outputs)); });
  };
  return {
      {.name = "vectors-across-maps",
       .run = [](const ExprPtr& e) { return BottomUp(VectorsAcrossMaps()).Mutate(e); }},
      {.name = "global-lets",
       .run = [](const ExprPtr& e) { return ApplyAtTopLevel(ToGlobalLet(), e); }},
      {.name = "stored-kernels", .run = stored_kernels},
      {.name = "kernel-rows", .run = kernel_rows},
      {.name = "sequential",
       .run = [mapping](const ExprPtr& e) { return Sequential(mapping->roots()).Mutate(e); }},
      {.name = "work-item-storage",
       .run = [](const ExprPtr& e) { return WorkItemStorage().Mutate(e); },
       .verify = VerifyLowered},
  };
}

absl::Status VerifyLowered(const ExprPtr& body) {
  Unmappable unmappable;
  unmappable.Visit(body);
  if (unmappable.why()) {
    return absl::UnimplementedError(
        absl::StrCat(*unmappable.why(), " cannot be mapped onto the device"));
  }
  HighLevel high_level;
  high_level.Visit(body);
  if (high_level.found() != nullptr) {
    return absl::InternalError(
        absl::StrCat("the lowering left ", ir::FunName(*high_level.found()), " unmapped"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ExprPtr> LowerForDevice(const ExprPtr& body, const DeviceProfile& profile) {
  return RunStages(LoweringStages(profile), body);
}

}  // namespace dfc::rewrite

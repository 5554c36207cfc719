// The default schedule (see schedule.h).
#include "rewrite/schedule.h"

#include <algorithm>
#include <optional>
#include <variant>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "ir/analysis.h"
#include "ir/traverse.h"
#include "rewrite/interchange.h"
#include "rewrite/lower_for_device.h"
#include "rewrite/lowering.h"
#include "rewrite/rule.h"
#include "rewrite/vectorize.h"
#include "rewrite/work_item.h"

namespace dfc::rewrite {
namespace {

// Every fold into an accumulator array, innermost first, kept as vectors of the widest width
// that applies.
class AccumulatorVectorizer : public ir::ExprMutator {
 public:
  explicit AccumulatorVectorizer(int widest) : widest_(widest) {}
  const std::vector<std::string>& steps() const { return steps_; }

  absl::StatusOr<ir::ExprPtr> MutateCall(const ir::ExprPtr& e, const ir::FunCall& call) override {
    DFC_ASSIGN_OR_RETURN(const ir::ExprPtr inner, ir::ExprMutator::MutateCall(e, call));
    if (ReduceCall(inner) == nullptr) return inner;
    for (const int width : {16, 8, 4}) {
      if (width > widest_) continue;
      const Rule rule = VectorizeAccumulator(width);
      DFC_ASSIGN_OR_RETURN(auto applied, ApplyAtRoot(rule, inner));
      if (std::holds_alternative<Decline>(applied)) continue;
      steps_.push_back(rule.name);
      return std::get<ir::ExprPtr>(std::move(applied));
    }
    return inner;
  }

 private:
  const int widest_;
  std::vector<std::string> steps_;
};

// The lanes of the vectors an elementwise Map of scalars reads as scalars (AsScalar $ V, V a
// fold's vectors), through the Maps and Zips it reads; 0 where it reads none.
int ScalarsOfVectors(const ir::ExprPtr& x) {
  if (const ir::FunCall* lanes = CallOf(x, ir::Fun::Kind::kAsScalar)) {
    const ir::TypePtr& v = lanes->args[0]->type;
    return v->is_array() && v->element->is_vector() ? v->element->width : 0;
  }
  const ir::FunCall* map = CallOf(x, ir::Fun::Kind::kMap);
  if (map == nullptr) return 0;
  const ir::FunCall* zip = CallOf(map->args[0], ir::Fun::Kind::kZip);
  for (const ir::ExprPtr& a : zip != nullptr ? zip->args : std::vector{map->args[0]}) {
    if (const int w = ScalarsOfVectors(a); w > 0) return w;
  }
  return 0;
}

// How often `e` reads `x`, where it never reads it inside a function it applies (a λ, where it
// may be read once a row); nullopt where it does.
std::optional<int> ReadsOutsideFunctions(const ir::Expr& e, const ir::Param* x) {
  if (e.kind == ir::Expr::Kind::kParam) return &e == x ? 1 : 0;
  if (e.kind != ir::Expr::Kind::kFunCall) return 0;
  const auto& call = static_cast<const ir::FunCall&>(e);
  if (ir::Reads(*call.f, x) > 0) return std::nullopt;
  int reads = 0;
  for (const ir::ExprPtr& a : call.args) {
    const std::optional<int> in_arg = ReadsOutsideFunctions(*a, x);
    if (!in_arg) return std::nullopt;
    reads += *in_arg;
  }
  return reads;
}

// Whether `e` is an elementwise Map's array of scalars.
bool IsMapOfScalars(const ir::ExprPtr& e) {
  return CallOf(e, ir::Fun::Kind::kMap) != nullptr && e->type->element->is_scalar();
}

// The body of `let` applied to `arg`, a Map of scalars or a view of scalars or a Tuple of them,
// with each read in its place: where the body reads the parameter (each field of the
// tuple, as Get(i) $ x) once and outside any λ, so that nothing is computed more often;
// nullopt otherwise.
absl::StatusOr<std::optional<ir::ExprPtr>> InlinedMaps(const ir::Lambda& let,
                                                       const ir::ExprPtr& arg) {
  const ir::Param* x = let.params[0].get();
  const std::optional<int> reads = ReadsOutsideFunctions(*let.body, x);
  if (!reads || *reads == 0) return std::nullopt;
  // A view of scalars costs nothing read again: the sums as scalars, a residual as stored.
  const auto inlinable = [](const ir::ExprPtr& e) {
    return IsMapOfScalars(e) ||
           (e->type->is_array() && e->type->element->is_scalar() && !ir::Computes(*e));
  };
  if (inlinable(arg)) {
    if (*reads != 1) return std::nullopt;
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr inlined, ir::Substitute(let.body, x, arg));
    return inlined;
  }
  const ir::FunCall* tuple = CallOf(arg, ir::Fun::Kind::kTuple);
  if (tuple == nullptr || !absl::c_all_of(tuple->args, inlinable)) return std::nullopt;
  ir::ExprPtr body = let.body;
  int replaced = 0;
  for (size_t i = 0; i < tuple->args.size(); ++i) {
    int found = 0;
    const auto is_field = [&](const ir::ExprPtr& e) {
      const ir::FunCall* get = CallOf(e, ir::Fun::Kind::kGet);
      const bool field = get != nullptr && get->args[0].get() == x &&
                         ir::As<ir::GetPattern>(*get->f).index == static_cast<int>(i);
      found += field;
      return field;
    };
    DFC_ASSIGN_OR_RETURN(body, ir::ReplaceWhere(body, is_field, tuple->args[i]));
    if (found > 1) return std::nullopt;
    replaced += found;
  }
  if (replaced != *reads) return std::nullopt;
  return body;
}

// Every elementwise Map of scalars that reads a fold's vector accumulator as scalars (a
// convolution's batch norm, bias and activation), read as vectors of the accumulator's width
// (vectorizeMaps(w)): one vector operation a vector of the sums, where each lane took its own.
class EpilogueVectorizer : public ir::ExprMutator {
 public:
  const std::vector<std::string>& steps() const { return steps_; }

  absl::StatusOr<ir::ExprPtr> MutateCall(const ir::ExprPtr& e, const ir::FunCall& call) override {
    // A let of elementwise Maps each read once (a batch norm's result, read by the residual
    // add after it) is inlined where that lets the Maps after it read vectors.
    if (call.f->kind == ir::Fun::Kind::kLambda && call.args.size() == 1) {
      DFC_ASSIGN_OR_RETURN(std::optional<ir::ExprPtr> inlined,
                           InlinedMaps(static_cast<const ir::Lambda&>(*call.f), call.args[0]));
      if (inlined) {
        const size_t before = steps_.size();
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr vectorised, Mutate(*inlined));
        if (steps_.size() > before) return vectorised;
      }
    }
    if (CallOf(e, ir::Fun::Kind::kMap) != nullptr && e->type->element->is_scalar()) {
      if (const int w = ScalarsOfVectors(e); w > 0) {
        const Rule rule = VectorizeMaps(w);
        DFC_ASSIGN_OR_RETURN(auto applied, ApplyAtRoot(rule, e));
        if (!std::holds_alternative<Decline>(applied)) {
          steps_.push_back(rule.name);
          return std::get<ir::ExprPtr>(std::move(applied));
        }
      }
    }
    return ir::ExprMutator::MutateCall(e, call);
  }

 private:
  std::vector<std::string> steps_;
};

// The arrays under a Map's function λp => Map(g) $ Y whose rows Join may move under it: p
// itself for Y = p, A0..Ak for Y = Zip(Get(0) $ p, ..., Get(k) $ p) over X = Zip(A0, ..., Ak);
// empty otherwise.
std::vector<ir::ExprPtr> RowArrays(const ir::Lambda& lambda, const ir::FunCall& inner,
                                   const ir::ExprPtr& x) {
  const ir::Param* p = lambda.params[0].get();
  if (inner.args.size() != 1) return {};
  const ir::ExprPtr& y = inner.args[0];
  if (y.get() == p) return {x};
  const ir::FunCall* zip = CallOf(y, ir::Fun::Kind::kZip);
  const ir::FunCall* zipped = CallOf(x, ir::Fun::Kind::kZip);
  if (zip == nullptr || zipped == nullptr || zip->args.size() != zipped->args.size()) return {};
  for (size_t i = 0; i < zip->args.size(); ++i) {
    const ir::FunCall* get = CallOf(zip->args[i], ir::Fun::Kind::kGet);
    if (get == nullptr || get->args[0].get() != p ||
        ir::As<ir::GetPattern>(*get->f).index != static_cast<int>(i)) {
      return {};
    }
  }
  return zipped->args;
}

// Join^depth $ e, with the nested Maps that compute e moved under the Joins:
//   Join $ Map(λa => Map(g) $ a) $ X = Map(g) $ Join $ X
//   Join $ Map(λp => Map(g) $ Zip(Get(0) $ p, ...)) $ Zip(A0, ...) = Map(g) $ Zip(Join $ A0, ...)
// for Maps whose functions compute (a view of memory is joined as it is).
absl::StatusOr<ir::ExprPtr> JoinedRows(const ir::ExprPtr& e, int depth) {
  if (depth == 0) return e;
  if (const ir::FunCall* outer = CallOf(e, ir::Fun::Kind::kMap)) {
    const ir::FunPtr& f = ir::As<ir::FunPattern>(*outer->f).f;
    if (f->kind == ir::Fun::Kind::kLambda) {
      const auto& lambda = static_cast<const ir::Lambda&>(*f);
      const ir::FunCall* inner = CallOf(lambda.body, ir::Fun::Kind::kMap);
      const std::vector<ir::ExprPtr> arrays =
          inner == nullptr ? std::vector<ir::ExprPtr>{} : RowArrays(lambda, *inner, outer->args[0]);
      if (!arrays.empty() && ir::Reads(*inner->f, lambda.params[0].get()) == 0 &&
          ir::Computes(*inner->f)) {
        std::vector<ir::ExprPtr> joined;
        for (const ir::ExprPtr& array : arrays) {
          DFC_ASSIGN_OR_RETURN(joined.emplace_back(), JoinedRows(array, 1));
        }
        ir::ExprPtr rows = joined[0];
        if (CallOf(lambda.body, ir::Fun::Kind::kMap)->args[0].get() != lambda.params[0].get()) {
          DFC_ASSIGN_OR_RETURN(rows, ir::Call(ir::Zip(static_cast<int>(joined.size())), joined));
        }
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr mapped, ir::Call(inner->f, {rows}));
        return JoinedRows(mapped, depth - 1);
      }
    }
  }
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr joined, ir::Call(ir::Join(), {e}));
  return JoinedRows(joined, depth - 1);
}

// The fewest taps (window elements times input channels) a blocked convolution folds: with
// fewer, a block's loads of a filter row save less than its accumulators' stores cost, where a
// 3x3 window over three colour channels (27 taps, walked in nested loops) already gains.
constexpr int64_t kMinBlockedTaps = 16;

// The vector registers a row's fold keeps its accumulator in, where `e`'s first fold is a
// convolution's of kMinBlockedTaps or more: each step a scalar of the input times a row of the
// filter (a tuple of a scalar and an array), which a block of positions shares; 0 for any other
// (a depthwise convolution's or a pool's steps read a row of the input for each position, and
// share little).
int64_t ConvolutionAccumulatorSlots(const ir::ExprPtr& e) {
  int64_t slots = 0;
  bool found = false;
  ir::Walk(e, [&](const ir::ExprPtr& x) {
    if (found) return false;
    const ir::FunCall* fold = ReduceCall(x);
    if (fold == nullptr) return true;
    found = true;
    const ir::TypePtr& step = fold->args[1]->type->element;
    if (!step->is_tuple() || step->elements.size() != 2 || !step->elements[0]->is_scalar() ||
        !step->elements[1]->is_array()) {
      return false;
    }
    const std::optional<int64_t> taps = fold->args[1]->type->length.AsConstant();
    if (!taps || *taps < kMinBlockedTaps) return false;
    const std::optional<ArithExpr> n = Slots(fold->args[0]->type);
    slots = n ? n->AsConstant().value_or(0) : 0;
    return false;
  });
  return slots;
}

// The values a kernel stores whose elements are a convolution's folds, their positions joined
// into rows (JoinedRows) and computed r at a time by a work-item (blockRows), split back into
// the value's shape: a view of the same memory.
class PositionBlocker : public TopLevelMutator {
 public:
  PositionBlocker(int registers, absl::flat_hash_set<const ir::Expr*> stored)
      : registers_(registers), stored_(std::move(stored)) {}
  const std::vector<std::string>& steps() const { return steps_; }

 protected:
  absl::StatusOr<ir::ExprPtr> MutateCall(const ir::ExprPtr& e, const ir::FunCall& call) override {
    DFC_ASSIGN_OR_RETURN(const ir::ExprPtr inner, TopLevelMutator::MutateCall(e, call));
    if (!stored_.contains(e.get())) return inner;
    return Block(inner);
  }

 private:
  absl::StatusOr<ir::ExprPtr> Block(const ir::ExprPtr& v) {
    if (MappedRows(v) != nullptr || !v->type->is_array()) return v;
    std::vector<ArithExpr> dims;
    for (ir::TypePtr t = v->type; t->is_array(); t = t->element) dims.push_back(t->length);
    if (dims.size() < 3) return v;
    const int depth = static_cast<int>(dims.size()) - 2;
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr rows, JoinedRows(v, depth));
    if (CallOf(rows, ir::Fun::Kind::kMap) == nullptr) return v;
    const int64_t slots = ConvolutionAccumulatorSlots(rows);
    if (slots == 0) return v;
    const int r = static_cast<int>(std::clamp<int64_t>((registers_ - 1) / slots - 1, 2, 8));
    SizeBindings smallest;
    for (const std::string& var : rows->type->length.Variables()) smallest[var] = 1;
    const absl::StatusOr<int64_t> least = rows->type->length.Evaluate(smallest);
    if (!least.ok() || *least < 2 * r) return v;
    const Rule rule = BlockRows(r);
    DFC_ASSIGN_OR_RETURN(auto blocked, ApplyAtRoot(rule, rows));
    if (std::holds_alternative<Decline>(blocked)) return v;
    ir::ExprPtr result = std::get<ir::ExprPtr>(std::move(blocked));
    for (int k = depth; k >= 1; --k) {
      DFC_ASSIGN_OR_RETURN(result, ir::Call(ir::Split(dims[k]), {result}));
    }
    steps_.push_back(absl::StrCat("blockPositions(", r, ")"));
    return result;
  }

  const int registers_;
  const absl::flat_hash_set<const ir::Expr*> stored_;
  std::vector<std::string> steps_;
};

}  // namespace

namespace {

// `body` as `mutator` makes it, with its steps, where it made any and the device lowering accepts
// the result; `body` itself, with no steps, otherwise or on a GPU profile.
template <typename Mutator>
absl::StatusOr<ContractionSchedule> WhereItLowers(const ir::ExprPtr& body,
                                                  const DeviceProfile& profile, Mutator mutator) {
  ContractionSchedule schedule{.body = body};
  if (profile.is_gpu) return schedule;
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr made, mutator.Mutate(body));
  if (mutator.steps().empty() || !LowerForDevice(made, profile).ok()) return schedule;
  schedule.body = std::move(made);
  schedule.steps = mutator.steps();
  return schedule;
}

// `schedule` followed by `next`, which was made from its body.
void Then(ContractionSchedule& schedule, ContractionSchedule next) {
  schedule.body = std::move(next.body);
  schedule.steps.insert(schedule.steps.end(), next.steps.begin(), next.steps.end());
}

}  // namespace

absl::StatusOr<ContractionSchedule> SchedulePositions(const ir::ExprPtr& body,
                                                      const DeviceProfile& profile) {
  return WhereItLowers(body, profile,
                       PositionBlocker(profile.vector_registers, StoredValues(body)));
}

absl::StatusOr<ContractionSchedule> ScheduleFolds(const ir::ExprPtr& body,
                                                  const DeviceProfile& profile) {
  return WhereItLowers(body, profile,
                       AccumulatorVectorizer(std::max(4, profile.preferred_vector_width)));
}

absl::StatusOr<ContractionSchedule> DefaultSchedule(const ir::ExprPtr& body,
                                                    const DeviceProfile& profile) {
  DFC_ASSIGN_OR_RETURN(ContractionSchedule schedule, ScheduleContractions(body, profile));
  DFC_ASSIGN_OR_RETURN(ContractionSchedule folds, ScheduleFolds(schedule.body, profile));
  Then(schedule, std::move(folds));
  DFC_ASSIGN_OR_RETURN(ContractionSchedule positions, SchedulePositions(schedule.body, profile));
  Then(schedule, std::move(positions));
  DFC_ASSIGN_OR_RETURN(ContractionSchedule epilogues,
                       WhereItLowers(schedule.body, profile, EpilogueVectorizer()));
  Then(schedule, std::move(epilogues));
  return schedule;
}

}  // namespace dfc::rewrite

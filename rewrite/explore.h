// The space of variants of an expression: what the rules make of it. Lift's first stage
// (algorithmic rules) is enumerated here, breadth first, with duplicates removed by structure;
// timing the variants on a device and keeping the fastest is runtime/tune.h's.
//
// A variant is named by its steps, each a rule and the place it applied (the k-th match in
// the order ApplyAtEach lists them), so that a variant chosen once (a tuning database's entry)
// is made again from the same expression by Replay.
#ifndef DFC_REWRITE_EXPLORE_H_
#define DFC_REWRITE_EXPLORE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "rewrite/rule.h"

namespace dfc::rewrite {

struct Step {
  std::string rule;  // Rule::name, e.g. "vectorizeReduce(16)"
  int place = 0;     // which of ApplyAtEach's rewrites (0 for a rule applied at the root only)
  std::string ToString() const;  // "vectorizeReduce(16)@0"
};

struct Variant {
  std::vector<Step> steps;  // empty: the expression as translated (the default strategy)
  ir::ExprPtr body;
  absl::Status usable;       // why ExploreOptions::usable refused it; OK if it did not
  std::string Name() const;  // the steps joined by " ; ", or "default"
};

struct ExploreOptions {
  std::vector<int> vector_widths = {4, 8, 16};  // from the device profile
  int max_steps = 3;
  int max_variants = 48;
  // Whether the rules that only refine a variant (ExploreRule::refinement) are applied.
  bool refinements = false;
  // Whether a variant can be mapped onto the device (the tuner asks the device lowering,
  // LowerForDevice, which declines what a work-item cannot hold); unset: every
  // variant can. A variant it refuses is listed with the reason (Variant::usable), but
  // it neither counts against max_variants nor is rewritten further: in Relu's cluster the
  // chains of mapReduceInterchange over its output columns, each refused, filled the cap, and
  // left out the three-step schedule the tuner had picked before.
  std::function<absl::Status(const ir::ExprPtr&)> usable;
  // Whether the device reduces in work-groups (DeviceProfile::WorkGroupReductionSize), so that
  // where a kernel's rows run, work-items or work-groups, is a choice: mapOutputsWrg and
  // mapOutputsGlb (rewrite/lowering.h) are then refinements the explorer tries.
  bool work_groups = false;
};

// The rules the explorer applies, by name: mapReduceInterchange, vectorizeReduce(w) and
// vectorizeColumns(w) for each width, and at the root only storeTransposed (it binds at the
// cluster's top level), vectorizeMaps(w) for each width (every elementwise Map at once) and
// blockRows(r) for blocks of 2, 4, 8 and 16 rows, anywhere blockColumns(c) for blocks of 2 and
// 4 vectors of columns, and with options.work_groups the mapping choices mapOutputsWrg and
// mapOutputsGlb. blockRows and blockColumns are refinements: they block what
// the steps before it made of a row, so Enumerate leaves it to Extend, where its four widths
// would otherwise crowd the breadth-first levels past the cap (they did: the seed's tuned
// schedule, three steps deep, was left out). So are the mapping choices: the default strategy
// makes one already, and the other pays only for the best variant's rows.
struct ExploreRule {
  Rule rule;
  bool root_only = false;
  bool refinement = false;
};
std::vector<ExploreRule> ExploreRules(const ExploreOptions& options);

// The default and every variant reachable in at most max_steps steps, breadth first (fewest
// steps first), structurally distinct, at most max_variants usable ones (refinements only
// with options.refinements). Only the default and usable variants are rewritten further.
absl::StatusOr<std::vector<Variant>> Enumerate(const ir::ExprPtr& body,
                                               const ExploreOptions& options);

// The variants one step beyond `from` (each rule at each place it applies, refinements
// included), structurally distinct from `from` and from each other: a greedy refinement of the
// best variant found, which reaches further than a breadth-first enumeration capped at
// max_variants.
absl::StatusOr<std::vector<Variant>> Extend(const Variant& from, const ExploreOptions& options);

// The variants of `body` that differ from `from` in the parameter of one step: a
// vectorizeReduce(w), vectorizeMaps(w) or vectorizeColumns(w) step with each other width of
// options.vector_widths (Lift's third stage, for the vector widths), where the steps still replay.
absl::StatusOr<std::vector<Variant>> OtherWidths(const ir::ExprPtr& body, const Variant& from,
                                                 const ExploreOptions& options);

// `body` rewritten by `steps` in order. A step that names an unknown rule or a place where its
// rule no longer matches is an error (the expression is not the one the steps were made for).
absl::StatusOr<ir::ExprPtr> Replay(const ir::ExprPtr& body, const std::vector<Step>& steps);

// "vectorizeReduce(16)@0" -> {vectorizeReduce(16), 0}.
absl::StatusOr<Step> ParseStep(const std::string& text);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_EXPLORE_H_

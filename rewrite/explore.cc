// Enumerating variants (see explore.h).
#include "rewrite/explore.h"

#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "rewrite/data_layout.h"
#include "rewrite/interchange.h"
#include "rewrite/lowering.h"
#include "rewrite/vectorize.h"

namespace dfc::rewrite {
namespace {

// The rewrites of `e` by one rule: at the root only, or at each place.
absl::StatusOr<std::vector<ir::ExprPtr>> Rewrites(const ExploreRule& r, const ir::ExprPtr& e) {
  if (!r.root_only) return ApplyAtEach(r.rule, e);
  DFC_ASSIGN_OR_RETURN(auto at_root, ApplyAtRoot(r.rule, e));
  if (auto* rewritten = std::get_if<ir::ExprPtr>(&at_root)) return std::vector{*rewritten};
  return std::vector<ir::ExprPtr>{};
}

}  // namespace

std::string Step::ToString() const { return absl::StrCat(rule, "@", place); }

std::string Variant::Name() const {
  if (steps.empty()) return "default";
  std::vector<std::string> names;
  for (const Step& s : steps) names.push_back(s.ToString());
  return absl::StrJoin(names, " ; ");
}

std::vector<ExploreRule> ExploreRules(const ExploreOptions& options) {
  std::vector<ExploreRule> rules = {{MapReduceInterchange()}, {StoreTransposed(), true}};
  for (int w : options.vector_widths) rules.push_back({VectorizeReduce(w)});
  for (int w : options.vector_widths) rules.push_back({VectorizeMaps(w), true});
  for (int w : options.vector_widths) rules.push_back({VectorizeColumns(w)});
  for (int w : options.vector_widths) rules.push_back({VectorizeAccumulator(w)});
  for (int r : {2, 4, 8, 16}) rules.push_back({BlockRows(r), true, true});
  for (int c : {2, 4}) rules.push_back({BlockColumns(c), false, true});
  if (options.work_groups) {
    for (ir::Fun::Kind kind : {ir::Fun::Kind::kMapWrg, ir::Fun::Kind::kMapGlb}) {
      rules.push_back({MapOutputs(kind), true, true});
    }
  }
  return rules;
}

absl::StatusOr<std::vector<Variant>> Enumerate(const ir::ExprPtr& body,
                                               const ExploreOptions& options) {
  const std::vector<ExploreRule> rules = ExploreRules(options);
  std::vector<Variant> variants = {{{}, body}};
  if (options.usable) variants[0].usable = options.usable(body);
  int usable = 1;  // the default counts, whether usable or not
  // Structural duplicates (two orders of independent rewrites) are kept once: by hash, then
  // by equality.
  absl::flat_hash_map<size_t, std::vector<size_t>> seen;
  seen[ir::ExprHash(body)].push_back(0);
  size_t level_begin = 0;
  for (int depth = 0; depth < options.max_steps; ++depth) {
    const size_t level_end = variants.size();
    for (size_t v = level_begin; v < level_end; ++v) {
      if (v > 0 && !variants[v].usable.ok()) continue;
      for (const ExploreRule& r : rules) {
        if (r.refinement && !options.refinements) continue;
        DFC_ASSIGN_OR_RETURN(std::vector<ir::ExprPtr> rewrites, Rewrites(r, variants[v].body));
        for (size_t k = 0; k < rewrites.size(); ++k) {
          std::vector<size_t>& same_hash = seen[ir::ExprHash(rewrites[k])];
          bool duplicate = false;
          for (size_t other : same_hash) {
            duplicate = duplicate || ir::ExprEquals(variants[other].body, rewrites[k]);
          }
          if (duplicate) continue;
          Variant next{variants[v].steps, rewrites[k]};
          next.steps.push_back({r.rule.name, static_cast<int>(k)});
          if (options.usable) next.usable = options.usable(next.body);
          if (next.usable.ok() && usable++ >= options.max_variants) return variants;
          same_hash.push_back(variants.size());
          variants.push_back(std::move(next));
        }
      }
    }
    level_begin = level_end;
  }
  return variants;
}

absl::StatusOr<std::vector<Variant>> Extend(const Variant& from, const ExploreOptions& options) {
  ExploreOptions one = options;
  one.max_steps = 1;
  one.max_variants = std::numeric_limits<int>::max();
  one.refinements = true;
  DFC_ASSIGN_OR_RETURN(std::vector<Variant> next, Enumerate(from.body, one));
  next.erase(next.begin());  // `from` itself
  for (Variant& v : next) v.steps.insert(v.steps.begin(), from.steps.begin(), from.steps.end());
  return next;
}

absl::StatusOr<std::vector<Variant>> OtherWidths(const ir::ExprPtr& body, const Variant& from,
                                                 const ExploreOptions& options) {
  std::vector<Variant> out;
  for (size_t k = 0; k < from.steps.size(); ++k) {
    // The rules with a width parameter, by the prefix of their names.
    Rule (*family)(int) = nullptr;
    for (const auto& [prefix, f] : {std::pair{"vectorizeReduce(", &VectorizeReduce},
                                    std::pair{"vectorizeMaps(", &VectorizeMaps},
                                    std::pair{"vectorizeColumns(", &VectorizeColumns}}) {
      if (from.steps[k].rule.starts_with(prefix)) family = f;
    }
    if (family == nullptr) continue;
    for (int w : options.vector_widths) {
      const std::string rule = family(w).name;
      if (from.steps[k].rule == rule) continue;
      Variant v{from.steps, nullptr};
      v.steps[k].rule = rule;
      absl::StatusOr<ir::ExprPtr> rewritten = Replay(body, v.steps);
      if (!rewritten.ok()) continue;  // the later steps no longer apply where they did
      v.body = *std::move(rewritten);
      out.push_back(std::move(v));
    }
  }
  return out;
}

absl::StatusOr<ir::ExprPtr> Replay(const ir::ExprPtr& body, const std::vector<Step>& steps) {
  ExploreOptions all;
  all.vector_widths = {2, 4, 8, 16};
  all.work_groups = true;
  const std::vector<ExploreRule> rules = ExploreRules(all);
  ir::ExprPtr current = body;
  for (const Step& step : steps) {
    const ExploreRule* rule = nullptr;
    for (const ExploreRule& r : rules) {
      if (r.rule.name == step.rule) rule = &r;
    }
    if (rule == nullptr) return absl::NotFoundError(absl::StrCat("no rule named ", step.rule));
    DFC_ASSIGN_OR_RETURN(std::vector<ir::ExprPtr> rewrites, Rewrites(*rule, current));
    if (step.place < 0 || step.place >= static_cast<int>(rewrites.size())) {
      return absl::FailedPreconditionError(absl::StrCat("step ", step.ToString(),
                                                        " does not apply: the rule matches at ",
                                                        rewrites.size(), " places"));
    }
    current = rewrites[step.place];
  }
  return current;
}

absl::StatusOr<Step> ParseStep(const std::string& text) {
  const size_t at = text.rfind('@');
  Step step;
  if (at == std::string::npos || at == 0 || !absl::SimpleAtoi(text.substr(at + 1), &step.place)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a step is RULE@PLACE, as vectorizeReduce(16)@0; got \"", text, "\""));
  }
  step.rule = text.substr(0, at);
  return step;
}

}  // namespace dfc::rewrite

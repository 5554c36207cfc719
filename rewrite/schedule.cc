// The default schedule (see schedule.h).
#include "rewrite/schedule.h"

#include <algorithm>
#include <variant>

#include "base/status.h"
#include "ir/traverse.h"
#include "rewrite/lower_for_device.h"
#include "rewrite/rule.h"
#include "rewrite/vectorize.h"

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

}  // namespace

absl::StatusOr<ContractionSchedule> ScheduleFolds(const ir::ExprPtr& body,
                                                  const DeviceProfile& profile) {
  ContractionSchedule schedule{.body = body};
  if (profile.is_gpu) return schedule;
  AccumulatorVectorizer vectorizer(std::max(4, profile.preferred_vector_width));
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr vectorised, vectorizer.Mutate(body));
  if (vectorizer.steps().empty() || !LowerForDevice(vectorised, profile).ok()) return schedule;
  schedule.body = std::move(vectorised);
  schedule.steps = vectorizer.steps();
  return schedule;
}

absl::StatusOr<ContractionSchedule> DefaultSchedule(const ir::ExprPtr& body,
                                                    const DeviceProfile& profile) {
  DFC_ASSIGN_OR_RETURN(ContractionSchedule products, ScheduleContractions(body, profile));
  DFC_ASSIGN_OR_RETURN(ContractionSchedule folds, ScheduleFolds(products.body, profile));
  products.body = std::move(folds.body);
  products.steps.insert(products.steps.end(), folds.steps.begin(), folds.steps.end());
  return products;
}

}  // namespace dfc::rewrite

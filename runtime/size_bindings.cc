// Binding size variables for a run (see size_bindings.h).
#include "runtime/size_bindings.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/ops.h"
#include "graph/tensor_list.h"
#include "ir/from_tf/translate.h"
#include "ir/interpreter.h"
#include "runtime/control_flow.h"
#include "runtime/reference/kernel.h"

namespace dfc {

namespace {

// Unified variables: N1 -> N binds N from N1's binding if N has none, and must agree otherwise.
// `bound_by` says where each binding came from ("feed \"x\" dimension 0"), for the error.
absl::Status UnifySizes(const ir::TranslatedGraph& translated, SizeBindings& sizes,
                        absl::flat_hash_map<std::string, std::string>& bound_by) {
  for (bool progress = true; progress;) {
    progress = false;
    for (const auto& [var, expr] : translated.size_substitutions) {
      auto bound = sizes.find(var);
      if (bound == sizes.end()) continue;
      absl::StatusOr<int64_t> value = expr.Evaluate(sizes);
      if (!value.ok()) {
        if (expr.kind() == ArithExpr::Kind::kVar) {
          sizes[expr.var_name()] = bound->second;
          bound_by[expr.var_name()] = bound_by[var];
          progress = true;
        }
        continue;
      }
      if (*value != bound->second) {
        return absl::InvalidArgumentError(
            absl::StrCat(bound_by[var], " is ", bound->second,
                         ", but the graph combines it with a dimension of ", expr.ToString(), " = ",
                         *value, " (an op needs the two sizes equal)"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SizeBindings> BindSizes(const ir::TranslatedGraph& translated,
                                       const std::vector<Feed>& feeds) {
  SizeBindings sizes;
  absl::flat_hash_map<std::string, std::string> bound_by;  // variable -> "feed x, dimension 0"
  for (const SizeVariable& var : translated.fold.size_variables) {
    if (var.when_run) continue;
    for (const auto& [id, tensor] : feeds) {
      if (id.node != var.placeholder || id.index != 0) continue;
      if (var.dim >= static_cast<int>(tensor.shape().size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("feed \"", id.ToString(), "\" has shape ", ShapeToString(tensor.shape()),
                         ", but dimension ", var.dim, " is the size variable ", var.name));
      }
      sizes.emplace(var.name, tensor.shape()[var.dim]);
      bound_by.emplace(var.name, absl::StrCat("feed \"", id.ToString(), "\" dimension ", var.dim));
    }
  }
  DFC_RETURN_IF_ERROR(UnifySizes(translated, sizes, bound_by));
  return sizes;
}

bool BindsSizesWhenRun(const ir::TranslatedGraph& translated) {
  const std::vector<SizeVariable>& vars = translated.fold.size_variables;
  return std::any_of(vars.begin(), vars.end(), [](const SizeVariable& v) { return v.when_run; });
}

absl::Status BindRunSizes(const ir::TranslatedGraph& translated, const Node& node,
                          std::span<const Tensor> outputs, SizeBindings& sizes) {
  absl::flat_hash_map<std::string, std::string> bound_by;
  for (const SizeVariable& var : translated.fold.size_variables) {
    if (!var.when_run || var.placeholder != node.name) continue;
    if (var.output >= static_cast<int>(outputs.size()) ||
        var.dim >= static_cast<int>(outputs[var.output].shape().size())) {
      return node.Error(absl::StrCat("output ", var.output, " has no dimension ", var.dim,
                                     " for the size variable ", var.name));
    }
    sizes[var.name] = outputs[var.output].shape()[var.dim];
    bound_by[var.name] =
        absl::StrCat("output ", var.output, " of \"", node.name, "\" dimension ", var.dim);
  }
  if (bound_by.empty()) return absl::OkStatus();
  return UnifySizes(translated, sizes, bound_by);
}

absl::StatusOr<Tensor> CompileTimeValue(const TensorInfo& info, const SizeBindings& sizes) {
  if (info.value) return *info.value;
  if (!info.symbolic_value || !info.shape) {
    return absl::InternalError(
        absl::StrCat("a value read when compiling is not known: ", info.ToString()));
  }
  std::vector<int64_t> values;
  for (const ArithExpr& e : *info.symbolic_value) {
    DFC_ASSIGN_OR_RETURN(int64_t v, e.Evaluate(sizes));
    values.push_back(v);
  }
  DFC_ASSIGN_OR_RETURN(const Shape shape, EvaluateShape(*info.shape, sizes));
  if (info.dtype == DType::kInt64) return Tensor::FromVector<int64_t>(values, shape);
  std::vector<int32_t> narrow(values.begin(), values.end());
  return Tensor::FromVector<int32_t>(narrow, shape);
}

}  // namespace dfc

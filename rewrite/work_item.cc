// What a work-item can hold and compute (see work_item.h).
#include "rewrite/work_item.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace dfc::rewrite {

// The scalar or vector at the bottom of nested arrays, or nullptr (a tuple).
ir::TypePtr LeafType(const ir::TypePtr& type) {
  if (type->is_array()) return LeafType(type->element);
  return type->is_scalar() || type->is_vector() ? type : nullptr;
}

// How many scalars or vectors (one slot each) a value of `type` holds: NumElements for a
// tensor. Null for a tuple.
std::optional<ArithExpr> Slots(const ir::TypePtr& type) {
  if (type->is_scalar() || type->is_vector()) return ArithExpr(1);
  if (!type->is_array()) return std::nullopt;
  std::optional<ArithExpr> element = Slots(type->element);
  if (!element) return std::nullopt;
  return type->length * *element;
}

// The number of scalars of a tensor type, if it is a known constant.
std::optional<int64_t> ConstantElements(const ir::TypePtr& type) {
  const auto shape = ir::TensorShape(type);
  if (!shape) return std::nullopt;
  return NumElements(*shape).AsConstant();
}

std::optional<std::string> AccumulatorRefusal(const ir::TypePtr& init, bool in_rows) {
  const auto refused = [&](absl::string_view why) {
    return std::optional<std::string>(
        absl::StrCat("a Reduce accumulator of type ", ir::TypeToString(init), why));
  };
  if (init->is_tuple()) {
    for (const ir::TypePtr& field : init->elements) {
      if (field->is_array()) return refused("");
      if (std::optional<std::string> why = AccumulatorRefusal(field, in_rows)) return why;
    }
    return std::nullopt;
  }
  if (!init->is_array()) {
    return init->is_scalar() || init->is_vector() ? std::nullopt : refused("");
  }
  const std::optional<ArithExpr> slots = Slots(init);
  const std::optional<int64_t> n = slots ? slots->AsConstant() : std::nullopt;
  const ir::TypePtr leaf = LeafType(init);
  if (!n || leaf == nullptr || leaf->dtype == DType::kHalf || !in_rows) {
    return refused(in_rows ? "" : " outside the rows of a kernel");
  }
  const int64_t scalars = *n * (leaf->is_vector() ? leaf->width : 1);
  if (scalars > kMaxAccumulatorScalars) {
    return refused(absl::StrCat(" (", scalars, " scalars, more than the ", kMaxAccumulatorScalars,
                                " a work-item keeps in registers)"));
  }
  return std::nullopt;
}

std::optional<std::string> AsVectorRefusal(DType dtype) {
  if (dtype == DType::kHalf) return "a vector of float16";
  return std::nullopt;
}

namespace {

// Whether OpenCL C `body` declares a local of a scalar type (`float y = ...`): a scalar type's
// name, not part of a longer name, then blanks and a name.
bool DeclaresAScalar(absl::string_view body) {
  const auto is_name = [](char c) { return absl::ascii_isalnum(c) || c == '_'; };
  for (const absl::string_view type : {"float", "double", "half", "char", "uchar", "short",
                                       "ushort", "int", "uint", "long", "ulong", "bool"}) {
    for (size_t at = body.find(type); at != absl::string_view::npos; at = body.find(type, at + 1)) {
      size_t next = at + type.size();
      if ((at > 0 && is_name(body[at - 1])) || next == body.size() ||
          !absl::ascii_isspace(body[next])) {
        continue;
      }
      while (next < body.size() && absl::ascii_isspace(body[next])) ++next;
      if (next < body.size() && (absl::ascii_isalpha(body[next]) || body[next] == '_')) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> VectorRefusal(const ir::UserFun& f) {
  if (absl::StrContains(f.body, "if (") || absl::StrContains(f.body, "if(")) {
    return absl::StrCat("UserFun ", f.name, " on vectors (its body branches with `if`)");
  }
  if (DeclaresAScalar(f.body)) {
    return absl::StrCat("UserFun ", f.name, " on vectors (its body declares a scalar)");
  }
  for (const ir::TypePtr& t : f.param_types) {
    if (t->dtype == DType::kHalf || t->dtype == DType::kBool) {
      return absl::StrCat("UserFun ", f.name, " on vectors of ", DTypeName(t->dtype));
    }
  }
  if (f.result_type->dtype == DType::kHalf || f.result_type->dtype == DType::kBool) {
    return absl::StrCat("UserFun ", f.name, " on vectors");
  }
  return std::nullopt;
}

}  // namespace dfc::rewrite

// IR types: construction, equality, hashing and printing.
#include "ir/type.h"

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status.h"

namespace dfc::ir {

TypePtr ScalarType(DType dtype) {
  auto t = std::make_shared<Type>(Type{Type::Kind::kScalar});
  t->dtype = dtype;
  return t;
}

TypePtr VectorType(DType dtype, int width) {
  DFC_CHECK(width == 2 || width == 4 || width == 8 || width == 16);
  auto t = std::make_shared<Type>(Type{Type::Kind::kVector});
  t->dtype = dtype;
  t->width = width;
  return t;
}

TypePtr TupleType(std::vector<TypePtr> elements) {
  auto t = std::make_shared<Type>(Type{Type::Kind::kTuple});
  t->elements = std::move(elements);
  return t;
}

TypePtr ArrayType(TypePtr element, ArithExpr length) {
  DFC_CHECK(element != nullptr);
  auto t = std::make_shared<Type>(Type{Type::Kind::kArray});
  t->element = std::move(element);
  t->length = std::move(length);
  return t;
}

TypePtr TensorType(DType dtype, const SymbolicShape& shape) {
  TypePtr t = ScalarType(dtype);
  for (auto it = shape.rbegin(); it != shape.rend(); ++it) t = ArrayType(t, *it);
  return t;
}

std::optional<SymbolicShape> TensorShape(const TypePtr& type) {
  SymbolicShape shape;
  const Type* t = type.get();
  while (t->is_array()) {
    shape.push_back(t->length);
    t = t->element.get();
  }
  if (!t->is_scalar()) return std::nullopt;
  return shape;
}

DType BaseDType(const TypePtr& type) {
  const Type* t = type.get();
  while (t->is_array()) t = t->element.get();
  return t->is_tuple() ? DType::kInvalid : t->dtype;
}

int ArrayDepth(const TypePtr& type) {
  int depth = 0;
  for (const Type* t = type.get(); t->is_array(); t = t->element.get()) ++depth;
  return depth;
}

TypePtr ElementAt(const TypePtr& type, int depth) {
  TypePtr t = type;
  for (int d = 0; d < depth; ++d) {
    DFC_CHECK(t->is_array());
    t = t->element;
  }
  return t;
}

bool TypeEquals(const TypePtr& a, const TypePtr& b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case Type::Kind::kScalar:
      return a->dtype == b->dtype;
    case Type::Kind::kVector:
      return a->dtype == b->dtype && a->width == b->width;
    case Type::Kind::kTuple:
      if (a->elements.size() != b->elements.size()) return false;
      for (size_t i = 0; i < a->elements.size(); ++i) {
        if (!TypeEquals(a->elements[i], b->elements[i])) return false;
      }
      return true;
    case Type::Kind::kArray:
      return a->length == b->length && TypeEquals(a->element, b->element);
  }
  return false;
}

size_t TypeHash(const TypePtr& type) {
  switch (type->kind) {
    case Type::Kind::kScalar:
      return absl::HashOf(0, static_cast<int>(type->dtype));
    case Type::Kind::kVector:
      return absl::HashOf(1, static_cast<int>(type->dtype), type->width);
    case Type::Kind::kTuple: {
      size_t h = absl::HashOf(2, type->elements.size());
      for (const TypePtr& e : type->elements) h = absl::HashOf(h, TypeHash(e));
      return h;
    }
    case Type::Kind::kArray:
      return absl::HashOf(3, type->length, TypeHash(type->element));
  }
  return 0;
}

std::string TypeToString(const TypePtr& type) {
  switch (type->kind) {
    case Type::Kind::kScalar:
      return std::string(DTypeName(type->dtype));
    case Type::Kind::kVector:
      return absl::StrCat(DTypeName(type->dtype), "<", type->width, ">");
    case Type::Kind::kTuple:
      return absl::StrCat(
          "(",
          absl::StrJoin(type->elements, ", ",
                        [](std::string* out, const TypePtr& e) { *out += TypeToString(e); }),
          ")");
    case Type::Kind::kArray: {
      std::string length = type->length.ToString();
      bool simple = type->length.kind() == ArithExpr::Kind::kConst ||
                    type->length.kind() == ArithExpr::Kind::kVar;
      return absl::StrCat("[", TypeToString(type->element), "]_",
                          simple ? length : absl::StrCat("(", length, ")"));
    }
  }
  return "?";
}

}  // namespace dfc::ir

// IR types: scalars, vectors, tuples and arrays whose lengths are ArithExprs. Types are
// immutable and shared; two types are equal when their structure is (array lengths compare
// through the ArithExpr simplifier, so [float]_(N*784) equals [float]_(784*N)).
//
// A TensorFlow tensor of shape [d0, ..., dk] and dtype T is the nested array
// [[...[T]_dk...]_d1]_d0; a rank-0 tensor is the scalar T.
#ifndef DFC_IR_TYPE_H_
#define DFC_IR_TYPE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/arith.h"
#include "graph/dtype.h"

namespace dfc::ir {

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct Type {
  enum class Kind { kScalar, kVector, kTuple, kArray };

  Kind kind;
  DType dtype = DType::kInvalid;  // kScalar, kVector: the element dtype
  int width = 1;                  // kVector: 2, 4, 8 or 16
  std::vector<TypePtr> elements;  // kTuple
  TypePtr element;                // kArray
  ArithExpr length;               // kArray

  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_vector() const { return kind == Kind::kVector; }
  bool is_tuple() const { return kind == Kind::kTuple; }
  bool is_array() const { return kind == Kind::kArray; }
};

TypePtr ScalarType(DType dtype);
// Width must be 2, 4, 8 or 16 (checked: a caller bug otherwise).
TypePtr VectorType(DType dtype, int width);
TypePtr TupleType(std::vector<TypePtr> elements);
TypePtr ArrayType(TypePtr element, ArithExpr length);

// The nested array type of a tensor (the scalar for shape []).
TypePtr TensorType(DType dtype, const SymbolicShape& shape);
// The dims of a tensor type (nested arrays ending in a scalar); nullopt for anything else.
std::optional<SymbolicShape> TensorShape(const TypePtr& type);
// The scalar dtype at the bottom of nested arrays and vectors; kInvalid through a tuple.
DType BaseDType(const TypePtr& type);
// Number of array levels above the innermost non-array type.
int ArrayDepth(const TypePtr& type);
// The type `depth` array levels down (ElementAt(t, 0) == t).
TypePtr ElementAt(const TypePtr& type, int depth);

bool TypeEquals(const TypePtr& a, const TypePtr& b);
size_t TypeHash(const TypePtr& type);

// "float", "float4", "(float, int32)", "[[float]_784]_N".
std::string TypeToString(const TypePtr& type);

}  // namespace dfc::ir

#endif  // DFC_IR_TYPE_H_

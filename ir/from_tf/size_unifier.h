// Size-variable unification, as TensorFlow's shape inference merges unknown dimensions: an op
// that needs two dimensions equal (broadcasting operands, a contraction's inner dimensions)
// and finds a variable against something else makes the variable that something. Each op says
// what it needs through its Translation's unify_sizes hook (ir/from_tf/translate.h).
#ifndef DFC_IR_FROM_TF_SIZE_UNIFIER_H_
#define DFC_IR_FROM_TF_SIZE_UNIFIER_H_

#include <span>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "graph/arith.h"
#include "graph/node.h"

namespace dfc::ir {

class SizeUnifier {
 public:
  // Bindings are added to `substitutions`, which earlier rounds may have filled.
  explicit SizeUnifier(absl::flat_hash_map<std::string, ArithExpr>& substitutions)
      : substitutions_(substitutions) {}

  // Records a = b where one side is a variable; true if that is new.
  bool Unify(const ArithExpr& a, const ArithExpr& b);

  // Broadcasting operands: aligned from the right, every dimension that is not 1 is equal.
  bool Broadcast(std::span<const SymbolicShape> shapes);

 private:
  bool Bind(const std::string& var, const ArithExpr& value);

  absl::flat_hash_map<std::string, ArithExpr>& substitutions_;
};

// The unify_sizes hook of an op whose operands broadcast together (ir/from_tf/translate.h).
bool UnifyBroadcast(const Node& node, std::span<const SymbolicShape> shapes, SizeUnifier& unifier);

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_SIZE_UNIFIER_H_

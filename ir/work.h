// The work an expression does, in operations: each UserFun applied counts one per lane it
// computes. Two ways of evaluating the same expression are counted:
//
//   - strictly, as the interpreter evaluates it: every FunCall once where it stands, a Map's
//     function once per element, a Reduce's step once per element. This is the work of the
//     graph nodes the expression translates, each computed once (StrictOps).
//   - as the code generator evaluates it (codegen/): an array is a view whose elements are
//     computed where they are read, again each time they are read; only a let's value, a
//     fold's accumulator, a scalar bound by a λ and a private array are computed once
//     (GeneratedOps). Where a consumer reads an element of a computed array several times
//     (overlapping windows over a convolution's output, a dot product per output channel over
//     a row that a fold makes), this exceeds the strict count: the recomputation that fusing a
//     producer into that consumer costs.
//
// The generator counts the operations of the code it emits (codegen::KernelStage::ops), and a
// test holds GeneratedOps to that count on lowered kernels; the translation asks GeneratedOps
// before it fuses a producer into a consumer (ir/from_tf/cluster.cc).
#ifndef DFC_IR_WORK_H_
#define DFC_IR_WORK_H_

#include <cstdint>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "graph/arith.h"
#include "ir/expr.h"

namespace dfc::ir {

// The most elements a work-item keeps in a private array (4 KiB of float): recomputing an
// element that does arithmetic costs more than writing and reading it once, and GPU drivers
// keep arrays this size in registers or spill them to cached scratch memory without failing.
// The lowering's toPrivate keeps an array up to this size (rewrite/lower_for_device.h).
inline constexpr int64_t kMaxPrivateElements = 1024;

// What storing a value costs, in the operations recomputing it would be worth: each byte written
// once and read again. A CPU core makes about 4 operations in the time it moves a byte to or from
// memory (two AVX2 cores' 150 GFLOP/s against 30-60 GB/s both ways); a GPU more, so that there
// fusing a cheap producer pays all the more.
inline constexpr double kOpsPerStoredByte = 4;

// The operations storing `bytes` and reading them back is worth (kOpsPerStoredByte a byte each
// way).
inline double StoreOpsOfBytes(double bytes) { return 2 * bytes * kOpsPerStoredByte; }
// The same for a value of tensor type `type`, its unknown sizes counted as 1.
double StoreOps(const TypePtr& type);

// The operations of evaluating `e` strictly, its parameters free (read at no cost): symbolic
// in its sizes.
ArithExpr StrictOps(const ExprPtr& e);

// What the generated code of a value costs: the operations spent when it is made, when a
// scalar of it is forced, and per element obtained from an array (see
// work_internal.h).
struct LazyCost;
using LazyCostPtr = std::shared_ptr<const LazyCost>;

struct GeneratedOptions {
  // Sizes not bound here count as 1.
  SizeBindings sizes;
  // Whether an array a λ binds is kept in a private array where the lowering's toPrivate would
  // keep it (a value that computes, read more than once, of at most kMaxPrivateElements): true
  // for an expression before the device lowering, which is where the translation asks; false
  // for a lowered one, whose ToPrivates are explicit.
  bool private_arrays = true;
};

// Counts the operations of generated code. One counter may answer many questions about the
// expressions of one cluster: a value made at the top level (every parameter free) is
// evaluated once.
class GeneratedCounter {
 public:
  explicit GeneratedCounter(GeneratedOptions options = {});
  ~GeneratedCounter();

  // The operations of a kernel that stores `e` (every element computed and written once, as
  // a kernel's output), its free parameters read at no cost. A top-level let's value is
  // stored by a kernel of its own, counted too, and read at no cost.
  double Stored(const ExprPtr& e);
  // The same, each parameter of `inputs` read as the value it is paired with, computed where
  // it is read (fused), or at no cost where that is null (stored): with a consumer's
  // expression over parameters, Stored(c, {p: v}) - Stored(c, {p: null}) - Stored(v) is what
  // fusing v into the consumer costs beyond computing v once.
  double Stored(const ExprPtr& e, const std::vector<std::pair<const Param*, ExprPtr>>& inputs);

 private:
  class Evaluator;
  std::unique_ptr<Evaluator> evaluator_;
};

// GeneratedCounter(options).Stored(e).
double GeneratedOps(const ExprPtr& e, const GeneratedOptions& options = {});

}  // namespace dfc::ir

#endif  // DFC_IR_WORK_H_

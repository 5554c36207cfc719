// What a work-item can hold and compute: the limits the device lowering (lower_for_device.h)
// checks, so that a variant either lowers completely or declines with a reason, and the code
// generator, which prints what the lowering accepted, relies on.
#ifndef DFC_REWRITE_WORK_ITEM_H_
#define DFC_REWRITE_WORK_ITEM_H_

#include <cstdint>
#include <optional>
#include <string>

#include "graph/arith.h"
#include "ir/expr.h"

namespace dfc::rewrite {

// The scalar or vector at the bottom of nested arrays, or nullptr (a tuple).
ir::TypePtr LeafType(const ir::TypePtr& type);

// How many scalars or vectors (one slot each) a value of `type` holds: NumElements for a
// tensor. Null for a tuple.
std::optional<ArithExpr> Slots(const ir::TypePtr& type);

// The number of scalars of a tensor type, if it is a known constant.
std::optional<int64_t> ConstantElements(const ir::TypePtr& type);

// The most elements a work-item keeps in a private array (4 KiB of float): recomputing an
// element that does arithmetic costs more than writing and reading it once, and GPU drivers
// keep arrays this size in registers or spill them to cached scratch memory without failing.
constexpr int64_t kMaxPrivateElements = 1024;

// The most scalars (vector lanes counted) a Reduce keeps in an accumulator array. The array is
// meant to live in registers (every loop over it is unrolled, so the driver's compiler sees
// each element as a value of its own): 512 scalars are the 32 vector registers of an AVX-512
// core, and hold a block of 2 rows by 10 columns of float16 accumulators (rewrite::BlockRows,
// 320). A GPU thread has fewer (255 32-bit registers on NVIDIA's): there a large one spills, and
// the tuner's timing says so. Larger, its unrolled code would grow with it, and a CPU driver
// that gives thousands of work-items a group overflows its thread's stack (PoCL did, with 1024:
// a 784x256 layer's accumulator of 256 float4).
constexpr int64_t kMaxAccumulatorScalars = 512;

// Why a work-item cannot keep `init` as a Reduce's accumulator, or nullopt: scalars and vectors
// (in tuples) live in variables; an array needs a known size of at most kMaxAccumulatorScalars
// scalars, not float16, and a work-item to keep it (inside a kernel's rows, `in_rows`).
std::optional<std::string> AccumulatorRefusal(const ir::TypePtr& init, bool in_rows);

// Why AsVector cannot make vectors of `dtype`, or nullopt: float16 is computed as float, one
// scalar at a time.
std::optional<std::string> AsVectorRefusal(DType dtype);

// Why UserFun `f` cannot be applied lane by lane to vectors, or nullopt. Its twin with vector
// parameters runs the same body, OpenCL C's arithmetic and builtins being lane-wise; but `if`
// takes a scalar condition, a local of a scalar type cannot hold a vector, float16 is rounded
// after every operation, and a comparison of vectors gives -1 where bool wants 1.
std::optional<std::string> VectorRefusal(const ir::UserFun& f);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_WORK_ITEM_H_

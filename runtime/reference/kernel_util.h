// Helpers shared by the reference kernels: index inputs, axes and strides.
#ifndef DFC_RUNTIME_REFERENCE_KERNEL_UTIL_H_
#define DFC_RUNTIME_REFERENCE_KERNEL_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "runtime/reference/kernel.h"

namespace dfc::reference {

// The elements of input `i`, an int32 or int64 tensor of rank 0 or 1 (axes, shapes, sizes).
// `what` names the input in errors: "shape", "axis", "perm"...
absl::StatusOr<std::vector<int64_t>> ReadIndexVector(const KernelContext& ctx, int i,
                                                     absl::string_view what);

// The single element of input `i`, an int32 or int64 tensor with exactly one element.
absl::StatusOr<int64_t> ReadIndexScalar(const KernelContext& ctx, int i, absl::string_view what);

// Maps an axis in [-rank, rank) to [0, rank); anything else is an error naming the node.
absl::StatusOr<int> NormalizeAxis(const KernelContext& ctx, int64_t axis, int rank);

// Row-major strides in elements: strides[rank-1] == 1.
std::vector<int64_t> Strides(const Shape& shape);

// The elements of shape[from, to); 1 for an empty range. For a tensor that has elements, whose
// partial products therefore cannot overflow (a zero dimension can hide an overflowing rest).
int64_t Product(const Shape& shape, int from, int to);

// "[1,0]" for flat element `flat` of a tensor of `shape`, "" for a scalar shape: an index in
// an error message.
std::string Position(const Shape& shape, int64_t flat);

// Fails unless input `i` has one of `allowed` dtypes.
absl::Status CheckDType(const KernelContext& ctx, int i, std::span<const DType> allowed);
absl::Status CheckDType(const KernelContext& ctx, int i, std::initializer_list<DType> allowed);

// Fails unless the node has `n` inputs.
absl::Status CheckNumInputs(const KernelContext& ctx, int n);
// Input i has a dtype dfc holds (so that an op that only moves it can copy its bytes).
absl::Status CheckMovable(const KernelContext& ctx, int i);
// Fails unless inputs `a` and `b` have one dtype.
absl::Status CheckSameDType(const KernelContext& ctx, int a, int b);

// A new tensor, or the error from Tensor::Create annotated with the node.
absl::StatusOr<Tensor> AllocateOutput(const KernelContext& ctx, DType dtype, Shape shape);

}  // namespace dfc::reference

#endif  // DFC_RUNTIME_REFERENCE_KERNEL_UTIL_H_

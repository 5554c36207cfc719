// The OpenCL kernels that are not generated from the IR: a variable's update and the device
// optimizers' steps, which the runtime applies to the variables where they live, and the stream
// kernels that measure a device's memory bandwidth. Kept here so that OpenCL C is written in
// codegen/ only.
#ifndef DFC_CODEGEN_FIXED_KERNELS_H_
#define DFC_CODEGEN_FIXED_KERNELS_H_

#include <string>

#include "graph/dtype.h"

namespace dfc::codegen {

// dfc_update(var, delta, out, factor, n): out = var + factor * delta in `dtype`, rounded as the
// reference executor rounds it (no contraction to fma): AssignAdd (factor 1), AssignSub (-1),
// ApplyGradientDescent (-alpha). For float and double.
std::string VariableUpdateSource(DType dtype);

// An optimizer whose step runs on the device: one elementwise kernel over the variables, in
// double as the reference's step computes it (runtime/reference/optimizer.cc), each value
// rounded to the variables' dtype where the reference rounds it, without contraction to fma:
// the same values. `body` is OpenCL C on doubles s0 (var), s1... (the slots, in input order),
// g (the gradient) and c0, c1... (the other inputs, the hyperparameters, in input order), with
// R(x) the rounding and NESTEROV the attribute use_nesterov.
struct DeviceOptimizer {
  const char* op;
  int grad;  // the gradient's input
  const char* body;
};

// The device step of optimizer `op`, or nullptr if it has none.
const DeviceOptimizer* FindDeviceOptimizer(const std::string& op);

// The kernel dfc_apply(in0.., grad, out0.., c0.., n) of `o` for `variables` variables of
// `dtype` (float or double) and `scalars` hyperparameters.
std::string OptimizerSource(const DeviceOptimizer& o, DType dtype, int variables, int scalars,
                            bool nesterov);

// chunked(in, out, n, chunk) and interleaved(in, out, n, stride): each work-item sums its
// share of `in` (a contiguous chunk, or every stride-th element) into out[id], reading memory
// as a streaming kernel does.
const char* StreamKernelsSource();

}  // namespace dfc::codegen

#endif  // DFC_CODEGEN_FIXED_KERNELS_H_

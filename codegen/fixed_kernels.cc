// The OpenCL kernels written by hand (fixed_kernels.h).
#include "codegen/fixed_kernels.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codegen/kernel_gen.h"

namespace dfc::codegen {
namespace {

// `chunked` sums with 16-wide vector loads into four independent accumulators: a scalar
// running sum would wait on each addition (its latency, not the memory, would be measured:
// 12.8 GB/s where the vector loads stream 62 GB/s on the development machine's CPU device).
constexpr char kStreamKernels[] = R"(
__kernel void chunked(__global const float* restrict in, __global float* restrict out,
                      const long n, const long chunk) {
  const long g = get_global_id(0);
  const long begin = g * chunk, end = min(n, begin + chunk);
  float16 a = 0.0f, b = 0.0f, c = 0.0f, d = 0.0f;
  long i = begin;
  for (; i + 64 <= end; i += 64) {
    a += vload16(0, in + i);
    b += vload16(0, in + i + 16);
    c += vload16(0, in + i + 32);
    d += vload16(0, in + i + 48);
  }
  float s = 0.0f;
  for (; i < end; ++i) s += in[i];
  const float16 v = (a + b) + (c + d);
  const float8 h8 = v.lo + v.hi;
  const float4 h4 = h8.lo + h8.hi;
  out[g] = s + h4.x + h4.y + h4.z + h4.w;
}
__kernel void interleaved(__global const float* restrict in, __global float* restrict out,
                          const long n, const long stride) {
  const long g = get_global_id(0);
  float s = 0.0f;
  for (long i = g; i < n; i += stride) s += in[i];
  out[g] = s;
}
)";

}  // namespace

std::string VariableUpdateSource(DType dtype) {
  const std::string t = StorageType(dtype);
  return absl::StrCat(
      dtype == DType::kDouble ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "",
      "#pragma OPENCL FP_CONTRACT OFF\n",
      "// A variable's update, out = var + factor * delta: AssignAdd (factor 1), AssignSub (-1),\n"
      "// ApplyGradientDescent (-alpha).\n",
      "__kernel void dfc_update(__global const ", t, "* restrict var, __global const ", t,
      "* restrict delta,\n                         __global ", t, "* restrict out, const ", t,
      " factor, const long n) {\n", "  const long i = get_global_id(0);\n",
      "  if (i < n) out[i] = var[i] + factor * delta[i];\n", "}\n");
}

namespace {

constexpr DeviceOptimizer kDeviceOptimizers[] = {
    // ApplyMomentum(var, accum, lr, grad, momentum)
    {"ApplyMomentum", 3,
     "s1 = R(s1 * c1 + g);\n"
     "s0 = R(NESTEROV ? s0 - (g * c0 + s1 * c1 * c0) : s0 - s1 * c0);\n"},
    // ApplyAdam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)
    {"ApplyAdam", 9,
     "const double alpha = c2 * sqrt(1 - c1) / (1 - c0);\n"
     "s1 = R(s1 + (g - s1) * (1 - c3));\n"
     "s2 = R(s2 + (g * g - s2) * (1 - c4));\n"
     "const double direction = NESTEROV ? g * (1 - c3) + c3 * s1 : s1;\n"
     "s0 = R(s0 - direction * alpha / (sqrt(s2) + c5));\n"},
};

}  // namespace

const DeviceOptimizer* FindDeviceOptimizer(const std::string& op) {
  for (const DeviceOptimizer& o : kDeviceOptimizers) {
    if (op == o.op) return &o;
  }
  return nullptr;
}

std::string OptimizerSource(const DeviceOptimizer& o, DType dtype, int variables, int scalars,
                            bool nesterov) {
  const std::string t = StorageType(dtype);
  std::string params, load, store;
  for (int k = 0; k < variables; ++k) {
    absl::StrAppend(&params, "__global const ", t, "* restrict in", k, ", ");
    absl::StrAppend(&load, "  double s", k, " = in", k, "[i];\n");
    absl::StrAppend(&store, "  out", k, "[i] = (", t, ")s", k, ";\n");
  }
  absl::StrAppend(&params, "__global const ", t, "* restrict grad, ");
  for (int k = 0; k < variables; ++k)
    absl::StrAppend(&params, "__global ", t, "* restrict out", k, ", ");
  for (int k = 0; k < scalars; ++k) absl::StrAppend(&params, "const double c", k, ", ");
  std::string body;
  for (absl::string_view line : absl::StrSplit(o.body, '\n', absl::SkipEmpty())) {
    absl::StrAppend(&body, "  ", line, "\n");
  }
  return absl::StrCat(
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n", "#pragma OPENCL FP_CONTRACT OFF\n", "// ",
      o.op, ", as the reference's step.\n", "#define R(x) ((double)(", t, ")(x))\n",
      "#define NESTEROV ", nesterov ? 1 : 0, "\n", "__kernel void dfc_apply(", params,
      "const long n) {\n", "  const long i = get_global_id(0);\n", "  if (i >= n) return;\n", load,
      "  const double g = grad[i];\n", body, store, "}\n");
}

const char* StreamKernelsSource() { return kStreamKernels; }

}  // namespace dfc::codegen

// Comparing a computed tensor with an expected one (an oracle's or TensorFlow's), with the
// floating-point tolerance dfc states everywhere it compares.
#ifndef DFC_RUNTIME_COMPARE_H_
#define DFC_RUNTIME_COMPARE_H_

#include <cstdint>
#include <string>

#include "graph/tensor.h"

namespace dfc {

// |actual - expected| <= atol + rtol * |expected|, element by element.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// TensorFlow's own test suite compares float results with assertAllClose's defaults,
// rtol = atol = 1e-6, loosened to 1e-3 for float16: that is the agreement TensorFlow asks of
// its kernels across CPUs and Eigen versions, so dfc asks the same of itself against
// TensorFlow. Its sources of difference are the same kinds: the order of summation in
// reductions and contractions, and libm against Eigen's polynomial approximations of exp,
// log, tanh... Integers and bools compare exactly.
Tolerance DefaultTolerance(DType dtype);

// The tolerance against TensorFlow's own outputs: DefaultTolerance, with atol at least 32 units
// of roundoff of the output's largest finite magnitude for float32 and float64. TensorFlow sums
// in the output's dtype, so each element carries an absolute error of the order of the terms it
// summed, through every layer before it; an element that cancels to near zero keeps it, where
// its own magnitude would ask for less. (A seven-layer float32 convolution chain, conformance
// case conv_4, is 4.8 units of its largest magnitude from the exact sums dfc's reference makes.)
// A wrong window or a missed term errs by a whole term, far beyond it.
Tolerance TensorFlowTolerance(const Tensor& expected);

// The largest |x| over the finite elements of a float32 or float64 tensor (0 if none): what
// tolerances scaled to an output's magnitude are scaled by.
double LargestFiniteMagnitude(const Tensor& t);

struct Comparison {
  bool equal = false;
  std::string reason;        // why not, e.g. "shape [2,3] != expected [3,2]"
  double max_error = 0;      // largest |actual - expected| over finite elements
  int64_t worst_index = -1;  // flat index of the element with the largest excess, if any
};

// NaN matches NaN; infinities match by sign.
Comparison CompareTensors(const Tensor& actual, const Tensor& expected, Tolerance tolerance);
Comparison CompareTensors(const Tensor& actual, const Tensor& expected);  // DefaultTolerance

}  // namespace dfc

#endif  // DFC_RUNTIME_COMPARE_H_

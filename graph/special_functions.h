// The scalar functions of the tail table's elementwise ops (OPS.md), in one place for the
// reference kernels (runtime/reference/special_math.cc) and the host twins of their UserFuns
// (ir/from_tf/special_math.cc), whose OpenCL C bodies follow the same steps:
//
//  - the special functions, in double, with the edge values TensorFlow's kernels (Eigen's
//    SpecialFunctionsImpl.h, after Cephes) give: NaN outside a function's domain, infinity at
//    its poles;
//  - FakeQuant's grid, nudged as TensorFlow nudges it, in float.
#ifndef DFC_GRAPH_SPECIAL_FUNCTIONS_H_
#define DFC_GRAPH_SPECIAL_FUNCTIONS_H_

namespace dfc {

// psi(x) = d/dx log Gamma(x). NaN at the poles x = 0, -1, -2, ... (Eigen returns NaN there,
// not an infinity: the sign of the pole depends on the side it is approached from).
double Digamma(double x);
// The regularised lower incomplete gamma function P(a, x). NaN for x < 0 or a <= 0, except
// that P(a, 0) = 0 for every a.
double Igamma(double a, double x);
// The regularised upper incomplete gamma function Q(a, x) = 1 - P(a, x). NaN for x < 0 or
// a <= 0.
double Igammac(double a, double x);
// The regularised incomplete beta function I_x(a, b). NaN for a <= 0, b <= 0, or x outside
// [0, 1]; I_0 = 0 and I_1 = 1.
double Betainc(double a, double b, double x);
// The Hurwitz zeta function sum_k (k + q)^-x. As Cephes and Eigen: +inf at x = 1, NaN for
// x < 1; for q a non-positive integer +inf when x is even and NaN otherwise; for other q <= 0,
// defined only for integer x.
double Zeta(double x, double q);
// (2j)! / B_2j for j = 1..12: the coefficients of Zeta's Euler-Maclaurin tail.
inline constexpr double kZetaFactorialOverBernoulli[12] = {12.0,
                                                           -720.0,
                                                           30240.0,
                                                           -1209600.0,
                                                           47900160.0,
                                                           -1.8924375803183791606e9,
                                                           7.47242496e10,
                                                           -2.950130727918164224e12,
                                                           1.1646782814350067249e14,
                                                           -4.5979787224074726105e15,
                                                           1.8152105401943546773e17,
                                                           -7.1661652561756670113e18};
// The n-th derivative of digamma: NaN unless n is a non-negative integer; digamma for n = 0;
// otherwise (-1)^(n+1) n! zeta(n + 1, x).
double Polygamma(double n, double x);

// The quantisation grid of [min, max] with num_bits and narrow_range, nudged as TensorFlow
// does so that 0 is exactly representable.
struct QuantGrid {
  float nudged_min;
  float nudged_max;
  float scale;
  float inv_scale;
};
QuantGrid Nudge(float min, float max, int num_bits, bool narrow_range);
// x clamped to the grid's range and rounded to its nearest point (a NaN stays NaN).
float FakeQuantize(float x, const QuantGrid& g);

}  // namespace dfc

#endif  // DFC_GRAPH_SPECIAL_FUNCTIONS_H_

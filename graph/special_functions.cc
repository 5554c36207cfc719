// The special functions in double and FakeQuant's grid (special_functions.h). ir/from_tf/
// special_math.cc writes the same steps in OpenCL C: a change here is a change there.
#include "graph/special_functions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace dfc {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
constexpr double kPi = std::numbers::pi;

// x^a e^-x / Gamma(a), or 0 where its logarithm underflows (Eigen's main_igamma_term).
double IgammaFactor(double a, double x) {
  const double log_factor = a * std::log(x) - x - std::lgamma(a);
  if (std::isnan(log_factor) || log_factor < -std::log(std::numeric_limits<double>::max())) {
    return 0;
  }
  return std::exp(log_factor);
}

constexpr int kIgammaIterations = 2000;

// P(a, x) by its power series, for x <= 1 or x <= a:
// x^a e^-x / Gamma(a + 1) * sum_k x^k / ((a + 1) ... (a + k)).
double IgammaSeries(double a, double x) {
  const double factor = IgammaFactor(a, x);
  if (factor == 0) return 0;
  double term = 1;
  double sum = 1;
  double r = a;
  for (int i = 0; i < kIgammaIterations; ++i) {
    r += 1;
    term *= x / r;
    sum += term;
    if (term <= kEpsilon / 2 * sum) break;
  }
  return sum * factor / a;
}

// Q(a, x) by its continued fraction (modified Lentz), for x > 1 and x > a:
// x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))).
double IgammacFraction(double a, double x) {
  if (std::isinf(x)) return 0;
  const double factor = IgammaFactor(a, x);
  if (factor == 0) return 0;
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a;
  double c = 1 / kTiny;
  double d = 1 / b;
  double h = d;
  for (int i = 1; i < kIgammaIterations; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) <= kEpsilon / 2) break;
  }
  return factor * h;
}

// The continued fraction of I_x(a, b) (modified Lentz), which converges fast for
// x < (a + 1) / (a + b + 2).
double BetaFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr int kIterations = 1000;
  const double qab = a + b;
  const double qap = a + 1;
  const double qam = a - 1;
  double c = 1;
  double d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= kIterations; ++m) {
    const int m2 = 2 * m;
    // The even step, then the odd one.
    double an = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + an * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    an = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + an * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) <= kEpsilon) break;
  }
  return h;
}

}  // namespace

// psi(x) = d/dx log Gamma(x). NaN at the poles x = 0, -1, -2, ... (Eigen returns NaN there,
// not an infinity: the sign of the pole depends on the side it is approached from).
double Digamma(double x) {
  if (std::isnan(x) || x == -kInf) return kNaN;
  if (x == kInf) return kInf;
  double reflection = 0;
  if (x <= 0) {
    if (x == std::floor(x)) return kNaN;
    // psi(x) = psi(1 - x) - pi / tan(pi x); tan has period pi, so reduce x to (-1/2, 1/2]
    // first for an accurate argument.
    const double r = x - std::round(x);
    reflection = kPi / std::tan(kPi * r);
    x = 1 - x;
  }
  // psi(x) = psi(x + n) - sum 1/(x + k): lift x to where the asymptotic series is accurate to
  // double precision.
  double shift = 0;
  while (x < 10) {
    shift += 1 / x;
    x += 1;
  }
  // psi(x) ~ log x - 1/(2x) - sum B_2k / (2k x^2k).
  const double z = 1 / (x * x);
  const double series =
      z * (1.0 / 12 -
           z * (1.0 / 120 -
                z * (1.0 / 252 -
                     z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z * (1.0 / 12)))))));
  return std::log(x) - 0.5 / x - series - shift - reflection;
}

// The regularised lower incomplete gamma function P(a, x). NaN for x < 0 or a <= 0, except
// that P(a, 0) = 0 for every a.
double Igamma(double a, double x) {
  if (x == 0) return 0;
  if (x < 0 || a <= 0 || std::isnan(a) || std::isnan(x)) return kNaN;
  if (x > 1 && x > a) return 1 - IgammacFraction(a, x);
  return IgammaSeries(a, x);
}

// The regularised upper incomplete gamma function Q(a, x) = 1 - P(a, x). NaN for x < 0 or
// a <= 0.
double Igammac(double a, double x) {
  if (x < 0 || a <= 0 || std::isnan(a) || std::isnan(x)) return kNaN;
  if (x < 1 || x < a) return 1 - IgammaSeries(a, x);
  return IgammacFraction(a, x);
}

// The regularised incomplete beta function I_x(a, b). NaN for a <= 0, b <= 0, or x outside
// [0, 1]; I_0 = 0 and I_1 = 1.
double Betainc(double a, double b, double x) {
  if (a <= 0 || b <= 0) return kNaN;
  if (x <= 0 || x >= 1) {
    if (x == 0) return 0;
    if (x == 1) return 1;
    return kNaN;
  }
  if (std::isnan(a) || std::isnan(b) || std::isnan(x)) return kNaN;
  // x^a (1 - x)^b / (a B(a, b)), by logarithms so that large a and b do not overflow.
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return std::exp(log_front) * BetaFraction(a, b, x) / a;
  // I_x(a, b) = 1 - I_{1-x}(b, a), where the fraction converges.
  return 1 - std::exp(log_front) * BetaFraction(b, a, 1 - x) / b;
}

// The Hurwitz zeta function sum_k (k + q)^-x, by Euler-Maclaurin summation. As Cephes and
// Eigen: +inf at x = 1, NaN for x < 1; for q a non-positive integer +inf when x is even and
// NaN otherwise; for other q <= 0, defined only for integer x.
double Zeta(double x, double q) {
  if (x == 1) return kInf;
  if (x < 1 || std::isnan(x) || std::isnan(q)) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return std::rint(x / 2) == x / 2 ? kInf : kNaN;
    if (x != std::floor(x)) return kNaN;
  }
  // Sum the first terms directly until (k + q) is large enough for the tail expansion (and
  // past any negative q), stopping early once the terms no longer change the sum.
  double sum = std::pow(q, -x);
  double w = q;
  double term = 0;
  for (int i = 0; i < 9 || w <= 9; ++i) {
    w += 1;
    term = std::pow(w, -x);
    sum += term;
    if (std::fabs(term / sum) < kEpsilon / 2) return sum;
  }
  if (term == 0) return sum;
  // The tail from w: w^(1-x) / (x - 1) - w^-x / 2 + sum_j B_2j / (2j)! x (x+1) ... (x+2j-2)
  // w^(-x-2j+1), where `term` is w^-x.
  sum += term * w / (x - 1) - term / 2;
  double rising = 1;  // x (x+1) ... (x+2j-2)
  double power = term;
  double k = 0;
  for (double divisor : kZetaFactorialOverBernoulli) {
    rising *= x + k;
    power /= w;
    const double t = rising * power / divisor;
    sum += t;
    if (std::fabs(t / sum) < kEpsilon / 2) break;
    k += 1;
    rising *= x + k;
    power /= w;
    k += 1;
  }
  return sum;
}

// The n-th derivative of digamma: NaN unless n is a non-negative integer; digamma for n = 0;
// otherwise (-1)^(n+1) n! zeta(n + 1, x).
double Polygamma(double n, double x) {
  if (std::isnan(n) || n < 0 || std::floor(n) != n) return kNaN;
  if (n == 0) return Digamma(x);
  const double sign = std::fmod(n, 2) == 0 ? -1 : 1;
  return sign * std::tgamma(n + 1) * Zeta(n + 1, x);
}


QuantGrid Nudge(float min, float max, int num_bits, bool narrow_range) {
  const float quant_min = narrow_range ? 1.0f : 0.0f;
  const float quant_max = static_cast<float>((1 << num_bits) - 1);
  QuantGrid g;
  g.scale = (max - min) / (quant_max - quant_min);
  g.inv_scale = (quant_max - quant_min) / (max - min);
  const float zero_point_from_min = quant_min - min / g.scale;
  float zero_point;
  if (zero_point_from_min < quant_min) {
    zero_point = quant_min;
  } else if (zero_point_from_min > quant_max) {
    zero_point = quant_max;
  } else {
    zero_point = std::round(zero_point_from_min);
  }
  g.nudged_min = (quant_min - zero_point) * g.scale;
  g.nudged_max = (quant_max - zero_point) * g.scale;
  return g;
}

float FakeQuantize(float x, const QuantGrid& g) {
  const float clamped = std::max(std::min(x, g.nudged_max), g.nudged_min);
  return std::floor((clamped - g.nudged_min) * g.inv_scale + 0.5f) * g.scale + g.nudged_min;
}

}  // namespace dfc

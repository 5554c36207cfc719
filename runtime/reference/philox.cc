// Philox4x32-10 and TensorFlow's maps from its words to floating values (philox.h).
#include "runtime/reference/philox.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

namespace dfc::reference {
namespace {

// The constants of Salmon et al., "Parallel random numbers: as easy as 1, 2, 3" (SC'11).
constexpr uint32_t kMultiplierA = 0xD2511F53;
constexpr uint32_t kMultiplierB = 0xCD9E8D57;
constexpr uint32_t kKeyStepA = 0x9E3779B9;
constexpr uint32_t kKeyStepB = 0xBB67AE85;

Philox::Block Round(const Philox::Block& c, const Philox::Key& k) {
  const uint64_t product_a = static_cast<uint64_t>(kMultiplierA) * c[0];
  const uint64_t product_b = static_cast<uint64_t>(kMultiplierB) * c[2];
  return {static_cast<uint32_t>(product_b >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(product_b),
          static_cast<uint32_t>(product_a >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(product_a)};
}

}  // namespace

Philox::Philox(uint64_t seed, uint64_t seed2)
    : counter_{0, 0, static_cast<uint32_t>(seed2), static_cast<uint32_t>(seed2 >> 32)},
      key_{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)} {}

Philox::Block Philox::Compute(Block counter, Key key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kKeyStepA;
      key[1] += kKeyStepB;
    }
    counter = Round(counter, key);
  }
  return counter;
}

Philox::Block Philox::Next() {
  const Block out = Compute(counter_, key_);
  Skip(1);
  return out;
}

void Philox::Skip(uint64_t count) {
  // 128-bit addition of `count` to the counter, word 0 lowest.
  uint64_t carry = count;
  for (uint32_t& word : counter_) {
    const uint64_t sum = static_cast<uint64_t>(word) + static_cast<uint32_t>(carry);
    word = static_cast<uint32_t>(sum);
    carry = (carry >> 32) + (sum >> 32);
    if (carry == 0) break;
  }
}

float Uint32ToFloat(uint32_t x) {
  return std::bit_cast<float>((x & 0x7fffffu) | 0x3f800000u) - 1.0f;
}

double Uint64ToDouble(uint32_t hi, uint32_t lo) {
  const uint64_t mantissa = (static_cast<uint64_t>(hi & 0xfffffu) << 32) | lo;
  return std::bit_cast<double>(mantissa | 0x3ff0000000000000ull) - 1.0;
}

float Uint16ToHalfValue(uint32_t x) { return static_cast<float>(x & 0x3ffu) * 0x1p-10f; }

std::array<float, 2> BoxMullerFloat(uint32_t x0, uint32_t x1) {
  // TensorFlow clamps u1 away from 0 so the log stays finite; its 2π is a double, so the
  // angle is rounded to float once, after the product.
  const float u1 = std::max(Uint32ToFloat(x0), 1.0e-7f);
  const float angle = static_cast<float>(2.0 * std::numbers::pi * Uint32ToFloat(x1));
  const float radius = std::sqrt(-2.0f * std::log(u1));
  return {std::sin(angle) * radius, std::cos(angle) * radius};
}

std::array<double, 2> BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3) {
  const double u1 = std::max(Uint64ToDouble(x0, x1), 1.0e-7);
  const double angle = 2.0 * std::numbers::pi * Uint64ToDouble(x2, x3);
  const double radius = std::sqrt(-2.0 * std::log(u1));
  return {std::sin(angle) * radius, std::cos(angle) * radius};
}

}  // namespace dfc::reference

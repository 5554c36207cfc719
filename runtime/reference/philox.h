// Philox4x32-10, the counter-based generator behind TensorFlow's stateful random ops, with
// TensorFlow's conventions (tensorflow/core/lib/random/philox_random.h): a 64-bit key and a
// 128-bit counter; each call returns the block of the current counter and advances it by one.
// Also the maps from its 32-bit words to floating values that TensorFlow's distributions use
// (random_distributions.h), so that seeded graphs draw TensorFlow's own numbers.
#ifndef DFC_RUNTIME_REFERENCE_PHILOX_H_
#define DFC_RUNTIME_REFERENCE_PHILOX_H_

#include <array>
#include <cstdint>

namespace dfc::reference {

// Philox blocks reserved per output element and run by the ops that may reject draws:
// TensorFlow's multiplier, which is also the rejection budget of a truncated normal value.
inline constexpr uint64_t kBlocksPerOutput = 256;

class Philox {
 public:
  using Block = std::array<uint32_t, 4>;  // a counter, or one output of four words
  using Key = std::array<uint32_t, 2>;

  Philox() = default;
  // TensorFlow's PhiloxRandom(seed_lo, seed_hi), as GuardedPhiloxRandom makes it from the
  // op's `seed` and `seed2`: the key is `seed`, counter words 2 and 3 are `seed2`.
  Philox(uint64_t seed, uint64_t seed2);
  Philox(Block counter, Key key) : counter_(counter), key_(key) {}

  // The ten rounds on `counter` under `key`: the whole generator, as a pure function.
  static Block Compute(Block counter, Key key);

  // The block at the current counter; then the counter moves to the next block.
  Block Next();
  // Moves the counter `count` blocks ahead (128-bit addition), as if Next ran that often.
  void Skip(uint64_t count);

  const Block& counter() const { return counter_; }
  const Key& key() const { return key_; }

  friend bool operator==(const Philox&, const Philox&) = default;

 private:
  Block counter_ = {0, 0, 0, 0};
  Key key_ = {0, 0};
};

// TensorFlow's SingleSampleAdapter: the words of successive blocks, one at a time.
class PhiloxWords {
 public:
  explicit PhiloxWords(Philox gen) : gen_(gen) {}
  uint32_t Next() {
    if (used_ == 4) {
      block_ = gen_.Next();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  Philox gen_;
  Philox::Block block_ = {};
  int used_ = 4;
};

// Uniform [0, 1) from random bits, exactly as TensorFlow's distributions build them: the bits
// become the mantissa of a number in [1, 2), from which 1 is subtracted.
float Uint32ToFloat(uint32_t x);                  // 23 bits of x
double Uint64ToDouble(uint32_t hi, uint32_t lo);  // 20 bits of hi, then all of lo
// float16's 10 mantissa bits of x, as a float (exact in float16).
float Uint16ToHalfValue(uint32_t x);

// TensorFlow's Box-Muller transforms: two uniform words give two standard normal floats
// (sin first, then cos, computed in float); four give two doubles.
std::array<float, 2> BoxMullerFloat(uint32_t x0, uint32_t x1);
std::array<double, 2> BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3);

}  // namespace dfc::reference

#endif  // DFC_RUNTIME_REFERENCE_PHILOX_H_

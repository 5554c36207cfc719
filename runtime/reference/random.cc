// Reference kernels for random tensors: RandomUniform, RandomStandardNormal, TruncatedNormal
// and RandomUniformInt, drawing TensorFlow's own numbers (OPS.md: its Philox streams where the
// graph sets a seed). As TensorFlow's CPU kernels do (random_op.cc, random_op_cpu.h):
//  - each run reserves 256 Philox blocks per output element from the node's stream
//    (GuardedPhiloxRandom::ReserveRandomOutputs), so successive runs draw new numbers;
//  - the outputs are filled in groups: group g of a distribution that uses a fixed number of
//    words takes the generator's g-th block; a truncated normal group, which rejects samples,
//    starts its own copy of the generator 256 words per value further on.
// In a session the stream is the node's own (ctx.rng()); without one (EvaluateNode) the
// stream starts fresh from the node's seeds, so the result is a pure function of the node.
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/philox.h"

namespace dfc::reference {
namespace {

// 64-bit FNV-1a: a stable hash, the same in every process, so unseeded nodes repeat.
uint64_t StableHash(absl::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// The generator this run draws from: a copy of the node's stream, which moves on past the
// blocks reserved for `num_outputs` values.
Philox Reserve(KernelContext& ctx, int64_t num_outputs) {
  Philox local;
  Philox* stream = ctx.rng();
  if (stream == nullptr) {
    local = NodePhilox(ctx.node());
    stream = &local;
  }
  const Philox reserved = *stream;
  stream->Skip(static_cast<uint64_t>(num_outputs) * kBlocksPerOutput);
  return reserved;
}

// Fills `out` in groups of kGroup values, group g from the g-th block of `gen` (a short last
// group keeps the first values of a full one), as FillPhiloxRandomTask does for distributions
// that take a fixed number of words per value.
template <int kGroup, typename T, typename Draw>
void FillFixed(Philox gen, std::span<T> out, Draw draw) {
  for (size_t start = 0; start < out.size(); start += kGroup) {
    const std::array<T, kGroup> group = draw(gen.Next());
    for (size_t i = 0; i < kGroup && start + i < out.size(); ++i) out[start + i] = group[i];
  }
}

void FillUniform(Philox gen, Tensor& out) {
  switch (out.dtype()) {
    case DType::kHalf:
      FillFixed<4>(gen, out.mutable_flat<Half>(), [](const Philox::Block& b) {
        return std::array<Half, 4>{Half(Uint16ToHalfValue(b[0])), Half(Uint16ToHalfValue(b[1])),
                                   Half(Uint16ToHalfValue(b[2])), Half(Uint16ToHalfValue(b[3]))};
      });
      return;
    case DType::kFloat:
      FillFixed<4>(gen, out.mutable_flat<float>(), [](const Philox::Block& b) {
        return std::array<float, 4>{Uint32ToFloat(b[0]), Uint32ToFloat(b[1]), Uint32ToFloat(b[2]),
                                    Uint32ToFloat(b[3])};
      });
      return;
    default:
      FillFixed<2>(gen, out.mutable_flat<double>(), [](const Philox::Block& b) {
        return std::array<double, 2>{Uint64ToDouble(b[0], b[1]), Uint64ToDouble(b[2], b[3])};
      });
      return;
  }
}

void FillNormal(Philox gen, Tensor& out) {
  switch (out.dtype()) {
    case DType::kHalf:
      // Computed in float and rounded, as TensorFlow does (there is no half sin or cos).
      FillFixed<4>(gen, out.mutable_flat<Half>(), [](const Philox::Block& b) {
        const std::array<float, 2> f01 = BoxMullerFloat(b[0], b[1]);
        const std::array<float, 2> f23 = BoxMullerFloat(b[2], b[3]);
        return std::array<Half, 4>{Half(f01[0]), Half(f01[1]), Half(f23[0]), Half(f23[1])};
      });
      return;
    case DType::kFloat:
      FillFixed<4>(gen, out.mutable_flat<float>(), [](const Philox::Block& b) {
        const std::array<float, 2> f01 = BoxMullerFloat(b[0], b[1]);
        const std::array<float, 2> f23 = BoxMullerFloat(b[2], b[3]);
        return std::array<float, 4>{f01[0], f01[1], f23[0], f23[1]};
      });
      return;
    default:
      FillFixed<2>(gen, out.mutable_flat<double>(),
                   [](const Philox::Block& b) { return BoxMullerDouble(b[0], b[1], b[2], b[3]); });
      return;
  }
}

// The truncated normal: Box-Muller pairs, keeping values strictly inside (-2, 2). A group of
// kGroup values (4 for float16 and float32, 2 for float64) starts its own generator
// kGroup * 256 words past the previous group's, so groups are independent of each other.
template <typename T>
void FillTruncatedNormal(const Philox& base, std::span<T> out) {
  constexpr size_t kGroup = std::is_same_v<T, double> ? 2 : 4;
  constexpr uint64_t kBlocksPerGroup = kGroup * kBlocksPerOutput / 4;
  for (size_t start = 0, g = 0; start < out.size(); start += kGroup, ++g) {
    Philox gen = base;
    gen.Skip(g * kBlocksPerGroup);
    PhiloxWords words(gen);
    size_t filled = 0;
    // TensorFlow fills the group and stops, even in the middle of a pair.
    auto keep = [&](auto value) {
      if (start + filled < out.size()) out[start + filled] = T(value);
      ++filled;
    };
    while (filled < kGroup) {
      if constexpr (std::is_same_v<T, double>) {
        const uint32_t x0 = words.Next(), x1 = words.Next(), x2 = words.Next(), x3 = words.Next();
        for (double d : BoxMullerDouble(x0, x1, x2, x3)) {
          if (std::abs(d) < 2.0 && filled < kGroup) keep(d);
        }
      } else {
        const uint32_t x0 = words.Next(), x1 = words.Next();
        for (float f : BoxMullerFloat(x0, x1)) {
          if (std::abs(f) < 2.0f && filled < kGroup) keep(f);
        }
      }
    }
  }
}

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

absl::Status RandomOp(KernelContext& ctx, Distribution distribution) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadIndexVector(ctx, 0, "shape"));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.node().GetType("dtype"));
  if (!IsFloating(dtype)) {
    return ctx.Error(
        absl::StrCat("dtype must be float16, float32 or float64, got ", DTypeName(dtype)));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, shape));
  const Philox gen = Reserve(ctx, out.num_elements());
  switch (distribution) {
    case Distribution::kUniform:
      FillUniform(gen, out);
      break;
    case Distribution::kNormal:
      FillNormal(gen, out);
      break;
    case Distribution::kTruncatedNormal:
      if (dtype == DType::kHalf) {
        FillTruncatedNormal(gen, out.mutable_flat<Half>());
      } else if (dtype == DType::kFloat) {
        FillTruncatedNormal(gen, out.mutable_flat<float>());
      } else {
        FillTruncatedNormal(gen, out.mutable_flat<double>());
      }
      break;
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status RandomUniform(KernelContext& ctx) { return RandomOp(ctx, Distribution::kUniform); }
absl::Status RandomStandardNormal(KernelContext& ctx) {
  return RandomOp(ctx, Distribution::kNormal);
}
absl::Status TruncatedNormal(KernelContext& ctx) {
  return RandomOp(ctx, Distribution::kTruncatedNormal);
}

// lo + bits % (hi - lo), with the range and the sum taken modulo 2^bits (TensorFlow's
// SignedAdd), which is exact because the result lies in [lo, hi).
template <typename Int>
Int OffsetFrom(Int lo, std::make_unsigned_t<Int> offset) {
  using UInt = std::make_unsigned_t<Int>;
  return static_cast<Int>(static_cast<UInt>(lo) + offset);
}

// RandomUniformInt(shape, minval, maxval): uniform integers in [minval, maxval). int32 takes
// one word per value, int64 two (low word first); the range is a plain modulo, as in
// TensorFlow, so it is very slightly biased for ranges that do not divide 2^32 or 2^64.
absl::Status RandomUniformInt(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadIndexVector(ctx, 0, "shape"));
  DFC_ASSIGN_OR_RETURN(DType tout, ctx.node().GetType("Tout"));
  if (tout != DType::kInt32 && tout != DType::kInt64) {
    return ctx.Error(absl::StrCat("Tout must be int32 or int64, got ", DTypeName(tout)));
  }
  for (int i : {1, 2}) {
    const Tensor& bound = ctx.input(i);
    const char* name = i == 1 ? "minval" : "maxval";
    if (bound.dtype() != tout) {
      return ctx.Error(
          absl::StrCat(name, " must be ", DTypeName(tout), " (Tout), got ", bound.DebugType()));
    }
    if (bound.rank() != 0) {
      return ctx.Error(absl::StrCat(name, " must be a scalar, got ", bound.DebugType()));
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, tout, shape));
  // As TensorFlow: an empty output needs no valid range and draws nothing.
  if (out.num_elements() > 0) {
    const int64_t lo = ctx.input(1).ElementAsInt64(0);
    const int64_t hi = ctx.input(2).ElementAsInt64(0);
    if (lo >= hi) {
      return ctx.Error(absl::StrCat("needs minval < maxval, got ", lo, " >= ", hi));
    }
    const Philox gen = Reserve(ctx, out.num_elements());
    if (tout == DType::kInt32) {
      const int32_t lo32 = static_cast<int32_t>(lo);
      const uint32_t range = static_cast<uint32_t>(hi) - static_cast<uint32_t>(lo);
      FillFixed<4>(gen, out.mutable_flat<int32_t>(), [&](const Philox::Block& b) {
        return std::array<int32_t, 4>{
            OffsetFrom(lo32, b[0] % range), OffsetFrom(lo32, b[1] % range),
            OffsetFrom(lo32, b[2] % range), OffsetFrom(lo32, b[3] % range)};
      });
    } else {
      const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
      FillFixed<2>(gen, out.mutable_flat<int64_t>(), [&](const Philox::Block& b) {
        const uint64_t bits0 = b[0] | static_cast<uint64_t>(b[1]) << 32;
        const uint64_t bits1 = b[2] | static_cast<uint64_t>(b[3]) << 32;
        return std::array<int64_t, 2>{OffsetFrom(lo, bits0 % range), OffsetFrom(lo, bits1 % range)};
      });
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void FillRandom(RandomDistribution distribution, const Philox& gen, Tensor& out) {
  switch (distribution) {
    case RandomDistribution::kUniform:
      FillUniform(gen, out);
      return;
    case RandomDistribution::kNormal:
      FillNormal(gen, out);
      return;
    case RandomDistribution::kTruncatedNormal:
      if (out.dtype() == DType::kHalf) {
        FillTruncatedNormal(gen, out.mutable_flat<Half>());
      } else if (out.dtype() == DType::kFloat) {
        FillTruncatedNormal(gen, out.mutable_flat<float>());
      } else {
        FillTruncatedNormal(gen, out.mutable_flat<double>());
      }
      return;
  }
}

Philox NodePhilox(const Node& node) {
  const int64_t seed = node.GetInt("seed", 0).value_or(0);
  const int64_t seed2 = node.GetInt("seed2", 0).value_or(0);
  if (seed == 0 && seed2 == 0) return Philox(StableHash(node.name), 0);
  return Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
}

void RegisterRandomKernels(KernelRegistry& registry) {
  registry.Register("RandomUniform", RandomUniform);
  registry.Register("RandomStandardNormal", RandomStandardNormal);
  registry.Register("TruncatedNormal", TruncatedNormal);
  registry.Register("RandomUniformInt", RandomUniformInt);
}

}  // namespace dfc::reference

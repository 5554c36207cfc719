// Test helpers shared by the layout translation tests (layout_test.cc, layout_slice_test.cc,
// layout_gather_test.cc): seeded random tensors of every dtype, and the oracle check against
// the reference executor, extended for what tests/translate_testing.h does not cover (a static
// input counted from the end, ConcatV2's axis; size variables in the input shapes).
#ifndef DFC_TESTS_LAYOUT_TESTING_H_
#define DFC_TESTS_LAYOUT_TESTING_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/fold.h"
#include "graph/node.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "ir/from_tf/translate.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "runtime/compare.h"
#include "runtime/reference/kernel.h"
#include "tests/translate_testing.h"

namespace dfc::testing {

// Every dtype the layout ops accept (the reference's IsSupported).
inline const std::vector<DType>& LayoutDTypes() {
  static const std::vector<DType> dtypes = {
      DType::kFloat, DType::kDouble, DType::kHalf, DType::kInt32,  DType::kInt64,  DType::kInt8,
      DType::kInt16, DType::kUInt8,  DType::kBool, DType::kUInt16, DType::kUInt32, DType::kUInt64};
  return dtypes;
}

// Seeded random values of `dtype`: negatives and zeros for signed types; for floating types a
// NaN, both infinities and a -0 in the first elements, so that moved data is told apart from
// a recomputed one.
inline Tensor RandomTensor(DType dtype, const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::Zeros(dtype, shape);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> small(-100, 100);
  DispatchDType(dtype, [&]<typename T>() {
    T* data = t.template mutable_data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      const int v = small(rng);
      if constexpr (std::is_same_v<T, bool>) {
        data[i] = v > 0;
      } else if constexpr (std::is_same_v<T, Half> || std::is_floating_point_v<T>) {
        static const double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                                          std::numeric_limits<double>::infinity(),
                                          -std::numeric_limits<double>::infinity(), -0.0};
        const double x = i < 4 && t.num_elements() > 4 ? kSpecial[i] : v / 8.0;
        data[i] = static_cast<T>(static_cast<float>(x));
        if constexpr (std::is_same_v<T, double>) data[i] = x;
      } else if constexpr (std::is_unsigned_v<T>) {
        data[i] = static_cast<T>(v + 100);
      } else {
        data[i] = static_cast<T>(v);
      }
    }
  });
  return t;
}

// An int32 or int64 vector (or scalar, for an empty shape).
inline Tensor IndexTensor(const std::vector<int64_t>& values, DType dtype = DType::kInt32,
                          std::optional<Shape> shape = std::nullopt) {
  Shape s = shape ? *shape : Shape{static_cast<int64_t>(values.size())};
  Tensor t = Tensor::Zeros(dtype, s);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kInt64) {
      t.mutable_data<int64_t>()[i] = values[i];
    } else {
      t.mutable_data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    }
  }
  return t;
}

inline std::string ShapeName(const Shape& shape) {
  if (shape.empty()) return "scalar";
  return absl::StrJoin(shape, "x");
}

// A gtest-safe name from any text: letters and digits kept, everything else '_'.
inline std::string SafeName(std::string text) {
  for (char& c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return text;
}

// The translation refuses the node (when the reference does too): the error names the node.
inline ::testing::AssertionResult BothRefuse(const Node& node, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> expected = reference::EvaluateNode(node, inputs);
  if (expected.ok()) return ::testing::AssertionFailure() << "the reference accepts the inputs";
  return TranslationMatchesReference(node, inputs);
}

}  // namespace dfc::testing

#endif  // DFC_TESTS_LAYOUT_TESTING_H_

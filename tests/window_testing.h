// What the window ops' tests share (ir/from_tf/convolution_test.cc, pooling_test.cc and their
// gradients'): window attributes written per dimension in a data_format's order, and shapes
// in it.
#ifndef DFC_TESTS_WINDOW_TESTING_H_
#define DFC_TESTS_WINDOW_TESTING_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "graph/attr.h"
#include "graph/tensor.h"

namespace dfc::testing {

// A list attribute of ints (strides, ksize, dilations, explicit_paddings).
inline AttrList Ints(std::vector<int64_t> v) {
  AttrList list;
  list.i = std::move(v);
  return list;
}

// One attribute vector over every dimension: batch and channels 1, `spatial` in data_format's
// places (channels first: N, C, spatial...; else N, spatial..., C).
inline std::vector<int64_t> PerDimension(const std::vector<int64_t>& spatial, bool channels_first) {
  std::vector<int64_t> v = {1};
  if (channels_first) v.push_back(1);
  v.insert(v.end(), spatial.begin(), spatial.end());
  if (!channels_first) v.push_back(1);
  return v;
}

// A channels-last shape [N, spatial..., C] in the data format: [N, C, spatial...] when
// `channels_first`.
inline Shape InDataFormat(const Shape& nhwc, bool channels_first) {
  if (!channels_first) return nhwc;
  Shape s = {nhwc[0], nhwc.back()};
  s.insert(s.end(), nhwc.begin() + 1, nhwc.end() - 1);
  return s;
}

}  // namespace dfc::testing

#endif  // DFC_TESTS_WINDOW_TESTING_H_

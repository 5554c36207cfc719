// Helpers for dfc's GoogleTest tests: building nodes, running one op, reading values.
#ifndef DFC_TESTS_TEST_UTIL_H_
#define DFC_TESTS_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/node.h"
#include "graph/tensor.h"

namespace dfc::testing {

// Runs a shell command; its exit code (-1 if it did not exit) and stdout and stderr together.
struct CommandResult {
  int exit_code = -1;
  std::string output;
};
CommandResult RunCommand(const std::string& command);

// Path of ../shared (the read-only models and conformance cases), set by CMake.
std::string SharedDir();

// A node named "node" with the given op and attributes and one data input per `num_inputs`
// ("in0", "in1", ...).
Node MakeNode(std::string op, AttrMap attrs = {}, int num_inputs = 0);

// Runs `op` on `inputs` with the reference kernel: EvaluateNode(MakeNode(...), inputs).
absl::StatusOr<std::vector<Tensor>> RunOp(std::string op, std::vector<Tensor> inputs,
                                          AttrMap attrs = {});

// The same for a single-output op; aborts the test binary if the op fails (use RunOp to
// test failures).
Tensor RunOp1(std::string op, std::vector<Tensor> inputs, AttrMap attrs = {});

// Tensor values as a vector of T (T must be the tensor's storage type).
template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

// Values as double whatever the dtype (half converted exactly).
std::vector<double> ValuesAsDouble(const Tensor& t);

// Shorthands.
template <typename T>
Tensor T1(std::vector<T> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor::FromVector<T>(v, {n});
}
template <typename T>
Tensor TN(std::vector<T> v, Shape shape) {
  return Tensor::FromVector<T>(v, std::move(shape));
}
Tensor HalfTensor(const std::vector<float>& v, Shape shape);

// int32 0, 1, 2... in the given shape.
Tensor Iota(Shape shape);

// float32 uniform in [low, high), the same for the same seed (std::mt19937_64).
Tensor UniformFloats(Shape shape, uint64_t seed, float low, float high);

// Asserts that `result` failed with a message containing `needle`.
void ExpectError(const absl::StatusOr<std::vector<Tensor>>& result, const std::string& needle);

// `t` (rank 4 or 5) with its last dimension moved to position 1 (NHWC -> NCHW), or back.
template <typename T>
Tensor MoveChannels(const Tensor& t, bool to_first) {
  const int rank = t.rank();
  std::vector<int> perm(rank);  // output dimension d is input dimension perm[d]
  perm[0] = 0;
  for (int d = 1; d < rank; ++d) {
    perm[d] = to_first ? (d == 1 ? rank - 1 : d - 1) : (d == rank - 1 ? 1 : d + 1);
  }
  Shape shape(rank);
  for (int d = 0; d < rank; ++d) shape[d] = t.dim(perm[d]);
  Tensor out = Tensor::Zeros(t.dtype(), shape);
  std::vector<int64_t> in_strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * t.dim(d + 1);
  std::vector<int64_t> index(rank, 0);
  for (int64_t k = 0; k < out.num_elements(); ++k) {
    int64_t from = 0;
    for (int d = 0; d < rank; ++d) from += index[d] * in_strides[perm[d]];
    out.mutable_data<T>()[k] = t.data<T>()[from];
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace dfc::testing

#endif  // DFC_TESTS_TEST_UTIL_H_

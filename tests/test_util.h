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

}  // namespace dfc::testing

#endif  // DFC_TESTS_TEST_UTIL_H_

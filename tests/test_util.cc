// Helpers for dfc's tests.
#include "tests/test_util.h"

#include <sys/wait.h>

#include <cstdio>
#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status.h"
#include "dfc_test_paths.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/reference/kernel.h"

namespace dfc::testing {

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string SharedDir() { return DFC_SHARED_DIR; }

Node MakeNode(std::string op, AttrMap attrs, int num_inputs) {
  Node node;
  node.name = "node";
  node.op = std::move(op);
  node.attrs = std::move(attrs);
  for (int i = 0; i < num_inputs; ++i) node.inputs.push_back({absl::StrCat("in", i), 0});
  return node;
}

absl::StatusOr<std::vector<Tensor>> RunOp(std::string op, std::vector<Tensor> inputs,
                                          AttrMap attrs) {
  const Node node = MakeNode(std::move(op), std::move(attrs), static_cast<int>(inputs.size()));
  return reference::EvaluateNode(node, inputs);
}

Tensor RunOp1(std::string op, std::vector<Tensor> inputs, AttrMap attrs) {
  absl::StatusOr<std::vector<Tensor>> out = RunOp(op, std::move(inputs), std::move(attrs));
  DFC_CHECK_OK(out.status());
  DFC_CHECK(!out->empty());
  return (*out)[0];
}

std::vector<double> ValuesAsDouble(const Tensor& t) {
  std::vector<double> out(t.num_elements());
  for (int64_t i = 0; i < t.num_elements(); ++i) out[i] = t.ElementAsDouble(i);
  return out;
}

Tensor HalfTensor(const std::vector<float>& v, Shape shape) {
  Tensor t = Tensor::Zeros(DType::kHalf, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<Half>()[i] = Half(v[i]);
  return t;
}

Tensor UniformFloats(Shape shape, uint64_t seed, float low, float high) {
  Tensor t = Tensor::Zeros(DType::kFloat, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  for (float& v : t.mutable_flat<float>()) v = uniform(rng);
  return t;
}

Tensor Iota(Shape shape) {
  Tensor t = Tensor::Zeros(DType::kInt32, std::move(shape));
  std::iota(t.mutable_data<int32_t>(), t.mutable_data<int32_t>() + t.num_elements(), 0);
  return t;
}

void ExpectError(const absl::StatusOr<std::vector<Tensor>>& result, const std::string& needle) {
  ASSERT_FALSE(result.ok()) << "expected an error containing \"" << needle << "\"";
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr(needle));
}

}  // namespace dfc::testing

// Faults a device reports in the middle of a training step: memory that runs out, a device
// lost (a launch that fails), a kernel that does not build. Each is injected by a test hook
// (tests/test_hooks.h: a driver call made to fail, a kernel's source edited) at every point of
// a step in turn. The step fails with an error naming the cluster, or falls back with a warning
// naming it, and never half-happens: the variables are what they were before the step, and the
// next step runs as if the failed one had never been tried.
#include <memory>
#include <sstream>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/device_session.h"
#include "runtime/opencl/context.h"
#include "tests/test_hooks.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;
using FaultKind = cl::ClContext::FaultKind;

// The MNIST softmax training step of ../shared/models on the CPU device, with one batch.
class TrainingStep {
 public:
  // `edit`, where given, edits each kernel's source before it is built (TestHooks).
  static std::unique_ptr<TrainingStep> Open(
      DeviceExecutor::Options options = {},
      std::function<void(std::string& source)> edit = nullptr) {
    absl::StatusOr<Graph> loaded =
        LoadGraph(testing::SharedDir() + "/models/dl4j_mnist_00_softmax_train.pbtxt");
    if (!loaded.ok()) return nullptr;
    absl::StatusOr<std::unique_ptr<DeviceSession>> session =
        DeviceSession::Create(std::make_shared<const Graph>(*std::move(loaded)),
                              {.device = "cpu", .executor = std::move(options)});
    if (!session.ok()) return nullptr;
    if (edit) testing::TestHooks::EditSources(**session, std::move(edit));
    if (!(*session)->Run({}, {}, {"init"}).ok()) return nullptr;
    return std::unique_ptr<TrainingStep>(new TrainingStep(*std::move(session)));
  }

  absl::StatusOr<std::vector<Tensor>> Step() {
    return session_->Run({{{"input"}, x_}, {{"Placeholder"}, y_}}, {"Mean"}, {"GradientDescent"});
  }
  std::vector<Tensor> Variables() {
    absl::StatusOr<std::vector<Tensor>> v = session_->Run({}, {"Variable", "Variable_1"});
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : std::vector<Tensor>{};
  }
  cl::ClContext& context() { return *session_->executor().context(); }
  const DeviceExecutor& executor() { return session_->executor(); }

 private:
  explicit TrainingStep(std::unique_ptr<DeviceSession> session)
      : session_(std::move(session)),
        x_(testing::UniformFloats({100, 784}, 1, 0, 1)),
        y_(testing::UniformFloats({100, 10}, 2, 0, 0.2f)) {}

  std::unique_ptr<DeviceSession> session_;
  Tensor x_, y_;
};

void ExpectSameVariables(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected,
                         const std::string& when) {
  ASSERT_EQ(actual.size(), expected.size()) << when;
  for (size_t k = 0; k < actual.size(); ++k) {
    EXPECT_TRUE(actual[k].BitwiseEqual(expected[k])) << when << ": variable " << k;
  }
}

struct Fault {
  FaultKind kind;
  cl_int error;
  const char* name;
};

class DeviceFaultTest : public ::testing::TestWithParam<Fault> {};

// At each allocation or launch of a step in turn: the step fails naming its cluster and the
// driver's error, the variables are unchanged, and the session trains on as a session that
// never saw the fault does, bit for bit.
TEST_P(DeviceFaultTest, AFailedStepChangesNothing) {
  const Fault fault = GetParam();
  std::unique_ptr<TrainingStep> faulty = TrainingStep::Open();
  std::unique_ptr<TrainingStep> clean = TrainingStep::Open();
  if (faulty == nullptr || clean == nullptr) GTEST_SKIP() << "no OpenCL CPU device";
  ASSERT_TRUE(faulty->Step().ok());
  ASSERT_TRUE(clean->Step().ok());
  int failed = 0;
  for (int after = 0; after < 64; ++after) {
    const std::string when = absl::StrCat(fault.name, " at call ", after);
    const std::vector<Tensor> before = faulty->Variables();
    testing::TestHooks::InjectFault(faulty->context(), fault.kind, after, fault.error);
    absl::StatusOr<std::vector<Tensor>> step = faulty->Step();
    testing::TestHooks::InjectFault(faulty->context(), fault.kind, -1, CL_SUCCESS);
    if (step.ok()) break;  // the step makes fewer calls than `after`: every point was tried
    ++failed;
    EXPECT_TRUE(absl::IsUnavailable(step.status())) << when << ": " << step.status();
    EXPECT_THAT(step.status().message(), HasSubstr(fault.name)) << when;
    EXPECT_THAT(std::string(step.status().message()),
                ::testing::ContainsRegex("cluster [0-9]+ \\(|node \""))
        << when << ": " << step.status();
    ExpectSameVariables(faulty->Variables(), before, when);
    // The session is usable: the step again, and the same step on the clean session.
    absl::StatusOr<std::vector<Tensor>> again = faulty->Step();
    ASSERT_TRUE(again.ok()) << when << ": " << again.status();
    absl::StatusOr<std::vector<Tensor>> expected = clean->Step();
    ASSERT_TRUE(expected.ok()) << expected.status();
    EXPECT_TRUE((*again)[0].BitwiseEqual((*expected)[0])) << when;
    ExpectSameVariables(faulty->Variables(), clean->Variables(), when);
  }
  // A step makes several allocations and launches: each was a point of failure.
  EXPECT_GE(failed, 3);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, DeviceFaultTest,
    ::testing::Values(Fault{FaultKind::kAllocation, CL_MEM_OBJECT_ALLOCATION_FAILURE,
                            "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
                      Fault{FaultKind::kLaunch, CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
                      Fault{FaultKind::kLaunch, CL_DEVICE_NOT_AVAILABLE,
                            "CL_DEVICE_NOT_AVAILABLE"}),
    [](const ::testing::TestParamInfo<Fault>& info) {
      return std::string(info.param.kind == FaultKind::kAllocation ? "Allocation" : "Launch") +
             std::to_string(info.index);
    });

// A random op's stream is state too: a step that fails after drawing from it leaves it where it
// was, so the step run again draws the numbers it would have drawn.
TEST(RandomStreamFaultTest, AFailedStepDrawsNothing) {
  constexpr char kGraph[] = R"graph(
node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
    int_val: 8 } } } }
node { name: "r" op: "RandomUniform" input: "shape"
  attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } }
  attr { key: "seed" value { i: 5 } } attr { key: "seed2" value { i: 7 } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 8 } } } } }
node { name: "mul" op: "Mul" input: "r" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "Exp" input: "mul" attr { key: "T" value { type: DT_FLOAT } } }
)graph";
  absl::StatusOr<Graph> graph = ParseGraph(kGraph, "random.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto open = [&]() -> std::unique_ptr<DeviceSession> {
    absl::StatusOr<std::unique_ptr<DeviceSession>> session =
        DeviceSession::Create(std::make_shared<const Graph>(*graph), {.device = "cpu"});
    return session.ok() ? *std::move(session) : nullptr;
  };
  std::unique_ptr<DeviceSession> faulty = open();
  std::unique_ptr<DeviceSession> clean = open();
  if (faulty == nullptr || clean == nullptr) GTEST_SKIP() << "no OpenCL CPU device";
  const Tensor x = testing::UniformFloats({8}, 3, -1, 1);
  testing::TestHooks::InjectFault(*faulty->executor().context(), FaultKind::kLaunch, 0,
                                  CL_OUT_OF_RESOURCES);
  absl::StatusOr<std::vector<Tensor>> failed = faulty->Run({{{"x"}, x}}, {"y"});
  testing::TestHooks::InjectFault(*faulty->executor().context(), FaultKind::kLaunch, -1,
                                  CL_SUCCESS);
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), HasSubstr("CL_OUT_OF_RESOURCES"));
  for (int step = 0; step < 2; ++step) {
    absl::StatusOr<std::vector<Tensor>> got = faulty->Run({{{"x"}, x}}, {"y"});
    absl::StatusOr<std::vector<Tensor>> want = clean->Run({{{"x"}, x}}, {"y"});
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_TRUE((*got)[0].BitwiseEqual((*want)[0])) << "step " << step;
  }
  EXPECT_GT(faulty->executor().kernels_run(), 0);
}

// A kernel the device cannot build: the step still trains (that cluster on the reference
// executor), a warning names the cluster, and the result is the clean session's within the
// reference's rounding.
TEST(BuildFaultTest, AClusterThatDoesNotBuildFallsBackNamingIt) {
  std::ostringstream warnings;
  std::unique_ptr<TrainingStep> faulty =
      TrainingStep::Open({.warnings = &warnings}, [](std::string& source) {
        // Breaks the first cluster's kernels only.
        if (source.find("dfc_cluster_0") != std::string::npos) source += "\nnot OpenCL C\n";
      });
  std::unique_ptr<TrainingStep> clean = TrainingStep::Open();
  if (faulty == nullptr || clean == nullptr) GTEST_SKIP() << "no OpenCL CPU device";
  for (int step = 0; step < 3; ++step) {
    absl::StatusOr<std::vector<Tensor>> got = faulty->Step();
    absl::StatusOr<std::vector<Tensor>> want = clean->Step();
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(want.ok()) << want.status();
    // The reference and a kernel sum in different orders: float32 rounding, not more.
    EXPECT_NEAR((*got)[0].data<float>()[0], (*want)[0].data<float>()[0],
                1e-5 * std::fabs((*want)[0].data<float>()[0]));
  }
  EXPECT_GT(faulty->executor().fallbacks(), 0);
  EXPECT_THAT(warnings.str(), HasSubstr("cluster 0 ("));
  EXPECT_THAT(warnings.str(), HasSubstr("runs on the reference executor"));
}

}  // namespace
}  // namespace dfc

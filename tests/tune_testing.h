// What the tuning tests share (runtime/tune_test.cc, runtime/tuned_variant_test.cc): the thesis'
// and the Relu subgraph's seeded inputs, the reference executor's answer, the tolerance a
// variant is held to, and a model compiled with given rewrite steps.
#ifndef DFC_TESTS_TUNE_TESTING_H_
#define DFC_TESTS_TUNE_TESTING_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "rewrite/device_profile.h"
#include "dfc_test_paths.h"
#include "graph/feed.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "rewrite/explore.h"
#include "runtime/compare.h"
#include "runtime/plan.h"
#include "runtime/reference/session.h"
#include "runtime/tune.h"
#include "tests/test_util.h"

namespace dfc::testing {

// The subgraphs' inputs, seeded: labels in1 [n, classes], rows in2 [n, features], weights in3
// and bias in4.
inline std::vector<Feed> SubgraphFeeds(int64_t n, int64_t features, int64_t classes) {
  return {{{"in1"}, UniformFloats({n, classes}, 1, -1.0f, 1.0f)},
          {{"in2"}, UniformFloats({n, features}, 2, -1.0f, 1.0f)},
          {{"in3"}, UniformFloats({features, classes}, 3, -0.05f, 0.05f)},
          {{"in4"}, UniformFloats({classes}, 4, -0.1f, 0.1f)}};
}

// The reference executor's "out" for `feeds`.
inline Tensor ReferenceOut(std::shared_ptr<const Graph> graph, const std::vector<Feed>& feeds) {
  reference::Session oracle(std::move(graph));
  absl::StatusOr<std::vector<Tensor>> want = oracle.Run(feeds, {"out"});
  EXPECT_TRUE(want.ok()) << want.status();
  return want.ok() ? (*want)[0] : Tensor();
}

// `got` agrees with `want` within the tolerance of a variant of a 784-term contraction.
inline void ExpectAgrees(const Tensor& got, const Tensor& want) {
  const Comparison cmp = CompareTensors(got, want, VariantTolerance(want, 784));
  EXPECT_TRUE(cmp.equal) << cmp.reason;
}

// models/`model` compiled for the cpu profile with `steps` applied to its one cluster.
inline absl::StatusOr<Plan> CompileWithSteps(const std::string& model,
                                             std::vector<rewrite::Step> steps) {
  DFC_ASSIGN_OR_RETURN(Graph graph, LoadGraph(std::string(DFC_SOURCE_DIR) + "/models/" + model));
  return CompilePlan(std::make_shared<const Graph>(std::move(graph)),
                     {.fetches = {{"out", 0}},
                      .profile = *rewrite::NamedProfile("cpu"),
                      .steps = {std::move(steps)}});
}

}  // namespace dfc::testing

#endif  // DFC_TESTS_TUNE_TESTING_H_

// The zoo CNNs dfc supports (../shared/zoo), described once for the tests that run them
// (tests/zoo_test.cc) and the benchmark that times them (bench/cnn_bench.cc).
#ifndef DFC_TESTS_ZOO_H_
#define DFC_TESTS_ZOO_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/tensor.h"

namespace dfc::testing {

struct ZooModel {
  std::string family;  // the benchmark family, "cnn_lenet"; its PyTorch twin's in torch_peer.py
  std::string file;    // in ../shared/zoo
  std::string input;   // the image placeholder
  Shape image;         // the input's shape after the batch
  std::string fetch;   // the logits
  std::vector<int64_t> batches = {1, 16, 64};  // what the tests and the benchmark run
  // rtol and atol against the reference executor (tests/zoo_test.cc says why).
  double tolerance = 1e-4;
};

// LeNet, MobileNet v1 0.25 at 128, the CIFAR-10 ResNet, and OpenPose with a MobileNetV2-small
// backbone at its usual 368x432 (tf-pose-estimation's; one image a run, as a pose estimator
// serves them). The ResNet is an exported SavedModel whose weights a checkpoint would restore;
// the zoo has no checkpoint, so a session runs its variables' seeded initialisers first
// (VariableInitialisers: none for a frozen graph).
const std::vector<ZooModel>& ZooCnns();

// The model's graph with its input declared [?, image...]: the batch open, as a user's --shape
// opens it (MobileNet is exported as [1,128,128,3], LeNet's input has no rank), so one plan
// serves every batch.
absl::StatusOr<Graph> LoadWithOpenBatch(const ZooModel& model);

}  // namespace dfc::testing

#endif  // DFC_TESTS_ZOO_H_

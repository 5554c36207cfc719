// The zoo CNNs (zoo.h).
#include "tests/zoo.h"

#include <utility>

#include "base/status.h"
#include "graph/loader.h"
#include "tests/test_util.h"

namespace dfc::testing {

const std::vector<ZooModel>& ZooCnns() {
  static const auto* models = new std::vector<ZooModel>{
      {"cnn_lenet", "lenet_frozen.pb", "input", {28, 28, 1}, "Lenet/fc9_1/BiasAdd"},
      {"cnn_mobilenet_v1_025_128",
       "mobilenet_v1_025_128.pb",
       "input",
       {128, 128, 3},
       "MobilenetV1/Logits/SpatialSqueeze"},
      {"cnn_resnet_cifar10",
       "resnet_cifar10.pb",
       "input_tensor",
       {32, 32, 3},
       "resnet_model/final_dense"},
      {"cnn_openpose_mnv2_small",
       "openpose_mnv2_small.pb",
       "image",
       {368, 432, 3},
       "Openpose/concat_stage7",
       {1},
       2e-3},
  };
  return *models;
}

absl::StatusOr<Graph> LoadWithOpenBatch(const ZooModel& model) {
  DFC_ASSIGN_OR_RETURN(const Graph loaded, LoadGraph(SharedDir() + "/zoo/" + model.file));
  std::vector<Node> nodes = loaded.nodes();
  for (Node& node : nodes) {
    if (node.name != model.input) continue;
    PartialShape shape{.unknown_rank = false, .dims = {-1}};
    shape.dims.insert(shape.dims.end(), model.image.begin(), model.image.end());
    node.attrs["shape"] = shape;
  }
  return Graph::FromNodes(std::move(nodes), loaded.producer());
}

}  // namespace dfc::testing

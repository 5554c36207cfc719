// SavedModel directories: the zoo's TF2 Keras SavedModels load with their signatures, their
// calls inlined, their resource variables lowered and restored from the checkpoint at load;
// the reference executor runs the serving signature after the restore; a checkpoint that
// disagrees with the graph, a corrupt file or a missing tag fails the load, naming the file.
#include "graph/saved_model.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "graph/npy.h"
#include "graph/saved_model.pb.h"
#include "gtest/gtest.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;

std::string Zoo(const std::string& name) { return testing::SharedDir() + "/zoo/" + name; }

TEST(SavedModelTest, LoadsTheZoosKerasCnnWithItsSignatureAndVariables) {
  absl::StatusOr<SavedModel> model = LoadSavedModel(Zoo("savedmodel_lexci_cnn"));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_THAT(model->tags, ::testing::ElementsAre("serve"));
  absl::StatusOr<const Signature*> serving = model->FindSignature("serving_default");
  ASSERT_TRUE(serving.ok()) << serving.status();
  ASSERT_EQ((*serving)->inputs.size(), 1u);
  EXPECT_EQ((*serving)->inputs[0].key, "input0");
  EXPECT_EQ((*serving)->inputs[0].tensor.ToString(), "serving_default_input0");
  EXPECT_EQ((*serving)->inputs[0].shape.dims, (std::vector<int64_t>{-1, -1, -1, 1}));
  ASSERT_EQ((*serving)->outputs.size(), 1u);
  EXPECT_EQ((*serving)->outputs[0].key, "subtract49");
  EXPECT_FALSE(model->restore_op.empty());
  EXPECT_GT(model->restored, 17);
  for (int i = 0; i < model->graph.num_nodes(); ++i) {
    const std::string& op = model->graph.node(i).op;
    EXPECT_NE(op, "StatefulPartitionedCall") << model->graph.node(i).name;
    EXPECT_NE(op, "VarHandleOp") << model->graph.node(i).name;
    EXPECT_NE(op, "ReadVariableOp") << model->graph.node(i).name;
  }
  EXPECT_THAT(std::string(model->FindSignature("predict").status().message()),
              HasSubstr("no signature \"predict\" (it has serving_default)"));
  EXPECT_FALSE(model->init_op.empty());
}

// The restore, then the serving signature on a crop of the model's own image.
TEST(SavedModelTest, TheReferenceRunsTheServingSignatureAfterTheRestore) {
  absl::StatusOr<SavedModel> model = LoadSavedModel(Zoo("savedmodel_lexci_cnn"));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Tensor> image = ReadNpy(Zoo("savedmodel_lexci_cnn/TNG50-1_halpha.npy"));
  ASSERT_TRUE(image.ok()) << image.status();
  ASSERT_EQ(image->shape(), (Shape{256, 256}));
  Tensor crop = Tensor::Zeros(DType::kFloat, {1, 32, 32, 1});
  for (int y = 0; y < 32; ++y) {
    for (int x = 0; x < 32; ++x) {
      crop.mutable_data<float>()[y * 32 + x] = image->data<float>()[(100 + y) * 256 + 100 + x];
    }
  }
  const Signature& serving = **model->FindSignature("serving_default");
  reference::Session session(std::make_shared<const Graph>(model->graph));
  absl::Status restored = session.Run({}, {}, {model->restore_op, model->init_op}).status();
  ASSERT_TRUE(restored.ok()) << restored;
  absl::StatusOr<std::vector<Tensor>> out = session.Run(
      {{serving.inputs[0].tensor, crop}}, {serving.outputs[0].tensor.ToString()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{1, 32, 32, 1}));
  for (float v : (*out)[0].flat<float>()) ASSERT_TRUE(std::isfinite(v));
  // Before the restore the variables hold nothing: the same run is an error, not a value.
  reference::Session fresh(std::make_shared<const Graph>(model->graph));
  EXPECT_FALSE(fresh.Run({{serving.inputs[0].tensor, crop}}, {serving.outputs[0].tensor.ToString()})
                   .ok());
}

TEST(SavedModelTest, TheKerasLstmLoadsWithItsServingSignature) {
  absl::StatusOr<SavedModel> model = LoadSavedModel(Zoo("savedmodel_keras_lstm"));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(model->FindSignature("serving_default").ok());
  EXPECT_GT(model->restored, 2);
}

// A copy of the CNN's directory whose saved_model.pb (or checkpoint) is changed by `edit`.
class EditedSavedModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("dfc-savedmodel-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / "variables");
    for (const char* file : {"saved_model.pb", "variables/variables.index",
                             "variables/variables.data-00000-of-00001"}) {
      std::filesystem::copy_file(Zoo("savedmodel_lexci_cnn/") + file, dir_ / file);
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  tf::SavedModel Proto() {
    absl::StatusOr<std::string> bytes = ReadFile((dir_ / "saved_model.pb").string());
    tf::SavedModel proto;
    EXPECT_TRUE(bytes.ok() && proto.ParseFromString(*bytes));
    return proto;
  }
  void Write(const tf::SavedModel& proto) {
    std::ofstream((dir_ / "saved_model.pb").string(), std::ios::binary | std::ios::trunc)
        << proto.SerializeAsString();
  }
  std::string Load() {
    absl::StatusOr<SavedModel> model = LoadSavedModel(dir_.string());
    return model.ok() ? "" : std::string(model.status().message());
  }

  std::filesystem::path dir_;
};

TEST_F(EditedSavedModelTest, AVariableOfAnotherShapeThanItsCheckpointIsAnError) {
  tf::SavedModel proto = Proto();
  for (tf::NodeDef& node : *proto.mutable_meta_graphs(0)->mutable_graph_def()->mutable_node()) {
    if (node.op() == "VarHandleOp" && node.name() == "conv1/kernel") {
      (*node.mutable_attr())["shape"].mutable_shape()->mutable_dim(3)->set_size(32);
    }
  }
  Write(proto);
  const std::string error = Load();
  EXPECT_THAT(error, HasSubstr("variables/variables: tensor \""));
  EXPECT_THAT(error, HasSubstr("but variable \"conv1/kernel\" it restores is [3,3,1,32]"));
}

TEST_F(EditedSavedModelTest, ACorruptShardOrIndexOrProtoIsAnErrorNamingTheFile) {
  {
    std::fstream f((dir_ / "variables/variables.data-00000-of-00001").string(),
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1000);
    f.put('\x7f');
  }
  EXPECT_THAT(Load(), HasSubstr("do not match its checksum"));
  std::filesystem::remove(dir_ / "variables/variables.index");
  EXPECT_THAT(Load(), HasSubstr("variables/variables.index: cannot open the file"));
  std::ofstream((dir_ / "saved_model.pb").string(), std::ios::binary | std::ios::trunc)
      << "\x12\xff\xff garbage";
  EXPECT_THAT(Load(), HasSubstr("saved_model.pb: not a valid SavedModel"));
}

TEST_F(EditedSavedModelTest, AMissingTagListsTheTagsThereAre) {
  absl::StatusOr<SavedModel> model = LoadSavedModel(dir_.string(), "train");
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()),
              HasSubstr("no MetaGraphDef tagged \"train\" (its tags: {serve})"));
  EXPECT_TRUE(IsSavedModelDir(dir_.string()));
  EXPECT_FALSE(IsSavedModelDir((dir_ / "variables").string()));
}

}  // namespace
}  // namespace dfc

// OpenModel: a GraphDef file, a SavedModel directory and a plan directory are each opened as
// what they are, a SavedModel's signature keys name its tensors, and what cannot be opened is
// an error naming it.
#include "runtime/open_model.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Zoo(const std::string& name) { return testing::SharedDir() + "/zoo/" + name; }

TEST(OpenModelTest, AGraphDefIsReadWithNoSignatureAndNothingToInitialise) {
  absl::StatusOr<OpenModel> model = OpenModel::Open(Zoo("lenet_frozen.pb"));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->kind(), OpenModel::Kind::kGraphDef);
  ASSERT_NE(model->graph(), nullptr);
  EXPECT_NE(model->graph()->FindNode("input"), nullptr);
  EXPECT_EQ(model->signature(), nullptr);
  EXPECT_TRUE(model->inits().empty());
  // Without a signature, names stay as given.
  std::vector<Feed> feeds;
  std::vector<TensorId> fetches = {{"output", 0}};
  EXPECT_THAT(model->UseSignatureNames(feeds, fetches), ElementsAre("output"));
  EXPECT_EQ(fetches[0].ToString(), "output");
}

TEST(OpenModelTest, ASavedModelBringsItsSignatureAndItsRestore) {
  absl::StatusOr<OpenModel> model = OpenModel::Open(Zoo("savedmodel_lexci_cnn"));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->kind(), OpenModel::Kind::kSavedModel);
  ASSERT_NE(model->graph(), nullptr);
  ASSERT_NE(model->signature(), nullptr);
  EXPECT_EQ(model->inits().size(), 2u);  // the restore, then the init op
  // The signature's keys name its tensors; with no fetch given, its outputs are fetched.
  std::vector<Feed> feeds = {Feed{TensorId{"input0", 0}, Tensor()}};
  std::vector<TensorId> fetches;
  EXPECT_THAT(model->UseSignatureNames(feeds, fetches), ElementsAre("subtract49"));
  EXPECT_EQ(feeds[0].id.ToString(), "serving_default_input0");
  ASSERT_EQ(fetches.size(), 1u);
  EXPECT_NE(fetches[0].node, "subtract49");
  EXPECT_NE(model->graph()->FindNode(fetches[0].node), nullptr);

  absl::StatusOr<OpenModel> unknown = OpenModel::Open(Zoo("savedmodel_lexci_cnn"), "predict");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("no signature \"predict\""));
}

TEST(OpenModelTest, AnyOtherDirectoryIsAPlanItsSessionReads) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "not_a_plan";
  std::filesystem::create_directories(dir);
  absl::StatusOr<OpenModel> model = OpenModel::Open(dir.string());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(model->is_plan());
  EXPECT_EQ(model->graph(), nullptr);
  // The session reads the plan, and says what it lacks.
  absl::StatusOr<std::unique_ptr<DeviceSession>> session = model->NewDeviceSession({});
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(std::string(session.status().message()), HasSubstr(dir.string()));
}

TEST(OpenModelTest, AMissingFileIsAnErrorNamingIt) {
  const std::string path = testing::SharedDir() + "/zoo/no_such_model.pb";
  absl::StatusOr<OpenModel> model = OpenModel::Open(path);
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()), HasSubstr("no_such_model.pb"));
}

}  // namespace
}  // namespace dfc

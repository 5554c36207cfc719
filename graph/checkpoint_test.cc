// The tensor bundle reader on the checkpoints TensorFlow wrote for the zoo's SavedModels, and on
// copies of them made corrupt: every corruption is an error naming the file, never a value.
#include "graph/checkpoint.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <string>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;

std::string LexciPrefix() {
  return testing::SharedDir() + "/zoo/savedmodel_lexci_cnn/variables/variables";
}

// The check values of CRC-32C (RFC 3720's examples) and LevelDB's mask round trip.
TEST(Crc32cTest, KnownValuesAndMask) {
  EXPECT_EQ(Crc32c("123456789"), 0xe3069283u);
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8a9136aau);
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62a8ab43u);
  EXPECT_EQ(Crc32c("56789", Crc32c("1234")), Crc32c("123456789"));
  for (uint32_t crc : {0u, 1u, 0xe3069283u, 0xffffffffu}) EXPECT_EQ(UnmaskCrc(MaskCrc(crc)), crc);
  EXPECT_NE(MaskCrc(0xe3069283u), 0xe3069283u);
}

TEST(CheckpointTest, ReadsEveryVariableOfTheZoosSavedModels) {
  for (const std::string model : {"savedmodel_lexci_cnn", "savedmodel_keras_lstm"}) {
    absl::StatusOr<Checkpoint> checkpoint =
        Checkpoint::Open(testing::SharedDir() + "/zoo/" + model + "/variables/variables");
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
    EXPECT_EQ(checkpoint->num_shards(), 1);
    int variables = 0;
    for (const std::string& key : checkpoint->Keys()) {
      if (!key.ends_with("/.ATTRIBUTES/VARIABLE_VALUE")) continue;
      absl::StatusOr<Tensor> t = checkpoint->Read(key);
      ASSERT_TRUE(t.ok()) << t.status();
      EXPECT_GT(t->num_elements(), 0) << key;
      ++variables;
    }
    EXPECT_GT(variables, 2) << model;
  }
}

// One known value: the first conv's kernel is 3x3x1x64 float32, and its bytes are the ones
// the shard holds at the entry's offset.
TEST(CheckpointTest, AVariablesShapeAndBytes) {
  absl::StatusOr<Checkpoint> checkpoint = Checkpoint::Open(LexciPrefix());
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
  std::string key;
  for (const std::string& k : checkpoint->Keys()) {
    if (k.find("kernel/.ATTRIBUTES") != std::string::npos) {
      key = k;
      break;
    }
  }
  ASSERT_FALSE(key.empty());
  absl::StatusOr<Tensor> t = checkpoint->Read(key);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kFloat);
  EXPECT_EQ(t->rank(), 4);
  const tf::BundleEntryProto* entry = checkpoint->Find(key);
  ASSERT_NE(entry, nullptr);
  absl::StatusOr<std::string> shard = ReadFile(LexciPrefix() + ".data-00000-of-00001");
  ASSERT_TRUE(shard.ok());
  EXPECT_EQ(shard->substr(entry->offset(), entry->size()),
            std::string(static_cast<const char*>(t->raw_data()), t->byte_size()));
}

class CorruptCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("dfc-ckpt-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    Restore();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string prefix() const { return (dir_ / "variables").string(); }

  // The copy made the zoo's again.
  void Restore() {
    for (const char* suffix : {".index", ".data-00000-of-00001"}) {
      std::filesystem::copy_file(LexciPrefix() + suffix, prefix() + suffix,
                                 std::filesystem::copy_options::overwrite_existing);
    }
  }

  // Flips the bits of one byte of the copy's file: at `offset`, or that far from the end.
  void Flip(const std::string& suffix, int64_t offset) {
    absl::StatusOr<std::string> bytes = ReadFile(prefix() + suffix);
    ASSERT_TRUE(bytes.ok());
    (*bytes)[offset >= 0 ? offset : static_cast<int64_t>(bytes->size()) + offset] ^= 0x5a;
    std::ofstream(prefix() + suffix, std::ios::binary | std::ios::trunc) << *bytes;
  }

  std::filesystem::path dir_;
};

TEST_F(CorruptCheckpointTest, AFlippedIndexByteIsAnErrorNamingTheIndex) {
  absl::StatusOr<std::string> bytes = ReadFile(prefix() + ".index");
  ASSERT_TRUE(bytes.ok());
  // A byte of the first block, of the middle, of the magic number, of the footer's first
  // handle (the footer's padding after the handles is read by no one).
  for (int64_t at : {int64_t{10}, static_cast<int64_t>(bytes->size() / 2), int64_t{-3},
                     int64_t{-48}}) {
    Restore();
    Flip(".index", at);
    absl::StatusOr<Checkpoint> checkpoint = Checkpoint::Open(prefix());
    ASSERT_FALSE(checkpoint.ok()) << "byte " << at;
    EXPECT_THAT(std::string(checkpoint.status().message()), HasSubstr(prefix() + ".index: "));
  }
}

TEST_F(CorruptCheckpointTest, AFlippedOrMissingShardIsAnErrorNamingTheTensor) {
  absl::StatusOr<Checkpoint> checkpoint = Checkpoint::Open(prefix());
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
  std::string key;
  for (const std::string& k : checkpoint->Keys()) {
    if (k.ends_with("VARIABLE_VALUE")) key = k;
  }
  ASSERT_FALSE(key.empty());
  Flip(".data-00000-of-00001", checkpoint->Find(key)->offset() + 1);
  absl::StatusOr<Tensor> t = checkpoint->Read(key);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("tensor \"" + key + "\""));
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("checksum"));

  std::filesystem::remove(prefix() + ".data-00000-of-00001");
  t = checkpoint->Read(key);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("cannot be opened"));
  EXPECT_THAT(std::string(checkpoint->Read("no/such/key").status().message()),
              HasSubstr("has no tensor \"no/such/key\""));
}

TEST_F(CorruptCheckpointTest, ATruncatedIndexIsAnError) {
  absl::StatusOr<std::string> bytes = ReadFile(prefix() + ".index");
  ASSERT_TRUE(bytes.ok());
  for (size_t keep : {size_t{0}, size_t{20}, bytes->size() / 2, bytes->size() - 1}) {
    absl::StatusOr<Checkpoint> checkpoint = Checkpoint::FromIndex(bytes->substr(0, keep), "x");
    EXPECT_FALSE(checkpoint.ok()) << keep;
  }
}

}  // namespace
}  // namespace dfc

// .npy reading and writing: real files written by NumPy (read, checked against their headers
// and values, and written back byte for byte), hand-made headers NumPy accepts, and a table of
// corrupt files that must all fail cleanly.
#include "graph/npy.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;

std::string ConformanceDir() { return testing::SharedDir() + "/conformance/tf-dl4j"; }

std::string ReadBytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

std::string TempPath(absl::string_view name) {
  return absl::StrCat(::testing::TempDir(), "/npy_test_", name);
}

// A .npy file with the given dict text (a '\n' is appended) and data, without NumPy's padding.
std::string RawNpy(absl::string_view dict, absl::string_view data, int major = 1) {
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  const std::string header = absl::StrCat(dict, "\n");
  const int length_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < length_bytes; ++i) out.push_back(static_cast<char>(header.size() >> (8 * i)));
  return absl::StrCat(out, header, data);
}

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

// --- Files NumPy wrote ---------------------------------------------------------------------------

struct RealFile {
  const char* path;  // under conformance/tf-dl4j
  DType dtype;
  Shape shape;
  std::vector<double> first_values;  // read from the file with Python's struct module
};

class NpyRealFileTest : public ::testing::TestWithParam<RealFile> {};

TEST_P(NpyRealFileTest, ReadsAndWritesBackByteExactly) {
  const RealFile& file = GetParam();
  const std::string path = absl::StrCat(ConformanceDir(), "/", file.path);
  absl::StatusOr<Tensor> t = ReadNpy(path);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), file.dtype);
  EXPECT_EQ(t->shape(), file.shape);
  ASSERT_GE(t->num_elements(), static_cast<int64_t>(file.first_values.size()));
  for (size_t i = 0; i < file.first_values.size(); ++i) {
    EXPECT_EQ(t->ElementAsDouble(i), file.first_values[i]) << "element " << i;
  }
  const std::string bytes = ReadBytes(path);
  EXPECT_EQ(SerializeNpy(*t), bytes);
  absl::StatusOr<Tensor> parsed = ParseNpy(bytes, path);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->BitwiseEqual(*t));
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Conformance, NpyRealFileTest,
    ::testing::Values(
        RealFile{"abs__rank2_float32/expected/Abs.npy", DType::kFloat, {1, 10},
                 {0.7787855863571167, 0.8011977672576904, 0.7243746519088745}},
        RealFile{"abs__rank2_float16/expected/Abs.npy", DType::kHalf, {1, 10},
                 {0.8115234375, 0.412109375, 0.0771484375}},
        RealFile{"log_softmax__rank3_half_with_axis/expected/LogSoftmax.npy", DType::kHalf,
                 {1, 2, 3}, {-0.765625, -1.1650390625, -1.5}},
        RealFile{"dtype_tests__add__float16_rank0_1/expected/Add.npy", DType::kHalf, {1}, {2}},
        RealFile{"g_06/inputs/input_1.npy", DType::kDouble, {2, 4, 3, 2}, {0.0975336}},
        RealFile{"matmul__rank5_batch2,2,2/expected/matmul-1.npy", DType::kFloat,
                 {2, 2, 2, 3, 5}, {1.9378442764282227, 1.971335768699646}},
        RealFile{"dtype_tests__add__int16_rank2/expected/Add.npy", DType::kInt16, {2, 3},
                 {2, 2, 2, 2, 2, 2}},
        RealFile{"abs__rank2_int32/expected/Abs.npy", DType::kInt32, {1, 10}, {7, 2, 9, 4, 3}},
        RealFile{"reductions__argmin3,4,5_-2/expected/argmin-1.npy", DType::kInt64, {3, 5},
                 {2, 1, 3, 2, 3, 1}},
        RealFile{"dtype_tests__add__int8_rank0_1/expected/Add.npy", DType::kInt8, {1}, {2}},
        RealFile{"dtype_tests__concat__uint8_rank2/expected/concat.npy", DType::kUInt8, {4, 3},
                 {1, 1, 1}},
        RealFile{"reduce_all__rank2_d0_keep/expected/All.npy", DType::kBool, {1, 4},
                 {1, 0, 0, 0}},
        // Scalars (shape ()).
        RealFile{"norm_tests__norm_6/expected/output.npy", DType::kFloat, {}, {12.393960952758789}},
        RealFile{"assert_type__rank0_int32/expected/Add.npy", DType::kInt32, {}, {2}},
        RealFile{"arg_min__rank1_dim0/expected/ArgMin.npy", DType::kInt64, {}, {2}},
        RealFile{"reduce_any__rank0/expected/Any.npy", DType::kBool, {}, {1}},
        RealFile{"transforms__logicalnot_/expected/logicalnot-1.npy", DType::kBool, {}, {0}},
        // Zero-size arrays.
        RealFile{"emptyArrayTests__range__0_0_1/expected/range.npy", DType::kFloat, {0}, {}},
        RealFile{"emptyArrayTests__cumprod__rank1_axis0/expected/Cumprod.npy", DType::kFloat,
                 {1, 0}, {}},
        RealFile{"emptyArrayTests__reverse__rank3_axis0-2/expected/ReverseV2.npy",
                 DType::kFloat, {2, 0, 4}, {}},
        RealFile{"tensordot__emptyArrayTest__4,3_3,2_a1/expected/Tensordot.npy", DType::kFloat,
                 {1, 0, 3, 1, 3, 0}, {}},
        RealFile{"emptyArrayTests__abs__rank1/expected/Abs.npy", DType::kInt32, {1, 0}, {}}));
// clang-format on

TEST(NpyRealFiles, ScalarNanMeanOfEmptyArray) {
  absl::StatusOr<Tensor> t =
      ReadNpy(ConformanceDir() + "/emptyArrayTests__reduce_mean__rank2_axisNone/expected/Mean.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugType(), "float64[]");
  EXPECT_TRUE(std::isnan(t->data<double>()[0]));
}

// Every .npy file in the suite round-trips byte for byte, uint16/32/64 ones included
// (dtype_tests__{concat__uint16,cast__uint32,cast__uint64}_rank1).
TEST(NpyRealFiles, WholeConformanceSuiteRoundTrips) {
  if (!std::filesystem::is_directory(ConformanceDir())) GTEST_SKIP() << "no conformance suite";
  int round_tripped = 0;
  std::set<DType> dtypes;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(ConformanceDir())) {
    if (entry.path().extension() != ".npy") continue;
    const std::string path = entry.path().string();
    absl::StatusOr<Tensor> t = ReadNpy(path);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(SerializeNpy(*t), ReadBytes(path)) << path;
    dtypes.insert(t->dtype());
    ++round_tripped;
  }
  EXPECT_GE(round_tripped, 600);
  EXPECT_TRUE(dtypes.contains(DType::kUInt16));
  EXPECT_TRUE(dtypes.contains(DType::kUInt32));
  EXPECT_TRUE(dtypes.contains(DType::kUInt64));
}

// --- Headers NumPy accepts -----------------------------------------------------------------------

TEST(NpyParse, KeysInAnyOrderWithOddSpacing) {
  const std::string file = RawNpy("{ \"shape\" :(2,3 ) ,'fortran_order':False,  'descr':'<i2'}   ",
                                  Bytes({1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0xff, 0xff}));
  absl::StatusOr<Tensor> t = ParseNpy(file, "odd.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugType(), "int16[2,3]");
  EXPECT_EQ(testing::Values<int16_t>(*t), (std::vector<int16_t>{1, 2, 3, 4, 5, -1}));
}

TEST(NpyParse, PythonTwoLongIntegers) {
  absl::StatusOr<Tensor> t = ParseNpy(
      RawNpy("{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 1L), }", Bytes({7, 9})),
      "py2.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugType(), "uint8[2,1]");
  EXPECT_EQ(testing::Values<uint8_t>(*t), (std::vector<uint8_t>{7, 9}));
}

TEST(NpyParse, Versions2And3HaveFourByteHeaderLengths) {
  for (int major : {2, 3}) {
    absl::StatusOr<Tensor> t =
        ParseNpy(RawNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                        Bytes({0, 0, 0xc0, 0x3f}), major),
                 "v.npy");
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(testing::Values<float>(*t), std::vector<float>{1.5f});
  }
}

TEST(NpyParse, ScalarAndZeroSizeShapes) {
  absl::StatusOr<Tensor> scalar =
      ParseNpy(RawNpy("{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                      Bytes({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})),
               "s.npy");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->DebugType(), "int64[]");
  EXPECT_EQ(scalar->data<int64_t>()[0], -2);
  absl::StatusOr<Tensor> empty =
      ParseNpy(RawNpy("{'descr': '<f8', 'fortran_order': True, 'shape': (0, 3), }", ""), "e.npy");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->DebugType(), "float64[0,3]");
}

struct ByteOrderCase {
  const char* descr;
  std::string data;  // one element as stored
  double value;
};

class NpyByteOrderTest : public ::testing::TestWithParam<ByteOrderCase> {};

TEST_P(NpyByteOrderTest, ReadsInNativeOrder) {
  const ByteOrderCase& c = GetParam();
  absl::StatusOr<Tensor> t = ParseNpy(
      RawNpy(absl::StrCat("{'descr': '", c.descr, "', 'fortran_order': False, 'shape': (1,)}"),
             c.data),
      "order.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->ElementAsDouble(0), c.value);
}

INSTANTIATE_TEST_SUITE_P(
    Descrs, NpyByteOrderTest,
    ::testing::Values(ByteOrderCase{">f4", Bytes({0x3f, 0x80, 0, 0}), 1.0},
                      ByteOrderCase{"<f4", Bytes({0, 0, 0x80, 0x3f}), 1.0},
                      ByteOrderCase{"=f4", Bytes({0, 0, 0x80, 0x3f}), 1.0},
                      ByteOrderCase{"f4", Bytes({0, 0, 0x80, 0x3f}), 1.0},
                      ByteOrderCase{">f2", Bytes({0xc0, 0x00}), -2.0},
                      ByteOrderCase{">f8", Bytes({0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18}),
                                    3.141592653589793},
                      ByteOrderCase{">i2", Bytes({0x01, 0x02}), 258},
                      ByteOrderCase{">i4", Bytes({0xff, 0xff, 0xff, 0xfe}), -2},
                      ByteOrderCase{">i8", Bytes({0, 0, 0, 1, 0, 0, 0, 0}), 4294967296.0},
                      ByteOrderCase{"<i1", Bytes({0x80}), -128},
                      ByteOrderCase{"|i1", Bytes({0x7f}), 127},
                      ByteOrderCase{"<u1", Bytes({0xff}), 255},
                      ByteOrderCase{">u1", Bytes({0xfe}), 254}, ByteOrderCase{"|b1", Bytes({1}), 1},
                      ByteOrderCase{"?", Bytes({1}), 1}, ByteOrderCase{"|?", Bytes({0}), 0},
                      ByteOrderCase{"<b1", Bytes({0x40}), 1}));  // any nonzero byte is True

TEST(NpyParse, BoolBytesBecomeZeroOrOne) {
  absl::StatusOr<Tensor> t = ParseNpy(
      RawNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", Bytes({0, 2, 0xff, 1})),
      "b.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  const auto* bytes = static_cast<const unsigned char*>(t->raw_data());
  EXPECT_EQ(std::vector<int>(bytes, bytes + 4), (std::vector<int>{0, 1, 1, 1}));
}

TEST(NpyParse, FortranOrderBecomesCOrder) {
  // [[1, 2, 3], [4, 5, 6]] stored column by column.
  absl::StatusOr<Tensor> matrix =
      ParseNpy(RawNpy("{'descr': '|i1', 'fortran_order': True, 'shape': (2, 3), }",
                      Bytes({1, 4, 2, 5, 3, 6})),
               "f.npy");
  ASSERT_TRUE(matrix.ok()) << matrix.status();
  EXPECT_EQ(testing::Values<int8_t>(*matrix), (std::vector<int8_t>{1, 2, 3, 4, 5, 6}));

  // Rank 3, big-endian int16: element (i, j, k) = 100i + 10j + k lives at i + 2j + 6k.
  std::string data(2 * 24, '\0');
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) data[2 * (i + 2 * j + 6 * k) + 1] = 100 * i + 10 * j + k;
    }
  }
  absl::StatusOr<Tensor> cube = ParseNpy(
      RawNpy("{'descr': '>i2', 'fortran_order': True, 'shape': (2, 3, 4), }", data), "f3.npy");
  ASSERT_TRUE(cube.ok()) << cube.status();
  const std::vector<int16_t> values = testing::Values<int16_t>(*cube);
  EXPECT_EQ(values[0], 0);
  EXPECT_EQ(values[1], 1);     // (0, 0, 1)
  EXPECT_EQ(values[4], 10);    // (0, 1, 0)
  EXPECT_EQ(values[12], 100);  // (1, 0, 0)
  EXPECT_EQ(values[23], 123);  // (1, 2, 3)
  EXPECT_EQ(values[18], 112);  // (1, 1, 2)
}

class NpyUnsupportedTest : public ::testing::TestWithParam<const char*> {};

TEST_P(NpyUnsupportedTest, NamesFileAndDescr) {
  absl::StatusOr<Tensor> t = ParseNpy(
      RawNpy(absl::StrCat("{'descr': ", GetParam(), ", 'fortran_order': False, 'shape': (1,)}"),
             std::string(16, '\0')),
      "weird.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("weird.npy: unsupported dtype descr"));
  EXPECT_THAT(std::string(t.status().message()), HasSubstr(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Descrs, NpyUnsupportedTest,
                         ::testing::Values("'|O'", "'<U5'", "'|S3'", "'|V8'", "'<c8'", "'<c16'",
                                           "'<f16'", "'<M8[ns]'", "'<i3'", "''",
                                           "[('x', '<f4'), ('y', '<i4')]", "None", "4"));

// --- Corrupt files -------------------------------------------------------------------------------

struct CorruptCase {
  const char* name;
  std::string bytes;
  const char* message;  // a part of the expected error
};

class NpyCorruptTest : public ::testing::TestWithParam<CorruptCase> {};

TEST_P(NpyCorruptTest, FailsWithAClearError) {
  absl::StatusOr<Tensor> t = ParseNpy(GetParam().bytes, "bad.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("bad.npy: "));
  EXPECT_THAT(std::string(t.status().message()), HasSubstr(GetParam().message));
}

std::string F4(absl::string_view shape, absl::string_view data = "") {
  return RawNpy(absl::StrCat("{'descr': '<f4', 'fortran_order': False, 'shape': ", shape, "}"),
                data);
}

std::vector<CorruptCase> CorruptCases() {
  std::string long_length = F4("(1,)", "abcd");
  long_length[8] = '\x7f';  // header length 0x..7f > file
  std::string huge_v2 = RawNpy("{}", "", 2);
  huge_v2[8] = huge_v2[9] = huge_v2[10] = huge_v2[11] = '\xff';
  return {
      {"Empty", "", "it is empty"},
      {"BadMagic", "\x93NUMPZ\x01\x00\x10\x00", "not a .npy file"},
      {"TextFile", "hello, world", "not a .npy file"},
      {"MagicOnly", "\x93NUM", "truncated"},
      {"NoLength", std::string("\x93NUMPY\x01\x00", 8), "truncated"},
      {"HalfLength", std::string("\x93NUMPY\x02\x00\x10\x00", 10), "truncated"},
      {"Version0", std::string("\x93NUMPY\x00\x00\x10\x00", 10), "version 0.0"},
      {"Version4", std::string("\x93NUMPY\x04\x00\x10\x00", 10), "version 4.0"},
      {"Version1_1", std::string("\x93NUMPY\x01\x01\x10\x00", 10), "version 1.1"},
      {"HeaderPastEnd", long_length, "runs past the end"},
      {"HugeHeaderV2", huge_v2, "runs past the end"},
      {"NotADict", RawNpy("[1, 2]", ""), "expected '{'"},
      {"UnclosedDict", RawNpy("{'descr': '<f4'", ""), "expected ',' or '}'"},
      {"UnterminatedString", RawNpy("{'descr: '<f4'}", ""), "expected ':'"},
      {"BareWord", RawNpy("{'descr': f4}", ""), "expected a string, number"},
      {"TrailingText", RawNpy("{'descr': '<f4', 'fortran_order': False, 'shape': ()} x", ""),
       "unexpected text after the dict"},
      {"Expression", F4("(1+2,)"), "expected ',' or ')'"},
      {"DeepNesting", F4(std::string(100, '(')), "nesting too deep"},
      {"MissingShape", RawNpy("{'descr': '<f4', 'fortran_order': False}", ""), "no 'shape'"},
      {"MissingDescr", RawNpy("{'shape': (), 'fortran_order': False}", ""), "no 'descr'"},
      {"DuplicateKey", RawNpy("{'descr': '<f4', 'descr': '<f4'}", ""), "appears twice"},
      {"ExtraKey", F4("(), 'extra': 1"), "unexpected header key 'extra'"},
      {"FortranNotBool", RawNpy("{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", ""),
       "fortran_order is 0"},
      {"ShapeList", F4("[2, 3]"), "shape is [2, 3], expected a tuple"},
      {"ShapeInt", F4("(3)"), "shape is (3), expected a tuple"},
      {"ShapeString", F4("(2, 'a')"), "dimension 'a' that is not an integer"},
      {"NegativeDim", F4("(2, -1)"), "negative dimension"},
      {"DimOver64Bits", F4("(99999999999999999999,)"), "does not fit in 64 bits"},
      {"ElementCountOverflows", F4("(4294967296, 4294967296)"), "more than 2^63"},
      {"OverTensorLimit", F4("(3000000000,)"), "over dfc's limit"},
      {"DataShort", F4("(2, 3)", std::string(23, '\0')), "data section has 23 bytes"},
      {"DataMissing", F4("(1000000000,)"), "truncated .npy file: the data section has 0"},
      {"DataLong", F4("(1,)", std::string(5, '\0')), "data section has 5 bytes"},
  };
}

INSTANTIATE_TEST_SUITE_P(Table, NpyCorruptTest, ::testing::ValuesIn(CorruptCases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(NpyCorrupt, EveryTruncationFails) {
  const std::vector<Tensor> tensors = {
      Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
      Tensor::Scalar<bool>(true),
      Tensor::FromVector<int64_t>({-1, 7}, {2}),
  };
  for (const Tensor& t : tensors) {
    const std::string bytes = SerializeNpy(t);
    for (size_t size = 0; size < bytes.size(); ++size) {
      absl::StatusOr<Tensor> parsed = ParseNpy(absl::string_view(bytes).substr(0, size), "cut.npy");
      EXPECT_FALSE(parsed.ok()) << t.DebugType() << " cut at " << size;
    }
    // Through the file path too, at the interesting offsets.
    for (size_t size : {size_t{0}, size_t{7}, size_t{9}, size_t{64}, bytes.size() - 1}) {
      const std::string path = TempPath("cut.npy");
      std::ofstream(path, std::ios::binary) << bytes.substr(0, size);
      absl::StatusOr<Tensor> read = ReadNpy(path);
      ASSERT_FALSE(read.ok()) << t.DebugType() << " cut at " << size;
      EXPECT_THAT(std::string(read.status().message()), HasSubstr(path));
    }
  }
}

TEST(NpyRead, MissingFileAndDirectory) {
  absl::StatusOr<Tensor> missing = ReadNpy("/nonexistent/dir/x.npy");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("/nonexistent/dir/x.npy"));
  absl::StatusOr<Tensor> directory = ReadNpy(::testing::TempDir());
  ASSERT_FALSE(directory.ok());
  EXPECT_THAT(std::string(directory.status().message()), HasSubstr(::testing::TempDir()));
}

// --- Writing -------------------------------------------------------------------------------------

TEST(NpyWrite, HeaderIsNumpys) {
  // numpy.save(np.zeros((2, 3), np.float32)): dict, 20 spaces of growth room for the first
  // axis, padding to 128 bytes.
  const std::string bytes = SerializeNpy(Tensor::Zeros(DType::kFloat, {2, 3}));
  ASSERT_EQ(bytes.size(), 128u + 24u);
  EXPECT_EQ(bytes.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(bytes.substr(10, 59), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(bytes.substr(69, 58), std::string(58, ' '));
  EXPECT_EQ(bytes[127], '\n');

  const std::string scalar = SerializeNpy(Tensor::Scalar<bool>(true));
  EXPECT_EQ(scalar.substr(10, 55), "{'descr': '|b1', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(scalar.size(), 129u);
  EXPECT_EQ(scalar.back(), '\x01');

  const std::string vector = SerializeNpy(Tensor::FromVector<int8_t>({-1, 2, 3}, {3}));
  EXPECT_EQ(vector.substr(10, 57), "{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }");
}

TEST(NpyWrite, DescrsAreLittleEndianAsNumpyWritesThem) {
  const std::vector<std::pair<DType, std::string>> descrs = {
      {DType::kHalf, "'<f2'"},  {DType::kFloat, "'<f4'"}, {DType::kDouble, "'<f8'"},
      {DType::kInt8, "'|i1'"},  {DType::kInt16, "'<i2'"}, {DType::kInt32, "'<i4'"},
      {DType::kInt64, "'<i8'"}, {DType::kUInt8, "'|u1'"}, {DType::kBool, "'|b1'"}};
  for (const auto& [dtype, descr] : descrs) {
    EXPECT_EQ(SerializeNpy(Tensor::Zeros(dtype, {1})).substr(10, 17),
              absl::StrCat("{'descr': ", descr, ", "));
  }
}

TEST(NpyWrite, AlignedHeaderGetsAWholeExtraBlock) {
  // Rank 36 of ones: magic, length and dict with newline fill exactly 192 bytes, and numpy
  // then pads by 64 rather than 0.
  const std::string bytes = SerializeNpy(Tensor::Zeros(DType::kFloat, Shape(36, 1)));
  EXPECT_EQ(bytes.size(), 256u + 4u);
  EXPECT_EQ(bytes.substr(8, 2), std::string("\xf6\x00", 2));  // 246
  EXPECT_EQ(bytes.substr(191, 64), std::string(64, ' '));
  EXPECT_EQ(bytes[255], '\n');
}

TEST(NpyWrite, VersionTwoWhenTheHeaderExceeds65535Bytes) {
  const Tensor t = Tensor::Zeros(DType::kInt16, Shape(25000, 1));
  const std::string bytes = SerializeNpy(t);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x02\x00", 8));
  const size_t header_length = static_cast<unsigned char>(bytes[8]) |
                               static_cast<unsigned char>(bytes[9]) << 8 |
                               static_cast<unsigned char>(bytes[10]) << 16;
  EXPECT_GT(header_length, 65535u);
  EXPECT_EQ((12 + header_length) % 64, 0u);
  EXPECT_EQ(bytes.size(), 12 + header_length + 2);
  absl::StatusOr<Tensor> back = ParseNpy(bytes, "v2.npy");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->BitwiseEqual(t));
}

TEST(NpyWrite, RoundTripsEveryDTypeThroughAFile) {
  const std::vector<Tensor> tensors = {
      Tensor::FromVector<Half>({Half::FromBits(0x7e01), Half::FromBits(0x8000),
                                Half::FromBits(0x0001), Half::FromBits(0x7bff)},
                               {2, 2}),
      Tensor::FromVector<float>({-0.0f, std::numeric_limits<float>::infinity(), 1e-45f}, {3}),
      Tensor::FromVector<double>({std::numeric_limits<double>::denorm_min(), -1e308}, {2, 1}),
      Tensor::FromVector<int8_t>({-128, 127}, {2}),
      Tensor::FromVector<int16_t>({-32768, 32767}, {1, 2}),
      Tensor::FromVector<int32_t>({std::numeric_limits<int32_t>::min()}, {}),
      Tensor::FromVector<int64_t>(
          {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}, {2}),
      Tensor::FromVector<uint8_t>({0, 255}, {2}),
      Tensor::FromVector<bool>({true, false, true}, {3, 1, 1}),
      Tensor::Zeros(DType::kFloat, {3, 0, 2}),
  };
  const std::string path = TempPath("round_trip.npy");
  for (const Tensor& t : tensors) {
    ASSERT_TRUE(WriteNpy(t, path).ok()) << t.DebugType();
    EXPECT_EQ(ReadBytes(path), SerializeNpy(t));
    EXPECT_EQ(ReadBytes(path).size() % 64, t.byte_size() % 64);  // the data starts aligned
    absl::StatusOr<Tensor> back = ReadNpy(path);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->BitwiseEqual(t)) << t.DebugType() << " " << back->DebugType();
  }
}

TEST(NpyWrite, Errors) {
  absl::Status string_tensor = WriteNpy(Tensor::Zeros(DType::kString, {2}), TempPath("s.npy"));
  ASSERT_FALSE(string_tensor.ok());
  EXPECT_THAT(std::string(string_tensor.message()), HasSubstr("string[2]"));
  absl::Status no_directory = WriteNpy(Tensor(), "/nonexistent/dir/out.npy");
  ASSERT_FALSE(no_directory.ok());
  EXPECT_THAT(std::string(no_directory.message()), HasSubstr("/nonexistent/dir/out.npy"));
}

}  // namespace
}  // namespace dfc

// Tests of the OpenCL runtime layer on whatever device this machine has (PoCL's CPU device in
// CI): device listing and selection, buffers, and the program cache in memory and on disk.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/opencl/context.h"
#include "runtime/opencl/device.h"
#include "runtime/opencl/program_cache.h"

namespace dfc::cl {
namespace {

using ::testing::HasSubstr;

constexpr char kVectorAdd[] = R"(
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, int n) {
  const int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
)";

// A fresh cache directory per test, so no run sees another's (or an earlier run's) files;
// removed again when the test ends.
class TempCacheDir {
 public:
  TempCacheDir() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = absl::StrCat(::testing::TempDir(), "/dfc_program_cache_", test->name(), "_", getpid());
    std::filesystem::remove_all(path_);
  }
  ~TempCacheDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::shared_ptr<ClContext> MakeContext() {
  absl::StatusOr<DeviceInfo> device = SelectDevice("auto");
  EXPECT_TRUE(device.ok()) << device.status();
  if (!device.ok()) return nullptr;
  absl::StatusOr<std::shared_ptr<ClContext>> context = ClContext::Create(*device);
  EXPECT_TRUE(context.ok()) << context.status();
  return context.ok() ? *context : nullptr;
}

// Builds kVectorAdd through `cache`, runs it on n elements and checks c = a + b exactly.
void ExpectVectorAddWorks(ClContext& context, ProgramCache& cache, int n = 1000) {
  absl::StatusOr<std::shared_ptr<ClProgram>> program = cache.Build(kVectorAdd, "");
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<ClKernel> kernel = ProgramCache::CreateKernel(**program, "vector_add");
  ASSERT_TRUE(kernel.ok()) << kernel.status();

  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * static_cast<float>(i);
    b[i] = 1000.0f - static_cast<float>(i);
  }
  const size_t bytes = n * sizeof(float);
  absl::StatusOr<ClBuffer> da = context.Allocate(bytes);
  absl::StatusOr<ClBuffer> db = context.Allocate(bytes);
  absl::StatusOr<ClBuffer> dc = context.Allocate(bytes);
  ASSERT_TRUE(da.ok() && db.ok() && dc.ok());
  ASSERT_TRUE(context.Write(*da, a.data(), bytes).ok());
  ASSERT_TRUE(context.Write(*db, b.data(), bytes).ok());

  cl_mem ma = da->get(), mb = db->get(), mc = dc->get();
  ASSERT_EQ(clSetKernelArg(kernel->get(), 0, sizeof(cl_mem), &ma), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel->get(), 1, sizeof(cl_mem), &mb), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel->get(), 2, sizeof(cl_mem), &mc), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel->get(), 3, sizeof(int), &n), CL_SUCCESS);
  const size_t global = n;
  ASSERT_EQ(clEnqueueNDRangeKernel(context.queue(), kernel->get(), 1, nullptr, &global, nullptr, 0,
                                   nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_TRUE(context.Finish().ok());
  ASSERT_TRUE(context.Read(*dc, c.data(), bytes).ok());
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
}

TEST(ClErrorTest, NamesCodes) {
  EXPECT_EQ(ClErrorName(CL_INVALID_VALUE), "CL_INVALID_VALUE");
  EXPECT_EQ(ClErrorName(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_EQ(ClErrorName(-9999), "CL_UNKNOWN_ERROR(-9999)");
  EXPECT_TRUE(ClStatus(CL_SUCCESS, "clFoo").ok());
  EXPECT_EQ(ClStatus(CL_INVALID_VALUE, "clFoo(x)").message(), "clFoo(x) failed: CL_INVALID_VALUE");
}

absl::Status FailingCall() {
  DFC_CL_RETURN_IF_ERROR(clFinish(nullptr));
  return absl::OkStatus();
}

TEST(ClErrorTest, MacroCarriesCallText) {
  const absl::Status status = FailingCall();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(status.message(), HasSubstr("clFinish(nullptr) failed: CL_INVALID_COMMAND_QUEUE"));
}

TEST(DeviceTest, ListsDevices) {
  absl::StatusOr<std::vector<DeviceInfo>> devices = ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_FALSE(devices->empty());
  for (const DeviceInfo& info : *devices) {
    EXPECT_FALSE(info.device_name.empty());
    EXPECT_GT(info.compute_units, 0);
    EXPECT_GT(info.max_work_group_size, 0u);
  }
}

TEST(DeviceTest, SelectsCpu) {
  absl::StatusOr<DeviceInfo> device = SelectDevice("cpu");
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_TRUE(device->type & CL_DEVICE_TYPE_CPU);
  // The platform restriction finds the same device on its own platform.
  absl::StatusOr<DeviceInfo> same = SelectDevice("cpu", device->platform_index);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->device, device->device);
}

// PoCL's basic device is listed as the inline device of the pthread device of its processor,
// not as a device of its own; where $POCL_DEVICES names both (ListDevices names them when it is
// unset), the pthread device has one.
TEST(DeviceTest, PoclsBasicDeviceIsThePthreadDevicesInlineDevice) {
  absl::StatusOr<std::vector<DeviceInfo>> devices = ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  const char* requested = std::getenv("POCL_DEVICES");
  const bool both = requested != nullptr && std::string(requested) == "pthread basic";
  int paired = 0;
  for (const DeviceInfo& info : *devices) {
    EXPECT_FALSE(absl::StartsWith(info.device_name, "basic-") && both) << info.device_name;
    if (!absl::StartsWith(info.device_name, "pthread-")) continue;
    if (both) {
      EXPECT_NE(info.inline_device, nullptr) << info.device_name;
    }
    if (info.inline_device == nullptr) continue;
    ++paired;
    EXPECT_EQ(info.inline_device->device_name,
              "basic-" + info.device_name.substr(std::string("pthread-").size()));
    EXPECT_EQ(info.inline_device->platform, info.platform);
  }
  if (paired == 0) GTEST_SKIP() << "no PoCL pthread device with an inline device here";
}

TEST(DeviceTest, MissingVendorIsNotFoundAndListsDevices) {
  absl::StatusOr<DeviceInfo> cpu = SelectDevice("cpu");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  absl::StatusOr<DeviceInfo> device = SelectDevice("nvidia");
  if (device.ok()) GTEST_SKIP() << "this machine has an NVIDIA device";
  EXPECT_EQ(device.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(device.status().message(), HasSubstr("nvidia"));
  EXPECT_THAT(device.status().message(), HasSubstr(cpu->device_name));
}

TEST(DeviceTest, VendorKindsNeverPickCpus) {
  // PoCL names its CPU device after the host ("...-AMD EPYC"): that is not an AMD GPU.
  for (const char* kind : {"amd", "nvidia", "intel", "arm"}) {
    absl::StatusOr<DeviceInfo> device = SelectDevice(kind);
    if (device.ok()) {
      EXPECT_FALSE(device->type & CL_DEVICE_TYPE_CPU) << kind;
    }
  }
}

TEST(DeviceTest, UnknownKindIsAnError) {
  absl::StatusOr<DeviceInfo> device = SelectDevice("bogus");
  ASSERT_FALSE(device.ok());
  EXPECT_THAT(device.status().message(), HasSubstr("bogus"));
  EXPECT_FALSE(SelectDevice("cpu", 1000).ok());
}

TEST(ContextTest, AllocatesZeroBytes) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  absl::StatusOr<ClBuffer> buffer = context->Allocate(0);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  EXPECT_EQ(buffer->size(), 0u);
  EXPECT_TRUE(context->Write(*buffer, nullptr, 0).ok());
  EXPECT_TRUE(context->Read(*buffer, nullptr, 0).ok());
  float value = 0;
  EXPECT_FALSE(context->Write(*buffer, &value, sizeof(value)).ok());
}

// A write that does not block keeps what holds its data until the queue is next waited for
// (SettleWrites, Finish or a blocking read), and the data arrives.
TEST(ContextTest, AWriteThatDoesNotBlockKeepsItsDataUntilTheQueueIsWaitedFor) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  absl::StatusOr<ClBuffer> buffer = context->Allocate(4 * sizeof(int));
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  for (int way = 0; way < 2; ++way) {
    auto data = std::make_shared<std::vector<int>>(std::vector<int>{1, 2, 3, way});
    const std::weak_ptr<std::vector<int>> kept = data;
    const int* bytes = data->data();
    ASSERT_TRUE(
        context->Write(*buffer, bytes, 4 * sizeof(int), /*blocking=*/false, std::move(data)).ok());
    EXPECT_FALSE(kept.expired());
    std::vector<int> read(4, 0);
    if (way == 0) {
      ASSERT_TRUE(context->SettleWrites().ok());
      EXPECT_TRUE(kept.expired());
      ASSERT_TRUE(context->Read(*buffer, read.data(), 4 * sizeof(int)).ok());
    } else {
      ASSERT_TRUE(context->Read(*buffer, read.data(), 4 * sizeof(int)).ok());
      EXPECT_TRUE(kept.expired());
    }
    EXPECT_THAT(read, ::testing::ElementsAre(1, 2, 3, way));
  }
  // Nothing to wait for: SettleWrites returns at once.
  EXPECT_TRUE(context->SettleWrites().ok());
}

// A buffer given back is handed out again for a request of the same size, and only then; its
// data survives the trip. With the capacity at 0 nothing is kept.
TEST(ContextTest, ReusesAReleasedBufferOfTheSameSize) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  cl_mem first = nullptr;
  {
    absl::StatusOr<ClBuffer> buffer = context->Allocate(4096);
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    first = buffer->get();
    const int value = 7;
    ASSERT_TRUE(context->Write(*buffer, &value, sizeof(value)).ok());
  }
  EXPECT_EQ(context->pool().held_bytes(), 4096u);
  absl::StatusOr<ClBuffer> other_size = context->Allocate(2048);
  ASSERT_TRUE(other_size.ok());
  EXPECT_NE(other_size->get(), first);
  absl::StatusOr<ClBuffer> same_size = context->Allocate(4096);
  ASSERT_TRUE(same_size.ok());
  EXPECT_EQ(same_size->get(), first);
  EXPECT_EQ(context->pool().held_bytes(), 0u);
  int read = 0;
  ASSERT_TRUE(context->Read(*same_size, &read, sizeof(read)).ok());
  EXPECT_EQ(read, 7);

  context->pool().set_capacity(0);
  { ClBuffer released = std::move(*same_size); }
  EXPECT_EQ(context->pool().held_bytes(), 0u);
  absl::StatusOr<ClBuffer> fresh = context->Allocate(4096);
  ASSERT_TRUE(fresh.ok());
}

TEST(BufferPoolTest, KeepsNoMoreThanItsCapacity) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  auto create = [&](size_t bytes) {
    cl_int err = CL_SUCCESS;
    ClMem mem(clCreateBuffer(context->context(), CL_MEM_READ_WRITE, bytes, nullptr, &err));
    EXPECT_EQ(err, CL_SUCCESS);
    return mem;
  };
  BufferPool pool(/*capacity=*/3000);
  pool.Give(create(1000), 1000);
  pool.Give(create(1000), 1000);
  pool.Give(create(2000), 2000);  // would hold 4000: released
  EXPECT_EQ(pool.held_bytes(), 2000u);
  EXPECT_FALSE(pool.Take(2000));
  EXPECT_TRUE(pool.Take(1000));
  EXPECT_EQ(pool.held_bytes(), 1000u);
  pool.Give(create(2000), 2000);
  pool.set_capacity(1500);  // keeps the smallest that fit
  EXPECT_EQ(pool.held_bytes(), 1000u);
  EXPECT_TRUE(pool.Take(1000));
  pool.Clear();
  EXPECT_EQ(pool.held_bytes(), 0u);
}

// A context's queue profiles only when asked; switching replaces the queue and keeps the
// buffers (they belong to the context), and kernels still run on the new queue.
TEST(ContextTest, ProfilingIsSwitchedByReplacingTheQueue) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  auto properties = [&] {
    cl_command_queue_properties p = 0;
    EXPECT_EQ(clGetCommandQueueInfo(context->queue(), CL_QUEUE_PROPERTIES, sizeof(p), &p, nullptr),
              CL_SUCCESS);
    return p;
  };
  EXPECT_FALSE(context->profiling());
  EXPECT_EQ(properties() & CL_QUEUE_PROFILING_ENABLE, 0u);
  absl::StatusOr<ClBuffer> kept = context->Allocate(sizeof(int));
  ASSERT_TRUE(kept.ok());
  const int value = 42;
  ASSERT_TRUE(context->Write(*kept, &value, sizeof(value)).ok());

  ASSERT_TRUE(context->SetProfiling(true).ok());
  EXPECT_TRUE(context->profiling());
  EXPECT_NE(properties() & CL_QUEUE_PROFILING_ENABLE, 0u);
  int read = 0;
  ASSERT_TRUE(context->Read(*kept, &read, sizeof(read)).ok());
  EXPECT_EQ(read, 42);
  TempCacheDir dir;
  ProgramCache cache(context, dir.path());
  ExpectVectorAddWorks(*context, cache);

  ASSERT_TRUE(context->SetProfiling(false).ok());
  EXPECT_EQ(properties() & CL_QUEUE_PROFILING_ENABLE, 0u);
  ExpectVectorAddWorks(*context, cache);
}

// Commands go to the inline device and back; a buffer written on one device is read on the
// other, and a program is built for each device it runs on, under a key of its own.
TEST(ContextTest, TheInlineDeviceSharesTheContextsBuffers) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  if (!context->has_inline_device()) GTEST_SKIP() << "the device has no inline device";
  TempCacheDir dir;
  ProgramCache cache(context, dir.path(), ProgramCache::SavePolicy::kFirstBuild);
  EXPECT_FALSE(context->inline_active());
  absl::StatusOr<ClBuffer> kept = context->Allocate(sizeof(int));
  ASSERT_TRUE(kept.ok());
  const int value = 42;
  ASSERT_TRUE(context->Write(*kept, &value, sizeof(value), /*blocking=*/false).ok());

  ASSERT_TRUE(context->UseInline(true).ok());
  EXPECT_TRUE(context->inline_active());
  EXPECT_EQ(context->device(), context->info().inline_device->device);
  int read = 0;
  ASSERT_TRUE(context->Read(*kept, &read, sizeof(read)).ok());
  EXPECT_EQ(read, 42);
  const int changed = 7;
  ASSERT_TRUE(context->Write(*kept, &changed, sizeof(changed), /*blocking=*/false).ok());
  ExpectVectorAddWorks(*context, cache);
  EXPECT_EQ(cache.builds_from_source(), 1);

  ASSERT_TRUE(context->UseInline(false).ok());
  EXPECT_EQ(context->device(), context->info().device);
  ASSERT_TRUE(context->Read(*kept, &read, sizeof(read)).ok());
  EXPECT_EQ(read, 7);
  ExpectVectorAddWorks(*context, cache);
  EXPECT_EQ(cache.builds_from_source(), 2);
  // Each device's binary was kept: a second cache loads both.
  ProgramCache second(context, dir.path(), ProgramCache::SavePolicy::kFirstBuild);
  ExpectVectorAddWorks(*context, second);
  ASSERT_TRUE(context->UseInline(true).ok());
  ExpectVectorAddWorks(*context, second);
  EXPECT_EQ(second.builds_from_source(), 0);
  EXPECT_EQ(second.loads_from_disk(), 2);
}

TEST(ProgramCacheTest, BuildsAndRunsVectorAdd) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  TempCacheDir dir;
  ProgramCache cache(context, dir.path());
  ExpectVectorAddWorks(*context, cache);
  EXPECT_EQ(cache.builds_from_source(), 1);
  EXPECT_EQ(cache.loads_from_disk(), 0);
}

// The compiler's warnings are kept, so that tests can require generated code to have none.
TEST(ProgramCacheTest, KeepsTheLogOfABuildThatWarns) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  ProgramCache cache(context, "");
  ASSERT_TRUE(cache.Build(kVectorAdd).ok());
  EXPECT_TRUE(cache.build_warnings().empty());
  ASSERT_TRUE(
      cache.Build("__kernel void k(__global int* o) { o[0] + 1; if (o[1] = 2) o[2] = 3; }").ok());
  ASSERT_EQ(cache.build_warnings().size(), 1u);
  EXPECT_THAT(cache.build_warnings()[0], ::testing::HasSubstr("warning"));
}

TEST(ProgramCacheTest, SameSourceTwiceIsAMemoryHit) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  TempCacheDir dir;
  ProgramCache cache(context, dir.path());
  absl::StatusOr<std::shared_ptr<ClProgram>> first = cache.Build(kVectorAdd);
  absl::StatusOr<std::shared_ptr<ClProgram>> second = cache.Build(kVectorAdd);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->get(), second->get());
  EXPECT_EQ(cache.builds_from_source(), 1);
  EXPECT_EQ(cache.memory_hits(), 1);
  // Other options are another program.
  ASSERT_TRUE(cache.Build(kVectorAdd, "-cl-fast-relaxed-math").ok());
  EXPECT_EQ(cache.builds_from_source(), 2);
}

TEST(ProgramCacheTest, SecondCacheLoadsFromDisk) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  const TempCacheDir temp;
  const std::string& dir = temp.path();
  {
    ProgramCache first(context, dir, ProgramCache::SavePolicy::kFirstBuild);
    ExpectVectorAddWorks(*context, first);
    EXPECT_EQ(first.builds_from_source(), 1);
  }
  // A new cache stands in for a second process: nothing in memory, the file on disk.
  ProgramCache second(context, dir, ProgramCache::SavePolicy::kFirstBuild);
  ExpectVectorAddWorks(*context, second);
  EXPECT_EQ(second.loads_from_disk(), 1);
  EXPECT_EQ(second.builds_from_source(), 0);
}

TEST(ProgramCacheTest, CorruptFileFallsBackToSource) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  const TempCacheDir temp;
  const std::string& dir = temp.path();
  {
    ProgramCache first(context, dir, ProgramCache::SavePolicy::kFirstBuild);
    ASSERT_TRUE(first.Build(kVectorAdd).ok());
  }
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc) << "garbage, not a program";
    ++files;
  }
  ASSERT_EQ(files, 1);
  ProgramCache second(context, dir, ProgramCache::SavePolicy::kFirstBuild);
  ExpectVectorAddWorks(*context, second);
  EXPECT_EQ(second.loads_from_disk(), 0);
  EXPECT_EQ(second.builds_from_source(), 1);
  // The source build rewrote the file, so a third cache loads it again.
  ProgramCache third(context, dir, ProgramCache::SavePolicy::kFirstBuild);
  ExpectVectorAddWorks(*context, third);
  EXPECT_EQ(third.loads_from_disk(), 1);
}

// Under kSecondBuild the first process leaves the key alone on disk, the second builds again and
// writes the binary, and the third loads it; a file of another key's does not count as seen.
TEST(ProgramCacheTest, SecondBuildPolicyWritesTheBinaryWhenBuiltAgain) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  const TempCacheDir temp;
  const std::string& dir = temp.path();
  using Policy = ProgramCache::SavePolicy;
  auto file_size = [&] {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry);
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? 0 : std::filesystem::file_size(files[0]);
  };
  {
    ProgramCache first(context, dir, Policy::kSecondBuild);
    ExpectVectorAddWorks(*context, first);
    EXPECT_EQ(first.builds_from_source(), 1);
  }
  const uintmax_t stub = file_size();
  {
    ProgramCache second(context, dir, Policy::kSecondBuild);
    ExpectVectorAddWorks(*context, second);
    EXPECT_EQ(second.loads_from_disk(), 0);
    EXPECT_EQ(second.builds_from_source(), 1);
  }
  EXPECT_GT(file_size(), stub);
  ProgramCache third(context, dir, Policy::kSecondBuild);
  ExpectVectorAddWorks(*context, third);
  EXPECT_EQ(third.loads_from_disk(), 1);
  EXPECT_EQ(third.builds_from_source(), 0);

  // A corrupt file is no sign of an earlier build: the next build writes the key alone again.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc) << "garbage, not a program";
  }
  {
    ProgramCache fourth(context, dir, Policy::kSecondBuild);
    ExpectVectorAddWorks(*context, fourth);
    EXPECT_EQ(fourth.builds_from_source(), 1);
  }
  EXPECT_EQ(file_size(), stub);
  // A kFirstBuild cache that finds the key alone builds and writes the binary.
  {
    ProgramCache eager(context, dir, Policy::kFirstBuild);
    ExpectVectorAddWorks(*context, eager);
    EXPECT_EQ(eager.builds_from_source(), 1);
  }
  EXPECT_GT(file_size(), stub);
}

TEST(ProgramCacheTest, DefaultSavePolicyHonoursEnvironment) {
  using Policy = ProgramCache::SavePolicy;
  unsetenv("DFC_CACHE_SAVE");
  EXPECT_EQ(ProgramCache::DefaultSavePolicy(), Policy::kFirstBuild);
  setenv("DFC_CACHE_SAVE", "second-build", 1);
  EXPECT_EQ(ProgramCache::DefaultSavePolicy(), Policy::kSecondBuild);
  setenv("DFC_CACHE_SAVE", "first-build", 1);
  EXPECT_EQ(ProgramCache::DefaultSavePolicy(), Policy::kFirstBuild);
  setenv("DFC_CACHE_SAVE", "sometimes", 1);
  EXPECT_EQ(ProgramCache::DefaultSavePolicy(), Policy::kFirstBuild);
  unsetenv("DFC_CACHE_SAVE");
}

TEST(ProgramCacheTest, BuildErrorCarriesTheLog) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  TempCacheDir dir;
  ProgramCache cache(context, dir.path());
  absl::StatusOr<std::shared_ptr<ClProgram>> program =
      cache.Build("__kernel void broken(__global float* x) { x[0] = undeclared_thing; }");
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(program.status().message(), HasSubstr("undeclared_thing"));
}

TEST(ProgramCacheTest, UnknownKernelNameIsAnError) {
  std::shared_ptr<ClContext> context = MakeContext();
  ASSERT_NE(context, nullptr);
  ProgramCache cache(context, "");
  absl::StatusOr<std::shared_ptr<ClProgram>> program = cache.Build(kVectorAdd);
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<ClKernel> kernel = ProgramCache::CreateKernel(**program, "no_such_kernel");
  ASSERT_FALSE(kernel.ok());
  EXPECT_THAT(kernel.status().message(), HasSubstr("CL_INVALID_KERNEL_NAME"));
}

TEST(ProgramCacheTest, DefaultCacheDirHonoursEnvironment) {
  setenv("DFC_CACHE_DIR", "/some/where", 1);
  EXPECT_EQ(DefaultCacheDir(), "/some/where");
  unsetenv("DFC_CACHE_DIR");
  EXPECT_FALSE(DefaultCacheDir().empty());
}

}  // namespace
}  // namespace dfc::cl

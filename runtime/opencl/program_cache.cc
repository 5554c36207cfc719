// The program cache (see program_cache.h).
#include "runtime/opencl/program_cache.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/env.h"
#include "base/status.h"
#include "runtime/opencl/cl_error.h"

namespace dfc::cl {
namespace {

// Bump when the file layout or the key text changes, so old files read as misses.
constexpr char kMagic[] = "DFCPROG1";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;
// Compiler logs of a generated kernel can repeat one error thousands of times.
constexpr size_t kMaxLogBytes = 4096;

uint64_t Fnv1a64(const std::string& text, uint64_t basis) {
  uint64_t hash = basis;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string Getenv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

void AppendU64(std::string& out, uint64_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// Reads a length-prefixed field at `pos`; false when the file is too short.
bool ReadField(const std::string& data, size_t& pos, std::string& field) {
  uint64_t size = 0;
  if (data.size() - pos < sizeof(size)) return false;
  std::memcpy(&size, data.data() + pos, sizeof(size));
  pos += sizeof(size);
  if (data.size() - pos < size) return false;
  field = data.substr(pos, size);
  pos += size;
  return true;
}

std::string BuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
      CL_SUCCESS) {
    return "(no build log)";
  }
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) !=
      CL_SUCCESS) {
    return "(no build log)";
  }
  log.resize(std::strlen(log.c_str()));
  if (log.size() > kMaxLogBytes) {
    const size_t dropped = log.size() - kMaxLogBytes;
    log.resize(kMaxLogBytes);
    absl::StrAppend(&log, "\n... (", dropped, " more bytes of log)");
  }
  return log;
}

// The binary of a program built for `device` alone; empty when the driver has none to give. A
// program made from source belongs to every device of its context (a device and its inline
// device), and its binaries are asked for all at once. PoCL 3.1 gives the one binary it has at
// the first place, whichever device it is for: where a single entry is not empty, it is taken.
std::string ProgramBinary(cl_program program, cl_device_id device) {
  cl_uint count = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof(count), &count, nullptr) !=
          CL_SUCCESS ||
      count == 0) {
    return "";
  }
  std::vector<cl_device_id> devices(count);
  std::vector<size_t> sizes(count);
  if (clGetProgramInfo(program, CL_PROGRAM_DEVICES, count * sizeof(cl_device_id), devices.data(),
                       nullptr) != CL_SUCCESS ||
      clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, count * sizeof(size_t), sizes.data(),
                       nullptr) != CL_SUCCESS) {
    return "";
  }
  const auto given = [](size_t n) { return n > 0; };
  size_t which = std::find(devices.begin(), devices.end(), device) - devices.begin();
  if (std::count_if(sizes.begin(), sizes.end(), given) == 1) {
    which = std::find_if(sizes.begin(), sizes.end(), given) - sizes.begin();
  }
  if (which >= count || sizes[which] == 0) return "";
  std::vector<std::string> binaries(count);
  std::vector<unsigned char*> pointers(count);
  for (cl_uint k = 0; k < count; ++k) {
    binaries[k].resize(sizes[k]);
    pointers[k] = reinterpret_cast<unsigned char*>(binaries[k].data());
  }
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, count * sizeof(unsigned char*),
                       pointers.data(), nullptr) != CL_SUCCESS) {
    return "";
  }
  return std::move(binaries[which]);
}

}  // namespace

std::string DefaultCacheDir() {
  if (std::string dir = Getenv("DFC_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string xdg = Getenv("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/dfc/programs";
  if (std::string home = Getenv("HOME"); !home.empty()) return home + "/.cache/dfc/programs";
  return "/tmp/dfc-cache";
}

ProgramCache::ProgramCache(std::shared_ptr<ClContext> context, std::string cache_dir,
                           SavePolicy save)
    : context_(std::move(context)), cache_dir_(std::move(cache_dir)), save_(save) {}

ProgramCache::SavePolicy ProgramCache::DefaultSavePolicy() {
  return EnvChoice<SavePolicy>("DFC_CACHE_SAVE", {{"first-build", SavePolicy::kFirstBuild},
                                                  {"second-build", SavePolicy::kSecondBuild}});
}

std::string ProgramCache::KeyText(const std::string& source, const std::string& options) const {
  const DeviceInfo& info = context_->target();
  return absl::StrCat("platform: ", info.platform_name, "\ndevice: ", info.device_name,
                      "\ndriver: ", info.driver_version, "\nversion: ", info.device_version,
                      "\noptions: ", options, "\nsource:\n", source);
}

std::string ProgramCache::CachePath(const std::string& key) const {
  return absl::StrFormat("%s/%016x%016x.bin", cache_dir_, Fnv1a64(key, 0xcbf29ce484222325ULL),
                         Fnv1a64(key, 0x84222325cbf29ce4ULL));
}

absl::StatusOr<std::shared_ptr<ClProgram>> ProgramCache::Build(const std::string& source,
                                                               const std::string& options) {
  const std::string key = KeyText(source, options);
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = programs_.find(key); it != programs_.end()) {
    ++memory_hits_;
    return it->second;
  }
  const std::string path = cache_dir_.empty() ? "" : CachePath(key);
  const std::optional<std::string> stored = path.empty() ? std::nullopt : ReadFromDisk(path, key);
  std::shared_ptr<ClProgram> result;
  if (stored.has_value() && !stored->empty()) {
    // A driver that refuses the binary (another version wrote it) only means a source build.
    if (absl::StatusOr<ClProgram> loaded = LoadBinary(*stored, options); loaded.ok()) {
      ++loads_from_disk_;
      result = std::make_shared<ClProgram>(std::move(loaded).value());
    }
  }
  if (result == nullptr) {
    DFC_ASSIGN_OR_RETURN(ClProgram built, BuildFromSource(source, options));
    ++builds_from_source_;
    if (std::string log = BuildLog(built.get(), context_->device());
        absl::StrContains(log, "warning")) {
      build_warnings_.push_back(std::move(log));
    }
    if (!path.empty()) {
      // Under kSecondBuild a file of this key's, the key alone, is what says it was built before.
      const bool binary_now = save_ == SavePolicy::kFirstBuild || stored.has_value();
      WriteToDisk(path, key, binary_now ? ProgramBinary(built.get(), context_->device()) : "");
    }
    result = std::make_shared<ClProgram>(std::move(built));
  }
  programs_.emplace(key, result);
  return result;
}

absl::StatusOr<ClProgram> ProgramCache::BuildFromSource(const std::string& source,
                                                        const std::string& options) const {
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int err = CL_SUCCESS;
  ClProgram program(clCreateProgramWithSource(context_->context(), 1, &text, &length, &err));
  DFC_RETURN_IF_ERROR(ClStatus(err, "clCreateProgramWithSource"));
  const cl_device_id device = context_->device();
  err = clBuildProgram(program.get(), 1, &device, options.c_str(), nullptr, nullptr);
  if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS) {
    return absl::InvalidArgumentError(absl::StrCat("OpenCL program failed to build (",
                                                   ClErrorName(err), ", options \"", options,
                                                   "\"):\n", BuildLog(program.get(), device)));
  }
  DFC_RETURN_IF_ERROR(ClStatus(err, "clBuildProgram"));
  return program;
}

std::optional<std::string> ProgramCache::ReadFromDisk(const std::string& path,
                                                      const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = kMagicSize;
  std::string stored_key, binary;
  if (data.compare(0, kMagicSize, kMagic) != 0 || !ReadField(data, pos, stored_key) ||
      stored_key != key || !ReadField(data, pos, binary) || pos != data.size()) {
    return std::nullopt;
  }
  return binary;
}

absl::StatusOr<ClProgram> ProgramCache::LoadBinary(const std::string& binary,
                                                   const std::string& options) const {
  const cl_device_id device = context_->device();
  const size_t length = binary.size();
  const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
  cl_int binary_status = CL_SUCCESS;
  cl_int err = CL_SUCCESS;
  ClProgram program(clCreateProgramWithBinary(context_->context(), 1, &device, &length, &bytes,
                                              &binary_status, &err));
  DFC_RETURN_IF_ERROR(ClStatus(err, "clCreateProgramWithBinary"));
  DFC_RETURN_IF_ERROR(ClStatus(binary_status, "clCreateProgramWithBinary (binary status)"));
  DFC_CL_RETURN_IF_ERROR(
      clBuildProgram(program.get(), 1, &device, options.c_str(), nullptr, nullptr));
  return program;
}

void ProgramCache::WriteToDisk(const std::string& path, const std::string& key,
                               const std::string& binary) const {
  std::string data(kMagic, kMagicSize);
  AppendU64(data, key.size());
  data += key;
  AppendU64(data, binary.size());
  data += binary;

  std::error_code ec;
  std::filesystem::create_directories(cache_dir_, ec);
  if (ec) return;
  // Unique per process and per call, in the same directory so that rename is atomic.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = absl::StrCat(path, ".tmp.", getpid(), ".", counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

absl::StatusOr<ClKernel> ProgramCache::CreateKernel(const ClProgram& program,
                                                    const std::string& name) {
  cl_int err = CL_SUCCESS;
  ClKernel kernel(clCreateKernel(program.get(), name.c_str(), &err));
  DFC_RETURN_IF_ERROR(ClStatus(err, absl::StrCat("clCreateKernel(\"", name, "\")")));
  return kernel;
}

int64_t ProgramCache::builds_from_source() const {
  std::lock_guard<std::mutex> lock(mu_);
  return builds_from_source_;
}

int64_t ProgramCache::loads_from_disk() const {
  std::lock_guard<std::mutex> lock(mu_);
  return loads_from_disk_;
}

std::vector<std::string> ProgramCache::build_warnings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return build_warnings_;
}

int64_t ProgramCache::memory_hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return memory_hits_;
}

}  // namespace dfc::cl

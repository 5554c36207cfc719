// Builds OpenCL programs once: an in-memory map for this process and a directory of program
// binaries for the next one, so a second run of the same model compiles no OpenCL C at all.
#ifndef DFC_RUNTIME_OPENCL_PROGRAM_CACHE_H_
#define DFC_RUNTIME_OPENCL_PROGRAM_CACHE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/opencl/context.h"
#include "runtime/opencl/handles.h"

namespace dfc::cl {

// $DFC_CACHE_DIR if set, else $XDG_CACHE_HOME/dfc/programs, else $HOME/.cache/dfc/programs,
// else /tmp/dfc-cache.
std::string DefaultCacheDir();

// Programs are built for the context's target device (ClContext::target: its device, or its
// inline device while that is in use), and keyed by the source, the build options and that
// device's platform name, device name, driver version and device version, since a binary is only
// valid for the driver that made it.
// The file name is a 128-bit FNV-1a hash of that key (two 64-bit hashes with different offset
// bases). It is not cryptographic: each file also stores the full key text, and a file whose
// key differs is treated as a miss.
//
// Lookup: the in-memory map, then `<cache_dir>/<hex key>.bin`, then a build from source, whose
// binary is then written to the directory (atomically: a temporary file renamed into place, so
// concurrent processes never read half a file). A cache file that cannot be loaded for any
// reason falls back to a source build; a cache that cannot be written is not an error.
//
// When the binary is written is the SavePolicy's choice, since a binary need not be cheap: PoCL
// compiles every kernel of a program again to produce one, as long as the build itself.
//
// Thread-safe. One mutex is held across a build so that the process never builds the same
// program twice; builds are therefore serialised, which costs nothing for one queue.
class ProgramCache {
 public:
  enum class SavePolicy {
    // A program's binary is written at its first build, so that a second process builds
    // nothing: what a user running a model again expects.
    kFirstBuild,
    // The first build writes the key alone, and the binary is written when the program is
    // built again: for workloads that build most programs once (a test suite, a fuzzer), where
    // a binary would cost a second compile for nothing. PoCL's own kernel cache makes that
    // second build a fraction of the first.
    kSecondBuild,
  };

  // An empty `cache_dir` keeps the cache in memory only.
  explicit ProgramCache(std::shared_ptr<ClContext> context,
                        std::string cache_dir = DefaultCacheDir(),
                        SavePolicy save = DefaultSavePolicy());

  // $DFC_CACHE_SAVE: "second-build" is kSecondBuild; unset, empty or "first-build" is
  // kFirstBuild; any other value is kFirstBuild, with a warning on stderr.
  static SavePolicy DefaultSavePolicy();

  // The built program for `source` and `options`. A build failure is InvalidArgument carrying
  // the compiler's log (trimmed to a few KB).
  absl::StatusOr<std::shared_ptr<ClProgram>> Build(const std::string& source,
                                                   const std::string& options = "");

  static absl::StatusOr<ClKernel> CreateKernel(const ClProgram& program, const std::string& name);

  const std::string& cache_dir() const { return cache_dir_; }
  // How each Build() call was answered: for tests, and for the command line to show that a
  // second run rebuilt nothing.
  int64_t builds_from_source() const;
  int64_t loads_from_disk() const;
  int64_t memory_hits() const;
  // The compiler's logs of the source builds that warned (generated code should not).
  std::vector<std::string> build_warnings() const;

 private:
  std::string KeyText(const std::string& source, const std::string& options) const;
  std::string CachePath(const std::string& key) const;
  absl::StatusOr<ClProgram> BuildFromSource(const std::string& source,
                                            const std::string& options) const;
  // The binary stored for `key` at `path`: nullopt when there is no file for this key (none, a
  // corrupt one, another key's), empty for a file that holds the key alone.
  static std::optional<std::string> ReadFromDisk(const std::string& path, const std::string& key);
  absl::StatusOr<ClProgram> LoadBinary(const std::string& binary, const std::string& options) const;
  // Writes `binary` (empty: the key alone) to `path`.
  void WriteToDisk(const std::string& path, const std::string& key,
                   const std::string& binary) const;

  std::shared_ptr<ClContext> context_;
  std::string cache_dir_;
  SavePolicy save_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<ClProgram>> programs_;  // by key text
  int64_t builds_from_source_ = 0, loads_from_disk_ = 0, memory_hits_ = 0;
  std::vector<std::string> build_warnings_;
};

}  // namespace dfc::cl

#endif  // DFC_RUNTIME_OPENCL_PROGRAM_CACHE_H_

// Kernel times from the profiler's device events (see kernel_timer.h).
#include "runtime/kernel_timer.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace dfc {

namespace {

// The least the profiler must record for `found`'s records and the kernels' times both.
profiler::State WithKernels(profiler::State found) {
  switch (found) {
    case profiler::State::kDisabled:
      return profiler::State::kKernels;
    case profiler::State::kHost:
      return profiler::State::kHostAndDevice;
    default:
      return found;
  }
}

}  // namespace

KernelTimer::KernelTimer() : found_(profiler::GetState()) {
  profiler::SetState(WithKernels(found_));
}

KernelTimer::~KernelTimer() {
  profiler::SetState(found_);
  // The events left hold their OpenCL events until collected. Destructors never fail: an error
  // reading them is nothing to report here.
  if (found_ == profiler::State::kDisabled) (void)profiler::Collect();
}

absl::StatusOr<std::vector<profiler::DeviceEvent>> KernelTimer::Take() {
  absl::StatusOr<profiler::Profile> profile = profiler::Collect();
  if (!profile.ok()) return profile.status();
  if (profile->dropped > 0) {
    return absl::ResourceExhaustedError(absl::StrCat("the profiler dropped ", profile->dropped,
                                                     " events past its cap of ", profile->cap,
                                                     ": the kernel times would be incomplete"));
  }
  std::vector<profiler::DeviceEvent> kernels;
  for (profiler::DeviceEvent& e : profile->device) {
    if (e.info.kind != profiler::DeviceEventKind::kKernel || e.info.cluster < 0) continue;
    if (!e.error.empty()) {
      return absl::InternalError(
          absl::StrCat("kernel ", e.info.name, " of cluster ", e.info.cluster, ": ", e.error));
    }
    kernels.push_back(std::move(e));
  }
  return kernels;
}

absl::Status KernelTimer::Drop() { return profiler::Collect().status(); }

int64_t KernelNanoseconds(const std::vector<profiler::DeviceEvent>& kernels, int cluster) {
  int64_t ns = 0;
  for (const profiler::DeviceEvent& e : kernels) {
    if (cluster < 0 || e.info.cluster == cluster) ns += e.end_ns - e.start_ns;
  }
  return ns;
}

}  // namespace dfc

// Kernel times, from the profiler's records alone (runtime/profiler/): while the profiler records
// device events, every launch of a cluster's kernel leaves one that names its cluster and its
// kernel, timed from the OpenCL event's start to its end (a CLBlast call from the marker enqueued
// just before it: RecordDeviceEvent's `since`). The tuner, the benchmarks and `dfc bench` time
// kernels by these events; the executor keeps no times of its own.
#ifndef DFC_RUNTIME_KERNEL_TIMER_H_
#define DFC_RUNTIME_KERNEL_TIMER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/profiler/profiler.h"

namespace dfc {

// Turns the profiler's kernel events on for its lifetime (State::kKernels, or kHostAndDevice
// where the host's spans were being recorded) and takes what it records.
// The profiler is the process's: a timer takes (Collects) every event recorded while it lives,
// so nothing else profiles meanwhile. When it dies it puts back the state it found and drops
// what it did not take.
class KernelTimer {
 public:
  KernelTimer();
  ~KernelTimer();
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  // The launches of clusters' kernels recorded since the timer began, or since the last Take or
  // Drop, in the order they started (a variable's update, which belongs to no cluster, is left
  // out). Waits for them to finish. An error if the profiler dropped events (its cap,
  // profiler::SetEventCap) or could not read an event's times.
  absl::StatusOr<std::vector<profiler::DeviceEvent>> Take();

  // Drops what was recorded so far: runs that are not to be timed (initialisers, a check).
  absl::Status Drop();

 private:
  profiler::State found_;
};

// The device time of the launches among `kernels` of cluster `cluster` (of every cluster if -1),
// in nanoseconds.
int64_t KernelNanoseconds(const std::vector<profiler::DeviceEvent>& kernels, int cluster = -1);

}  // namespace dfc

#endif  // DFC_RUNTIME_KERNEL_TIMER_H_

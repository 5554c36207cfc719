// The embedded event profiler: host spans and marks, OpenCL kernel and transfer events, and
// the graph nodes each kernel computes. It depends on nothing of dfc, so any C++ program can
// use it: switch it on, record, Collect(), then write a Chrome trace (chrome_trace.h) or a
// report (report.h).
//
// Recording follows PaddlePaddle's operator profiler: a RAII span pushes on construction and
// pops on destruction; every thread appends to its own event block, registered once under a
// lock and written without one, so recording threads never contend. A global state (disabled,
// kernels only, host only, host and device) is read with one relaxed load: a disabled span
// costs that load and a branch. Device events keep their cl_event until Collect() reads its queued,
// submit, start and end times and maps them onto the host clock (clock.h).
#ifndef DFC_RUNTIME_PROFILER_PROFILER_H_
#define DFC_RUNTIME_PROFILER_PROFILER_H_

#include <CL/cl.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace dfc::profiler {

// kKernels records the kernels' device events alone, each with its name and cluster and
// nothing estimated: what a timer needs (runtime/kernel_timer.h), at the least cost to the run
// it times. kHost records host spans and marks; kHostAndDevice adds every device event (kernels
// with their graph nodes and estimated work, and transfers).
enum class State : int { kDisabled = 0, kKernels = 1, kHost = 2, kHostAndDevice = 3 };

namespace internal {
inline std::atomic<int> g_state{0};
}  // namespace internal

// Switchable at any time, from any thread. A span open when the state changes is recorded as
// it began: one begun enabled is closed and kept, one begun disabled is never kept.
void SetState(State state);
inline State GetState() {
  return static_cast<State>(internal::g_state.load(std::memory_order_relaxed));
}
inline bool HostEnabled() { return GetState() >= State::kHost; }
// Every device event, described in full.
inline bool DeviceEnabled() { return GetState() == State::kHostAndDevice; }
// Kernels' device events, at least (the queue must record times).
inline bool KernelsEnabled() {
  const State s = GetState();
  return s == State::kKernels || s == State::kHostAndDevice;
}

// Nanoseconds of the host's steady clock, the time base of every event.
int64_t NowNs();

// A host span: from construction to destruction, on the constructing thread. Spans nest;
// the destructor must run on the same thread (RAII makes it so).
class RecordEvent {
 public:
  explicit RecordEvent(std::string_view name) {
    if (!HostEnabled()) [[likely]]
      return;
    Begin(name);
  }
  ~RecordEvent() {
    if (active_) End();
  }
  RecordEvent(const RecordEvent&) = delete;
  RecordEvent& operator=(const RecordEvent&) = delete;

  // The span's id, which device events launched inside it name as their launch (0 when the
  // span is not recorded).
  uint64_t id() const { return id_; }

 private:
  void Begin(std::string_view name);
  void End();

  bool active_ = false;
  uint64_t id_ = 0;
  int64_t start_ns_ = 0;
  std::string name_;
};

// An instant on the calling thread's row.
void Mark(std::string_view name, std::string_view message = {});

// Names the calling thread's row in traces ("main", "worker 3").
void SetThreadName(std::string_view name);

enum class DeviceEventKind : uint8_t { kKernel, kTransfer };
enum class Direction : uint8_t { kNone, kHostToDevice, kDeviceToHost, kDeviceToDevice };
const char* DirectionName(Direction d);

// What a launch or a transfer is, given when it is enqueued.
struct DeviceEventInfo {
  DeviceEventKind kind = DeviceEventKind::kKernel;
  std::string name;                // the kernel's name, or "write"/"read"/"copy"
  std::vector<std::string> nodes;  // the graph nodes it computes (kernels)
  std::vector<double> node_work;   // each node's estimated work, the attribution's weights
  int cluster = -1;                // kernels: the cluster of the graph it computes, or -1
  int dims = 0;                    // kernels: the NDRange
  std::array<size_t, 3> global{};
  std::array<size_t, 3> local{};  // all 0: left to the driver
  int64_t bytes = 0;              // transfers: the bytes moved; kernels: the bytes read and written
  double flops = 0;               // kernels: the operations of its graph nodes
  // Kernels: the operations its code performs, where it is generated (0 otherwise); above
  // `flops` where the kernel computes a value again for each read of it.
  double work = 0;
  // Kernels: what writing its outputs and reading them back is worth in operations
  // (ir::StoreOps): work beyond `flops` that stays under it costs no time over the kernel's floor.
  double store_work = 0;
  Direction direction = Direction::kNone;
  uint64_t launch = 0;  // the id of the host span that enqueued it, or 0
};

// Keeps `event` (retained here) until Collect() reads its times. Does nothing unless the state
// records events of its kind (a kernel's: KernelsEnabled; a transfer's: DeviceEnabled); the
// queue must have been created with CL_QUEUE_PROFILING_ENABLE.
// `since`, if given (retained too), is a marker enqueued on the same in-order queue before the
// commands `event` ends: the event is then taken to start where the marker ends, so that a
// routine that enqueues several kernels and returns its last one's event (CLBlast's GEMM pads
// and transposes its operands first) is timed whole.
void RecordDeviceEvent(cl_event event, cl_command_queue queue, DeviceEventInfo info,
                       cl_event since = nullptr);

// One recorded host event, its times on the host clock.
struct HostEvent {
  enum class Kind : uint8_t { kSpan, kMark };
  Kind kind = Kind::kSpan;
  std::string name;
  std::string message;  // marks
  int64_t start_ns = 0;
  int64_t end_ns = 0;  // = start_ns for a mark
  int depth = 0;       // 0 for an outermost span
  uint64_t id = 0;
  int thread = 0;  // index into Profile::threads
};

// One device event, its times mapped onto the host clock.
struct DeviceEvent {
  DeviceEventInfo info;
  int queue = 0;  // index into Profile::queues
  int64_t queued_ns = 0, submit_ns = 0, start_ns = 0, end_ns = 0;
  std::string error;  // set when the event failed or its times could not be read
};

struct ThreadInfo {
  int64_t os_id = 0;
  std::string name;
};

struct QueueInfo {
  std::string device;     // the device's name
  int64_t offset_ns = 0;  // host = device + offset
  std::string clock;      // how the offset was found
};

// Everything recorded since the previous Collect().
struct Profile {
  std::vector<ThreadInfo> threads;
  std::vector<QueueInfo> queues;
  std::vector<HostEvent> host;      // ordered by start, then outer before inner
  std::vector<DeviceEvent> device;  // ordered by start
  int64_t dropped = 0;              // events not kept: the cap was reached
  int64_t cap = 0;
};

// At most this many host and device events are kept between two Collect() calls; the rest
// are counted in Profile::dropped. 0: no cap.
void SetEventCap(int64_t cap);

// Waits for the recorded device events, reads their times, and returns everything recorded
// since the last call. Call it from one thread at a time.
absl::StatusOr<Profile> Collect();

}  // namespace dfc::profiler

#endif  // DFC_RUNTIME_PROFILER_PROFILER_H_

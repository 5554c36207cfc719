// The profiler's recording and collection (see profiler.h).
#include "runtime/profiler/profiler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "runtime/profiler/clock.h"
#include "runtime/profiler/event_log.h"

namespace dfc::profiler {
namespace {

// A device event between its launch and Collect(): the cl_event is retained.
struct PendingDevice {
  cl_event event = nullptr;
  cl_event since = nullptr;  // a marker before it, or null
  cl_command_queue queue = nullptr;
  int64_t recorded_ns = 0;
  DeviceEventInfo info;
};

// One thread's event block. Owned jointly by the thread (its thread_local) and the registry,
// so a thread that exits leaves its events to be collected.
struct ThreadBlock {
  int index = 0;
  int64_t os_id = 0;
  std::string name;  // guarded by Registry::mutex
  int depth = 0;     // the owning thread's open spans
  EventLog<HostEvent> host;
  EventLog<PendingDevice> device;
};

// A device's clock offset, as AlignQueueClock estimated it at `at_ns`.
struct AlignedClock {
  QueueInfo info;
  int64_t at_ns = 0;
};

// How long an estimated clock offset is reused. Estimated at every Collect, a timer that
// collects after each run (KernelTimer) put seven blocking writes between the runs it times
// where the device lacks paired timers (PoCL's CPU device here), and PoCL's next small kernel
// ran about 0.05 ms longer (bench/README.md). A second is far below any drift between the clocks.
constexpr int64_t kClockReuseNs = 1'000'000'000;

struct Registry {
  std::mutex mutex;
  std::vector<std::shared_ptr<ThreadBlock>> threads;
  absl::flat_hash_map<cl_device_id, AlignedClock> clocks;  // by the queue's device
  std::atomic<uint64_t> next_id{1};
  std::atomic<int64_t> kept{0};  // events appended since the last Collect
  std::atomic<int64_t> dropped{0};
  std::atomic<int64_t> cap{0};
};

Registry& GetRegistry() {
  static Registry* registry = new Registry;  // never destroyed: threads may outlive main
  return *registry;
}

ThreadBlock& ThisThread() {
  thread_local std::shared_ptr<ThreadBlock> block = [] {
    auto b = std::make_shared<ThreadBlock>();
    b->os_id = static_cast<int64_t>(syscall(SYS_gettid));
    Registry& r = GetRegistry();
    std::lock_guard lock(r.mutex);
    b->index = static_cast<int>(r.threads.size());
    b->name = absl::StrCat("thread ", b->index);
    r.threads.push_back(b);
    return b;
  }();
  return *block;
}

// Whether one more event may be kept under the cap; counts it either way.
bool Admit() {
  Registry& r = GetRegistry();
  const int64_t cap = r.cap.load(std::memory_order_relaxed);
  if (cap > 0 && r.kept.fetch_add(1, std::memory_order_relaxed) >= cap) {
    r.dropped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

}  // namespace

void SetState(State state) {
  internal::g_state.store(static_cast<int>(state), std::memory_order_relaxed);
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void RecordEvent::Begin(std::string_view name) {
  ThreadBlock& t = ThisThread();
  ++t.depth;
  active_ = true;
  id_ = GetRegistry().next_id.fetch_add(1, std::memory_order_relaxed);
  name_.assign(name);
  start_ns_ = NowNs();
}

void RecordEvent::End() {
  const int64_t end = NowNs();
  ThreadBlock& t = ThisThread();
  --t.depth;
  if (!Admit()) return;
  t.host.Append(HostEvent{.kind = HostEvent::Kind::kSpan,
                          .name = std::move(name_),
                          .start_ns = start_ns_,
                          .end_ns = end,
                          .depth = t.depth,
                          .id = id_,
                          .thread = t.index});
}

void Mark(std::string_view name, std::string_view message) {
  if (!HostEnabled()) return;
  const int64_t now = NowNs();
  ThreadBlock& t = ThisThread();
  if (!Admit()) return;
  t.host.Append(HostEvent{.kind = HostEvent::Kind::kMark,
                          .name = std::string(name),
                          .message = std::string(message),
                          .start_ns = now,
                          .end_ns = now,
                          .depth = t.depth,
                          .id = GetRegistry().next_id.fetch_add(1, std::memory_order_relaxed),
                          .thread = t.index});
}

void SetThreadName(std::string_view name) {
  ThreadBlock& t = ThisThread();
  std::lock_guard lock(GetRegistry().mutex);
  t.name = std::string(name);
}

const char* DirectionName(Direction d) {
  switch (d) {
    case Direction::kNone:
      return "";
    case Direction::kHostToDevice:
      return "host to device";
    case Direction::kDeviceToHost:
      return "device to host";
    case Direction::kDeviceToDevice:
      return "device to device";
  }
  return "";
}

void RecordDeviceEvent(cl_event event, cl_command_queue queue, DeviceEventInfo info,
                       cl_event since) {
  const bool recorded = info.kind == DeviceEventKind::kKernel ? KernelsEnabled() : DeviceEnabled();
  if (!recorded || event == nullptr) return;
  ThreadBlock& t = ThisThread();
  if (!Admit()) return;
  if (clRetainEvent(event) != CL_SUCCESS) return;
  if (since != nullptr && clRetainEvent(since) != CL_SUCCESS) since = nullptr;
  t.device.Append(PendingDevice{.event = event,
                                .since = since,
                                .queue = queue,
                                .recorded_ns = NowNs(),
                                .info = std::move(info)});
}

void SetEventCap(int64_t cap) { GetRegistry().cap.store(cap, std::memory_order_relaxed); }

namespace {

// `queue`'s clock offset: its device's, estimated again when older than kClockReuseNs.
QueueInfo ClockOf(Registry& r, cl_command_queue queue) {
  cl_device_id device = nullptr;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(device), &device, nullptr) !=
      CL_SUCCESS) {
    return AlignQueueClock(queue);  // which says the device is unknown
  }
  const int64_t now = NowNs();
  {
    std::lock_guard lock(r.mutex);
    auto it = r.clocks.find(device);
    if (it != r.clocks.end() && now - it->second.at_ns < kClockReuseNs) return it->second.info;
  }
  QueueInfo info = AlignQueueClock(queue);
  std::lock_guard lock(r.mutex);
  r.clocks[device] = {.info = info, .at_ns = now};
  return info;
}

}  // namespace

absl::StatusOr<Profile> Collect() {
  Registry& r = GetRegistry();
  Profile profile;
  std::vector<PendingDevice> pending;
  {
    std::lock_guard lock(r.mutex);
    for (const std::shared_ptr<ThreadBlock>& t : r.threads) {
      profile.threads.push_back({.os_id = t->os_id, .name = t->name});
      t->host.Drain([&](HostEvent&& e) { profile.host.push_back(std::move(e)); });
      t->device.Drain([&](PendingDevice&& d) { pending.push_back(std::move(d)); });
    }
  }
  profile.dropped = r.dropped.exchange(0, std::memory_order_relaxed);
  profile.cap = r.cap.load(std::memory_order_relaxed);
  r.kept.store(0, std::memory_order_relaxed);

  // The start of each span, so that a device event can be kept from starting before its launch.
  absl::flat_hash_map<uint64_t, int64_t> span_start;
  for (const HostEvent& e : profile.host) span_start[e.id] = e.start_ns;

  absl::flat_hash_map<cl_command_queue, int> queues;
  for (PendingDevice& p : pending) {
    DeviceEvent d{.info = std::move(p.info)};
    auto [it, fresh] = queues.try_emplace(p.queue, static_cast<int>(profile.queues.size()));
    if (fresh) profile.queues.push_back(ClockOf(r, p.queue));
    d.queue = it->second;
    const QueueInfo& q = profile.queues[d.queue];
    cl_int status = clWaitForEvents(1, &p.event);
    std::array<cl_ulong, 4> t{};
    const std::array<cl_profiling_info, 4> which = {
        CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END};
    for (int k = 0; k < 4 && status == CL_SUCCESS; ++k) {
      status = clGetEventProfilingInfo(p.event, which[k], sizeof(cl_ulong), &t[k], nullptr);
    }
    if (p.since != nullptr) {
      // Queued and submitted with the marker, started where it ended (never later than the
      // last command itself started).
      const std::array<cl_profiling_info, 3> marker = {
          CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_END};
      std::array<cl_ulong, 3> m{};
      for (int k = 0; k < 3 && status == CL_SUCCESS; ++k) {
        status = clGetEventProfilingInfo(p.since, marker[k], sizeof(cl_ulong), &m[k], nullptr);
      }
      t[0] = std::min(t[0], m[0]);
      t[1] = std::min(t[1], m[1]);
      t[2] = std::min(t[2], m[2]);
      clReleaseEvent(p.since);
    }
    clReleaseEvent(p.event);
    if (status != CL_SUCCESS) {
      d.error = absl::StrCat("its times could not be read (OpenCL error ", status,
                             "; was the queue made with profiling?)");
      d.queued_ns = d.submit_ns = d.start_ns = d.end_ns = p.recorded_ns;
      profile.device.push_back(std::move(d));
      continue;
    }
    d.queued_ns = static_cast<int64_t>(t[0]) + q.offset_ns;
    d.submit_ns = static_cast<int64_t>(t[1]) + q.offset_ns;
    d.start_ns = static_cast<int64_t>(t[2]) + q.offset_ns;
    d.end_ns = static_cast<int64_t>(t[3]) + q.offset_ns;
    // The estimated offset has an error of a few microseconds; a device event never appears to
    // start before the host launched it, so an event that would is moved later as a whole.
    auto launch = span_start.find(d.info.launch);
    const int64_t earliest = launch != span_start.end() ? launch->second : 0;
    if (earliest > 0 && d.queued_ns < earliest) {
      const int64_t shift = earliest - d.queued_ns;
      d.queued_ns += shift;
      d.submit_ns += shift;
      d.start_ns += shift;
      d.end_ns += shift;
    }
    profile.device.push_back(std::move(d));
  }

  std::stable_sort(profile.host.begin(), profile.host.end(),
                   [](const HostEvent& a, const HostEvent& b) {
                     if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
                     return a.depth < b.depth;
                   });
  std::stable_sort(
      profile.device.begin(), profile.device.end(),
      [](const DeviceEvent& a, const DeviceEvent& b) { return a.start_ns < b.start_ns; });
  return profile;
}

}  // namespace dfc::profiler

// Tests of the event profiler: spans nest, threads record at once, the state switches in the
// middle of a run, device events are timed and aligned with the host clock, the Chrome trace
// parses and has its structure, and the report's sums agree with the trace. OpenCL is used
// directly (the profiler depends on nothing of dfc), on the first device there is.
#include "runtime/profiler/profiler.h"

#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/profiler/chrome_trace.h"
#include "runtime/profiler/report.h"

namespace dfc::profiler {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// Every test starts from an empty, disabled profiler and leaves it so.
class ProfilerTest : public ::testing::Test {
 protected:
  void SetUp() override { Reset(); }
  void TearDown() override { Reset(); }
  static void Reset() {
    SetState(State::kDisabled);
    SetEventCap(0);
    ASSERT_TRUE(Collect().ok());
  }
};

// Whether every two slices are nested or disjoint.
bool StrictlyNested(std::vector<std::pair<double, double>> slices) {
  std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  std::vector<double> open_ends;
  for (const auto& [start, end] : slices) {
    while (!open_ends.empty() && open_ends.back() <= start) open_ends.pop_back();
    if (!open_ends.empty() && end > open_ends.back()) return false;
    open_ends.push_back(end);
  }
  return true;
}

TEST_F(ProfilerTest, ADisabledSpanRecordsNothing) {
  { RecordEvent span("off"); }
  Mark("off");
  absl::StatusOr<Profile> p = Collect();
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->host.empty());
}

TEST_F(ProfilerTest, SpansNestAndMarksSitInside) {
  SetState(State::kHost);
  {
    RecordEvent outer("outer");
    {
      RecordEvent inner("inner");
      Mark("here", "a message");
    }
    RecordEvent second("second");
  }
  SetState(State::kDisabled);
  absl::StatusOr<Profile> p = Collect();
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->host.size(), 4u);
  std::map<std::string, HostEvent> by_name;
  for (const HostEvent& e : p->host) by_name[e.name] = e;
  const HostEvent& outer = by_name["outer"];
  EXPECT_EQ(outer.depth, 0);
  EXPECT_EQ(by_name["inner"].depth, 1);
  EXPECT_EQ(by_name["second"].depth, 1);
  EXPECT_EQ(by_name["here"].kind, HostEvent::Kind::kMark);
  EXPECT_EQ(by_name["here"].depth, 2);
  EXPECT_EQ(by_name["here"].message, "a message");
  for (const char* name : {"inner", "second", "here"}) {
    EXPECT_GE(by_name[name].start_ns, outer.start_ns) << name;
    EXPECT_LE(by_name[name].end_ns, outer.end_ns) << name;
  }
  EXPECT_LE(by_name["inner"].end_ns, by_name["second"].start_ns);
  EXPECT_EQ(p->host.front().name, "outer");  // ordered by start, outer first
  // Collected events are gone from the profiler.
  EXPECT_TRUE(Collect()->host.empty());
}

// Each thread writes its own block: all events arrive, each on its thread's row, nested.
TEST_F(ProfilerTest, ManyThreadsRecordAtOnce) {
  SetState(State::kHost);
  constexpr int kThreads = 8, kSpans = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      SetThreadName("worker " + std::to_string(t));
      for (int k = 0; k < kSpans; ++k) {
        RecordEvent outer("outer");
        RecordEvent inner("inner");
      }
    });
  }
  // Collecting while the threads record loses nothing and reads no half-written event.
  int64_t collected = 0;
  std::vector<HostEvent> all;
  for (int k = 0; k < 20; ++k) {
    absl::StatusOr<Profile> p = Collect();
    ASSERT_TRUE(p.ok());
    all.insert(all.end(), p->host.begin(), p->host.end());
  }
  for (std::thread& t : threads) t.join();
  SetState(State::kDisabled);
  absl::StatusOr<Profile> p = Collect();
  ASSERT_TRUE(p.ok());
  all.insert(all.end(), p->host.begin(), p->host.end());
  collected = static_cast<int64_t>(all.size());
  EXPECT_EQ(collected, 2 * kThreads * kSpans);
  std::map<int, int> per_thread;
  for (const HostEvent& e : all) ++per_thread[e.thread];
  EXPECT_EQ(per_thread.size(), static_cast<size_t>(kThreads));
  for (const auto& [thread, n] : per_thread) EXPECT_EQ(n, 2 * kSpans) << "thread " << thread;
  std::set<std::string> names;
  for (const ThreadInfo& t : p->threads) names.insert(t.name);
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(names.contains("worker " + std::to_string(t)));
  for (const auto& [thread, n] : per_thread) {
    std::vector<std::pair<double, double>> slices;
    for (const HostEvent& e : all) {
      if (e.thread == thread) slices.emplace_back(e.start_ns, e.end_ns);
    }
    EXPECT_TRUE(StrictlyNested(slices)) << "thread " << thread;
  }
}

// A span is kept or not as the state was when it began.
TEST_F(ProfilerTest, SwitchingInTheMiddleOfARun) {
  {
    RecordEvent begun_off("begun off");
    SetState(State::kHost);
    RecordEvent begun_on("begun on");
    SetState(State::kDisabled);
  }
  SetState(State::kHost);
  { RecordEvent after("after"); }
  SetState(State::kDisabled);
  absl::StatusOr<Profile> p = Collect();
  ASSERT_TRUE(p.ok());
  std::vector<std::string> names;
  for (const HostEvent& e : p->host) names.push_back(e.name);
  EXPECT_THAT(names, ::testing::ElementsAre("begun on", "after"));
  for (const HostEvent& e : p->host) EXPECT_EQ(e.depth, 0) << e.name;
}

TEST_F(ProfilerTest, TheCapDropsAndTheTraceSaysSo) {
  SetState(State::kHost);
  SetEventCap(10);
  for (int k = 0; k < 25; ++k) RecordEvent span("span");
  SetState(State::kDisabled);
  absl::StatusOr<Profile> p = Collect();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->host.size(), 10u);
  EXPECT_EQ(p->dropped, 15);
  const json trace = json::parse(ChromeTrace(*p, {.max_events = 4}));
  EXPECT_EQ(trace["otherData"]["written"], 4);
  EXPECT_THAT(trace["otherData"]["note"].get<std::string>(), HasSubstr("truncated"));
  absl::StatusOr<Report> report = BuildReport(*p);
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(FormatReport(*report), HasSubstr("15 events were dropped"));
}

// --- device events -------------------------------------------------------------------------------

// A context, a profiling queue and a small kernel on the first OpenCL device.
struct Device {
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  cl_mem buffer = nullptr;
  static constexpr size_t kN = 1 << 16;

  bool Open() {
    cl_platform_id platform;
    cl_device_id device;
    if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS) return false;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) {
      return false;
    }
    cl_int err;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) return false;
    queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) return false;
    const char* source =
        "__kernel void twice(__global float* x) { size_t i = get_global_id(0); x[i] = 2 * x[i]; }";
    program = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
    if (err != CL_SUCCESS || clBuildProgram(program, 1, &device, "", nullptr, nullptr)) {
      return false;
    }
    kernel = clCreateKernel(program, "twice", &err);
    if (err != CL_SUCCESS) return false;
    buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, kN * sizeof(float), nullptr, &err);
    return err == CL_SUCCESS && clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffer) == CL_SUCCESS;
  }
  ~Device() {
    if (buffer) clReleaseMemObject(buffer);
    if (kernel) clReleaseKernel(kernel);
    if (program) clReleaseProgram(program);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }

  // A blocking copy of the whole buffer, enqueued inside a launch span of its own.
  void Transfer(const std::string& name, Direction direction, float* host) {
    RecordEvent launch(name + " x");
    cl_event e = nullptr;
    const size_t bytes = kN * sizeof(float);
    if (direction == Direction::kHostToDevice) {
      clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, bytes, host, 0, nullptr, &e);
    } else {
      clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, host, 0, nullptr, &e);
    }
    RecordDeviceEvent(e, queue,
                      {.kind = DeviceEventKind::kTransfer,
                       .name = name,
                       .bytes = static_cast<int64_t>(bytes),
                       .direction = direction,
                       .launch = launch.id()});
    clReleaseEvent(e);
  }

  // One step: a write, a kernel and a read, each enqueued inside its own launch span.
  void Step(int k) {
    RecordEvent step("step");
    std::vector<float> host(kN, static_cast<float>(k));
    Transfer("write", Direction::kHostToDevice, host.data());
    {
      RecordEvent launch("launch twice");
      cl_event e = nullptr;
      const size_t global = kN, local = 64;
      clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, &e);
      RecordDeviceEvent(e, queue,
                        {.kind = DeviceEventKind::kKernel,
                         .name = "twice",
                         .nodes = {"mul", "cast"},
                         .node_work = {3, 1},
                         .dims = 1,
                         .global = {kN, 1, 1},
                         .local = {64, 1, 1},
                         .bytes = 2 * kN * sizeof(float),
                         .flops = kN,
                         .launch = launch.id()});
      clReleaseEvent(e);
    }
    Transfer("read", Direction::kDeviceToHost, host.data());
  }
};

Profile ProfileSteps(Device& device, int steps) {
  SetState(State::kHostAndDevice);
  for (int k = 0; k < steps; ++k) device.Step(k);
  SetState(State::kDisabled);
  absl::StatusOr<Profile> p = Collect();
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : Profile{};
}

// A device's clock offset is estimated once and reused by the Collects of the next second, so
// that a timer collecting after every run puts no timed writes between the runs it times.
TEST_F(ProfilerTest, ProfilesCollectedBackToBackShareTheirClockEstimate) {
  Device device;
  ASSERT_TRUE(device.Open());
  const Profile first = ProfileSteps(device, 1);
  const Profile second = ProfileSteps(device, 1);
  ASSERT_EQ(first.queues.size(), 1u);
  ASSERT_EQ(second.queues.size(), 1u);
  EXPECT_EQ(first.queues[0].offset_ns, second.queues[0].offset_ns);
  EXPECT_EQ(first.queues[0].clock, second.queues[0].clock);
}

TEST_F(ProfilerTest, DeviceEventsAreTimedAndNeverStartBeforeTheirLaunch) {
  Device device;
  ASSERT_TRUE(device.Open());
  const Profile p = ProfileSteps(device, 5);
  ASSERT_EQ(p.device.size(), 15u);
  ASSERT_EQ(p.queues.size(), 1u);
  EXPECT_FALSE(p.queues[0].device.empty());
  EXPECT_THAT(p.queues[0].clock, HasSubstr("within"));
  std::map<uint64_t, HostEvent> spans;
  for (const HostEvent& e : p.host) spans[e.id] = e;
  int64_t previous_end = 0;
  for (const DeviceEvent& d : p.device) {
    EXPECT_TRUE(d.error.empty()) << d.error;
    EXPECT_LE(d.queued_ns, d.submit_ns) << d.info.name;
    EXPECT_LE(d.submit_ns, d.start_ns) << d.info.name;
    EXPECT_LE(d.start_ns, d.end_ns) << d.info.name;
    ASSERT_TRUE(spans.contains(d.info.launch)) << d.info.name;
    EXPECT_GE(d.queued_ns, spans[d.info.launch].start_ns) << d.info.name;
    // An in-order queue: the times of successive commands do not go back, within the
    // driver's stamping: PoCL's stamps of a command's end and the next one's start overlapped
    // by 6 to 14 us under ASan (where the host side is slower), never without it. 50 us is a
    // small fraction of a step.
    constexpr int64_t kStampSlackNs = 50'000;
    EXPECT_GE(d.start_ns, previous_end - kStampSlackNs) << d.info.name;
    previous_end = d.end_ns;
  }
}

TEST_F(ProfilerTest, DeviceEventsAreNotKeptWhenOnlyTheHostIsProfiled) {
  Device device;
  ASSERT_TRUE(device.Open());
  SetState(State::kHost);
  device.Step(0);
  SetState(State::kDisabled);
  absl::StatusOr<Profile> p = Collect();
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->device.empty());
  EXPECT_EQ(p->host.size(), 4u);
}

// A timer's level: the kernels' device events and nothing else, no span and no transfer.
TEST_F(ProfilerTest, TheKernelsLevelKeepsOnlyKernelEvents) {
  Device device;
  ASSERT_TRUE(device.Open());
  SetState(State::kKernels);
  EXPECT_FALSE(HostEnabled());
  EXPECT_FALSE(DeviceEnabled());
  EXPECT_TRUE(KernelsEnabled());
  device.Step(0);
  Mark("ignored");
  SetState(State::kDisabled);
  absl::StatusOr<Profile> p = Collect();
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->host.empty());
  ASSERT_EQ(p->device.size(), 1u);
  EXPECT_EQ(p->device[0].info.kind, DeviceEventKind::kKernel);
  EXPECT_EQ(p->device[0].info.name, "twice");
  EXPECT_TRUE(p->device[0].error.empty()) << p->device[0].error;
  EXPECT_LE(p->device[0].start_ns, p->device[0].end_ns);
}

// The trace: rows named by metadata, X slices strictly nested per row, one flow from each
// launch to its device slice, kernel args naming the graph nodes and the sizes. Each end of a
// flow has the ts, pid, tid and category of a slice: Chrome DevTools binds it only to such a
// slice and draws no arrow otherwise.
TEST_F(ProfilerTest, TheChromeTraceHasItsStructure) {
  Device device;
  ASSERT_TRUE(device.Open());
  const Profile p = ProfileSteps(device, 3);
  const json trace = json::parse(ChromeTrace(p));
  ASSERT_TRUE(trace.contains("traceEvents"));
  std::map<std::pair<int, int>, std::string> row_names;
  std::map<int, std::string> process_names;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  std::map<int64_t, std::vector<json>> flows;
  std::set<std::tuple<double, int, int, std::string>> slice_starts;
  int kernels = 0;
  for (const json& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "thread_name")
      row_names[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (ph == "M" && e["name"] == "process_name") process_names[e["pid"]] = e["args"]["name"];
    if (ph == "X") {
      const double ts = e["ts"], dur = e["dur"];
      EXPECT_GE(dur, 0);
      slices[{e["pid"], e["tid"]}].emplace_back(ts, ts + dur);
      slice_starts.insert({ts, e["pid"], e["tid"], e["cat"]});
      EXPECT_TRUE(row_names.contains({e["pid"], e["tid"]})) << e.dump();
    }
    if (ph == "X" && e["pid"] == 2 && e["args"]["kind"] == "kernel") {
      ++kernels;
      EXPECT_EQ(e["args"]["nodes"], json({"mul", "cast"}));
      EXPECT_EQ(e["args"]["global_size"], json({Device::kN}));
      EXPECT_EQ(e["args"]["local_size"], json({64}));
    }
    if (ph == "s" || ph == "f") flows[e["id"]].push_back(e);
  }
  EXPECT_EQ(kernels, 3);
  EXPECT_EQ(process_names[1], "host");
  EXPECT_THAT(process_names[2], HasSubstr("device: "));
  EXPECT_EQ(flows.size(), 9u);  // 3 steps of write, kernel, read
  for (const auto& [id, pair] : flows) {
    ASSERT_EQ(pair.size(), 2u);
    EXPECT_EQ(pair[0]["ph"], "s");
    EXPECT_EQ(pair[0]["pid"], 1);
    EXPECT_EQ(pair[1]["ph"], "f");
    EXPECT_EQ(pair[1]["bp"], "e");
    EXPECT_EQ(pair[1]["pid"], 2);
    EXPECT_LE(pair[0]["ts"].get<double>(), pair[1]["ts"].get<double>());
    for (const json& end : pair) {
      EXPECT_TRUE(slice_starts.contains({end["ts"], end["pid"], end["tid"], end["cat"]}))
          << end.dump();
    }
  }
  for (const auto& [row, s] : slices) {
    EXPECT_TRUE(StrictlyNested(s)) << row_names[row];
  }
}

// The report's rows add up to the trace's slices, name by name, and the node rows share each
// kernel's time by the work given.
TEST_F(ProfilerTest, TheReportAgreesWithTheTrace) {
  Device device;
  ASSERT_TRUE(device.Open());
  const Profile p = ProfileSteps(device, 4);
  const json trace = json::parse(ChromeTrace(p));
  std::map<std::string, double> trace_ms;
  std::map<std::string, int> trace_calls;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    std::string name = e["name"];
    const std::string kind = e["pid"] == 2 ? e["args"]["kind"].get<std::string>() : "span";
    if (kind == "transfer") name += " (" + e["args"]["direction"].get<std::string>() + ")";
    trace_ms[kind + "/" + name] += e["dur"].get<double>() / 1000.0;
    ++trace_calls[kind + "/" + name];
  }
  absl::StatusOr<Report> report =
      BuildReport(p, {.sort_by = "calls", .by_node = true, .read_bandwidth_gbps = 10});
  ASSERT_TRUE(report.ok()) << report.status();
  double kernel_total = 0, node_total = 0, mul = 0, cast = 0;
  for (const ReportRow& r : report->rows) {
    if (r.category == "node") {
      node_total += r.total_ms;
      (r.name == "mul" ? mul : cast) += r.total_ms;
      continue;
    }
    if (r.category == "mark") continue;
    const std::string key = r.category + "/" + r.name;
    EXPECT_EQ(r.calls, trace_calls[key]) << key;
    EXPECT_NEAR(r.total_ms, trace_ms[key], 1e-6) << key;
    EXPECT_LE(r.min_ms, r.ave_ms);
    EXPECT_LE(r.ave_ms, r.max_ms);
    if (r.category == "kernel") {
      kernel_total += r.total_ms;
      EXPECT_GT(r.gbps, 0);
      EXPECT_GT(r.floor_fraction, 0);
      EXPECT_THAT(r.nodes, ::testing::ElementsAre("mul", "cast"));
    }
  }
  EXPECT_NEAR(report->summary.kernel_ms, kernel_total, 1e-9);
  EXPECT_NEAR(node_total, kernel_total, 1e-9);
  EXPECT_NEAR(mul, 3 * cast, 1e-9);
  EXPECT_LE(report->summary.device_busy_ms,
            report->summary.kernel_ms + report->summary.transfer_ms + 1e-9);
  EXPECT_NEAR(report->summary.device_busy_ms + report->summary.device_idle_ms,
              report->summary.wall_ms, 1e-9);
  const std::string text = FormatReport(*report);
  EXPECT_THAT(text, HasSubstr("twice"));
  EXPECT_THAT(text, HasSubstr("estimate"));
}

TEST_F(ProfilerTest, TheReportSortsByAnyColumnAndNamesTheColumnsOtherwise) {
  SetState(State::kHost);
  for (int k = 0; k < 3; ++k) RecordEvent a("often");
  { RecordEvent b("once"); }
  SetState(State::kDisabled);
  absl::StatusOr<Profile> p = Collect();
  ASSERT_TRUE(p.ok());
  absl::StatusOr<Report> by_calls = BuildReport(*p, {.sort_by = "calls"});
  ASSERT_TRUE(by_calls.ok());
  EXPECT_EQ(by_calls->rows.front().name, "often");
  absl::StatusOr<Report> by_name = BuildReport(*p, {.sort_by = "name"});
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(by_name->rows.front().name, "often");
  EXPECT_EQ(by_name->rows.back().name, "once");
  absl::StatusOr<Report> bad = BuildReport(*p, {.sort_by = "speed"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("\"speed\""));
  EXPECT_THAT(bad.status().message(), HasSubstr("calls"));
}

// A kernel whose code performs more operations than its graph nodes computes values again where
// it reads them: the report gives the ratio and names the kernel in a note; one that performs
// what its nodes do is not named, nor one whose extra operations stay under what its stores are
// worth (a scalar computed again in each row of a batch), and one whose stores are worth more
// than its nodes' operations is measured against them.
TEST_F(ProfilerTest, TheReportNamesAKernelThatRecomputes) {
  // A kernel of `flops` graph operations, `work` performed, stores worth `store_work`, run
  // from `start_us` for `us` microseconds.
  auto kernel = [](std::string name, double flops, double work, double store_work, int64_t start_us,
                   int64_t us) {
    return DeviceEvent{.info = {.kind = DeviceEventKind::kKernel,
                                .name = std::move(name),
                                .flops = flops,
                                .work = work,
                                .store_work = store_work},
                       .start_ns = start_us * 1000,
                       .end_ns = (start_us + us) * 1000};
  };
  Profile profile;
  profile.device = {kernel("fused", 100, 450, 0, 0, 2000), kernel("lean", 100, 100, 0, 2000, 1000),
                    kernel("memory bound", 10, 300, 512, 3000, 100),
                    kernel("over its stores", 10, 600, 200, 3100, 100)};
  absl::StatusOr<Report> report = BuildReport(profile);
  ASSERT_TRUE(report.ok()) << report.status();
  for (const ReportRow& r : report->rows) {
    if (r.name == "fused") {
      EXPECT_DOUBLE_EQ(r.work_ratio, 4.5);
    } else if (r.name == "lean" || r.name == "memory bound") {
      EXPECT_DOUBLE_EQ(r.work_ratio, 1.0) << r.name;
    } else if (r.name == "over its stores") {
      EXPECT_DOUBLE_EQ(r.work_ratio, 3.0);
    }
  }
  ASSERT_EQ(report->notes.size(), 2u);
  EXPECT_THAT(report->notes[0], HasSubstr("fused does 4.5x the operations of its graph nodes"));
  EXPECT_THAT(report->notes[1], HasSubstr("over its stores does 3.0x"));
  EXPECT_THAT(FormatReport(*report), HasSubstr("work×"));
  EXPECT_THAT(ReportJson(*report), HasSubstr("\"work\":4.5"));
}

// Two runs: the first 100 µs long with device work covering 30 µs of it (two overlapping
// kernels and a transfer reaching past its end), the second 50 µs with none; a span of another
// name and device work outside every run count toward neither.
TEST_F(ProfilerTest, TheReportGivesEachRunsHostTimeNotCoveredByTheDevice) {
  auto span = [](std::string name, int64_t start_us, int64_t end_us) {
    return HostEvent{.name = std::move(name), .start_ns = start_us * 1000, .end_ns = end_us * 1000};
  };
  auto device = [](DeviceEventKind kind, int64_t start_us, int64_t end_us) {
    return DeviceEvent{
        .info = {.kind = kind, .name = "k"}, .start_ns = start_us * 1000, .end_ns = end_us * 1000};
  };
  Profile profile;
  profile.host = {span("step", 0, 200), span("run", 10, 110), span("run", 130, 180)};
  profile.device = {
      device(DeviceEventKind::kKernel, 20, 30), device(DeviceEventKind::kKernel, 25, 35),
      device(DeviceEventKind::kTransfer, 95, 140), device(DeviceEventKind::kKernel, 185, 195)};
  absl::StatusOr<Report> report = BuildReport(profile);
  ASSERT_TRUE(report.ok()) << report.status();
  const ReportSummary& s = report->summary;
  EXPECT_EQ(s.runs, 2);
  EXPECT_NEAR(s.run_ms, 0.150, 1e-12);
  // Run 1: 100 - (15 + 15) = 70 µs; run 2: 50 - 10 (the transfer's tail) = 40 µs.
  EXPECT_NEAR(s.run_overhead_ms, 0.110, 1e-12);
  EXPECT_NEAR(s.run_overhead_min_ms, 0.040, 1e-12);
  EXPECT_THAT(FormatReport(*report), HasSubstr("host overhead (a run's time not covered by device "
                                               "work) 55.0 us a run, 40.0 us the least"));
  EXPECT_THAT(ReportJson(*report), HasSubstr("\"runs\":2"));

  absl::StatusOr<Report> steps = BuildReport(profile, {.run_span = "step"});
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ(steps->summary.runs, 1);
  EXPECT_NEAR(steps->summary.run_overhead_ms, 0.200 - 0.070, 1e-12);
  EXPECT_THAT(FormatReport(*BuildReport(Profile{})), ::testing::Not(HasSubstr("Runs:")));
}

TEST_F(ProfilerTest, AGzipTraceIsGzip) {
  SetState(State::kHost);
  { RecordEvent span("span"); }
  SetState(State::kDisabled);
  absl::StatusOr<Profile> p = Collect();
  ASSERT_TRUE(p.ok());
  const std::string path = ::testing::TempDir() + "/trace.json.gz";
  ASSERT_TRUE(WriteChromeTrace(*p, path).ok());
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  EXPECT_EQ(magic[0], 0x1f);
  EXPECT_EQ(magic[1], 0x8b);
  EXPECT_FALSE(std::filesystem::exists(path + ".json.tmp"));
}

}  // namespace
}  // namespace dfc::profiler

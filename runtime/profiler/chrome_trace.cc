// The Chrome trace writer (see chrome_trace.h).
#include "runtime/profiler/chrome_trace.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace dfc::profiler {
namespace {

using nlohmann::json;

constexpr int kHostPid = 1;
constexpr int kDevicePid = 2;
// The category of every slice and flow event. Chrome DevTools binds a flow event to the slice
// with the same ts, pid, tid *and* category, and pairs the start with the end by category, name
// and id: a launch span, its kernel and the arrow between them must share one category. (The
// Perfetto UI binds by enclosing slice and does not mind.) A device slice's args say what it is.
constexpr const char* kCategory = "dfc";

// Rows of one queue: events that overlap (an out-of-order queue) go to rows of their own, so
// slices on a row never cross.
std::vector<int> DeviceLanes(const Profile& profile, int& lanes_per_queue) {
  std::vector<int> lane(profile.device.size(), 0);
  std::vector<std::vector<int64_t>> ends(profile.queues.size());
  lanes_per_queue = 1;
  for (size_t k = 0; k < profile.device.size(); ++k) {  // ordered by start
    const DeviceEvent& d = profile.device[k];
    std::vector<int64_t>& e = ends[d.queue];
    size_t l = 0;
    while (l < e.size() && e[l] > d.start_ns) ++l;
    if (l == e.size()) e.push_back(0);
    e[l] = d.end_ns;
    lane[k] = static_cast<int>(l);
    lanes_per_queue = std::max(lanes_per_queue, static_cast<int>(e.size()));
  }
  return lane;
}

}  // namespace

std::string ChromeTrace(const Profile& profile, const TraceOptions& options) {
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const HostEvent& e : profile.host) origin = std::min(origin, e.start_ns);
  for (const DeviceEvent& d : profile.device) origin = std::min(origin, d.queued_ns);
  if (origin == std::numeric_limits<int64_t>::max()) origin = 0;
  const auto us = [origin](int64_t ns) { return static_cast<double>(ns - origin) / 1000.0; };

  json events = json::array();
  const auto meta = [&](const char* what, int pid, int tid, const std::string& name) {
    json m = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", {{"name", name}}}};
    if (tid >= 0) m["tid"] = tid;
    events.push_back(std::move(m));
  };
  meta("process_name", kHostPid, -1, "host");
  for (size_t t = 0; t < profile.threads.size(); ++t) {
    meta("thread_name", kHostPid, static_cast<int>(t),
         absl::StrCat(profile.threads[t].name, " (tid ", profile.threads[t].os_id, ")"));
  }
  int lanes = 1;
  const std::vector<int> lane = DeviceLanes(profile, lanes);
  if (!profile.queues.empty()) {
    meta("process_name", kDevicePid, -1, absl::StrCat("device: ", profile.queues[0].device));
    for (size_t q = 0; q < profile.queues.size(); ++q) {
      for (int l = 0; l < lanes; ++l) {
        meta("thread_name", kDevicePid, static_cast<int>(q) * lanes + l,
             absl::StrCat("queue ", q, l > 0 ? absl::StrCat(" (overlap ", l, ")") : "", " — ",
                          profile.queues[q].clock));
      }
    }
  }

  const int64_t total = static_cast<int64_t>(profile.host.size() + profile.device.size());
  const int64_t cap = options.max_events > 0 ? options.max_events : total;
  int64_t written = 0;
  absl::flat_hash_map<uint64_t, const HostEvent*> spans;
  for (const HostEvent& e : profile.host) {
    if (written >= cap) break;
    ++written;
    if (e.kind == HostEvent::Kind::kMark) {
      events.push_back({{"ph", "i"},
                        {"s", "t"},
                        {"name", e.name},
                        {"cat", "mark"},
                        {"pid", kHostPid},
                        {"tid", e.thread},
                        {"ts", us(e.start_ns)},
                        {"args", {{"message", e.message}}}});
      continue;
    }
    spans[e.id] = &e;
    events.push_back({{"ph", "X"},
                      {"name", e.name},
                      {"cat", kCategory},
                      {"pid", kHostPid},
                      {"tid", e.thread},
                      {"ts", us(e.start_ns)},
                      {"dur", us(e.end_ns) - us(e.start_ns)}});
  }
  for (size_t k = 0; k < profile.device.size(); ++k) {
    if (written >= cap) break;
    ++written;
    const DeviceEvent& d = profile.device[k];
    const bool kernel = d.info.kind == DeviceEventKind::kKernel;
    const int tid = d.queue * lanes + lane[k];
    json args = {{"kind", kernel ? "kernel" : "transfer"},
                 {"queued_us", us(d.queued_ns)},
                 {"submit_us", us(d.submit_ns)}};
    if (kernel) {
      args["nodes"] = d.info.nodes;
      std::vector<size_t> global(d.info.global.begin(), d.info.global.begin() + d.info.dims);
      std::vector<size_t> local(d.info.local.begin(), d.info.local.begin() + d.info.dims);
      args["global_size"] = global;
      args["local_size"] = local;
      if (d.info.flops > 0) args["flops"] = d.info.flops;
    } else {
      args["direction"] = std::string(DirectionName(d.info.direction));
    }
    if (d.info.bytes > 0) args["bytes"] = d.info.bytes;
    if (!d.error.empty()) args["error"] = d.error;
    events.push_back({{"ph", "X"},
                      {"name", d.info.name},
                      {"cat", kCategory},
                      {"pid", kDevicePid},
                      {"tid", tid},
                      {"ts", us(d.start_ns)},
                      {"dur", us(d.end_ns) - us(d.start_ns)},
                      {"args", std::move(args)}});
    // The arrow: from the launch span to the device slice, each end at its slice's start.
    auto launch = spans.find(d.info.launch);
    if (launch == spans.end()) continue;
    const HostEvent& l = *launch->second;
    const json id = static_cast<int64_t>(k + 1);
    events.push_back({{"ph", "s"},
                      {"name", "launch"},
                      {"cat", kCategory},
                      {"id", id},
                      {"pid", kHostPid},
                      {"tid", l.thread},
                      {"ts", us(l.start_ns)}});
    events.push_back({{"ph", "f"},
                      {"bp", "e"},
                      {"name", "launch"},
                      {"cat", kCategory},
                      {"id", id},
                      {"pid", kDevicePid},
                      {"tid", tid},
                      {"ts", us(d.start_ns)}});
  }

  json other = {
      {"events", total}, {"written", written}, {"dropped_while_recording", profile.dropped}};
  if (written < total || profile.dropped > 0) {
    const std::string note = absl::StrCat(
        "trace truncated: ", total - written, " events over the trace's cap of ", cap,
        " not written, ", profile.dropped, " dropped while recording (cap ", profile.cap, ")");
    other["note"] = note;
    events.push_back({{"ph", "i"},
                      {"s", "g"},
                      {"name", note},
                      {"cat", "note"},
                      {"pid", kHostPid},
                      {"tid", 0},
                      {"ts", 0.0}});
  }
  json trace = {{"traceEvents", std::move(events)},
                {"displayTimeUnit", "ns"},
                {"otherData", std::move(other)}};
  return trace.dump();
}

absl::Status WriteChromeTrace(const Profile& profile, const std::string& path,
                              const TraceOptions& options) {
  const bool gzip = absl::EndsWith(path, ".gz");
  const std::string text_path = gzip ? path + ".json.tmp" : path;
  {
    std::ofstream out(text_path, std::ios::binary | std::ios::trunc);
    out << ChromeTrace(profile, options);
    if (!out) return absl::UnavailableError(absl::StrCat("cannot write the trace to ", text_path));
  }
  if (!gzip) return absl::OkStatus();
  // gzip -c < text > path, run without a shell.
  const int in = open(text_path.c_str(), O_RDONLY);
  const int out = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  absl::Status status = absl::OkStatus();
  if (in < 0 || out < 0) {
    status = absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  } else {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in, 0);
    posix_spawn_file_actions_adddup2(&actions, out, 1);
    char arg0[] = "gzip", arg1[] = "-c";
    char* argv[] = {arg0, arg1, nullptr};
    pid_t pid = 0;
    const int err = posix_spawnp(&pid, "gzip", &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    int wstatus = 0;
    if (err != 0) {
      status = absl::UnavailableError(
          absl::StrCat("cannot run gzip to compress ", path, ": ", std::strerror(err)));
    } else if (waitpid(pid, &wstatus, 0) < 0 || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
      status = absl::UnavailableError(absl::StrCat("gzip failed to compress ", path));
    }
  }
  if (in >= 0) close(in);
  if (out >= 0) close(out);
  unlink(text_path.c_str());
  return status;
}

}  // namespace dfc::profiler

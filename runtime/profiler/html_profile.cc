// The HTML profile writer (see html_profile.h): the profile and its report as JSON, put into
// the page (html_profile_page.html, embedded at build time), whose script draws them.
#include "runtime/profiler/html_profile.h"

#include <algorithm>
#include <fstream>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "nlohmann/json.hpp"
#include "runtime/profiler/report.h"

namespace dfc::profiler {

// The page, with kDataMarker where the data goes.
extern const char kHtmlProfilePage[];

namespace {

using nlohmann::json;

constexpr const char* kDataMarker = "__DFC_PROFILE_DATA__";

// Every event, its times in microseconds from the first; at most options.max_events of them,
// the longest kept where the cap bites (a step's span outlasts its launches).
json EventsJson(const Profile& profile, const HtmlOptions& options, bool& capped) {
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const HostEvent& e : profile.host) origin = std::min(origin, e.start_ns);
  for (const DeviceEvent& d : profile.device) origin = std::min(origin, d.start_ns);
  if (origin == std::numeric_limits<int64_t>::max()) origin = 0;
  const auto us = [origin](int64_t ns) { return static_cast<double>(ns - origin) / 1000.0; };

  const int64_t total = static_cast<int64_t>(profile.host.size() + profile.device.size());
  capped = options.max_events > 0 && total > options.max_events;
  int64_t min_ns = 0;  // events shorter than this are left out when capped
  if (capped) {
    std::vector<int64_t> lengths;
    for (const HostEvent& e : profile.host) lengths.push_back(e.end_ns - e.start_ns);
    for (const DeviceEvent& d : profile.device) lengths.push_back(d.end_ns - d.start_ns);
    std::nth_element(lengths.begin(), lengths.begin() + (options.max_events - 1), lengths.end(),
                     std::greater<>());
    min_ns = lengths[options.max_events - 1];
  }

  json threads = json::array();
  for (const ThreadInfo& t : profile.threads) threads.push_back(t.name);
  json queues = json::array();
  for (const QueueInfo& q : profile.queues) queues.push_back(q.device);
  json host = json::array();
  for (const HostEvent& e : profile.host) {
    if (e.kind != HostEvent::Kind::kSpan || e.end_ns - e.start_ns < min_ns) continue;
    host.push_back({{"name", e.name},
                    {"thread", e.thread},
                    {"depth", e.depth},
                    {"start", us(e.start_ns)},
                    {"end", us(e.end_ns)},
                    {"id", e.id}});
  }
  json device = json::array();
  for (const DeviceEvent& d : profile.device) {
    if (d.end_ns - d.start_ns < min_ns) continue;
    const DeviceEventInfo& i = d.info;
    json e = {{"kind", i.kind == DeviceEventKind::kKernel ? "kernel" : "transfer"},
              {"name", i.name},
              {"queue", d.queue},
              {"start", us(d.start_ns)},
              {"end", us(d.end_ns)},
              {"bytes", i.bytes},
              {"launch", i.launch}};
    if (i.kind == DeviceEventKind::kKernel) {
      e["cluster"] = i.cluster;
      e["nodes"] = i.nodes;
      e["work"] = i.node_work;
      e["flops"] = i.flops;
      e["global"] = json::array({i.global[0], i.global[1], i.global[2]});
    } else {
      e["direction"] = DirectionName(i.direction);
    }
    if (!d.error.empty()) e["error"] = d.error;
    device.push_back(std::move(e));
  }
  return {{"threads", std::move(threads)}, {"queues", std::move(queues)},
          {"host", std::move(host)},       {"device", std::move(device)},
          {"total_events", total},         {"dropped", profile.dropped}};
}

}  // namespace

absl::StatusOr<std::string> HtmlProfile(const Profile& profile, const HtmlOptions& options) {
  absl::StatusOr<Report> report =
      BuildReport(profile, {.by_node = true, .read_bandwidth_gbps = options.read_bandwidth_gbps});
  if (!report.ok()) return report.status();
  bool capped = false;
  json data = EventsJson(profile, options, capped);
  data["title"] = options.title;
  data["capped"] = capped;
  data["report"] = json::parse(ReportJson(*report));
  // Inside a <script> element: no "</script>" may appear, so every '<' is escaped (JSON reads
  // \u003c as '<'). Node names come from user files: invalid UTF-8 becomes U+FFFD.
  const std::string text = absl::StrReplaceAll(
      data.dump(-1, ' ', false, json::error_handler_t::replace), {{"<", "\\u003c"}});
  std::string page = kHtmlProfilePage;
  const size_t at = page.find(kDataMarker);
  if (at == std::string::npos) return absl::InternalError("the HTML page has no data marker");
  page.replace(at, std::string_view(kDataMarker).size(), text);
  return page;
}

absl::Status WriteHtmlProfile(const Profile& profile, const std::string& path,
                              const HtmlOptions& options) {
  absl::StatusOr<std::string> page = HtmlProfile(profile, options);
  if (!page.ok()) return page.status();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << *page;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write the HTML profile to ", path));
  return absl::OkStatus();
}

}  // namespace dfc::profiler

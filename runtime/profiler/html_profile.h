// A profile as one self-contained HTML file: it opens offline in any browser (its data, script
// and styles are inside), for the people who would rather look at a profile than read one.
//
// The page has, after the Hotline profiler's multi-scale timeline and XSP's levels:
// - a timeline of the host's threads (spans nested by depth: steps, runs, execution units,
//   launches) and of each device queue (kernels, transfers, and the idle gaps between them),
//   zoomed with the wheel or the buttons and panned by dragging, at three levels: the whole
//   run, one step, one cluster's launches and kernels (clicking a span zooms to it);
// - for a selected kernel, the graph nodes fused into it, each with its estimated share of the
//   kernel's time (DeviceEventInfo::node_work);
// - the report's summary and its tables per kernel, per graph node and per transfer and span,
//   sortable by any column.
#ifndef DFC_RUNTIME_PROFILER_HTML_PROFILE_H_
#define DFC_RUNTIME_PROFILER_HTML_PROFILE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/profiler/profiler.h"

namespace dfc::profiler {

struct HtmlOptions {
  std::string title = "dfc profile";
  // At most this many host and device events go in the timeline (the tables count them all);
  // a page that hits the cap says so.
  int64_t max_events = 200'000;
  double read_bandwidth_gbps = 0;  // the report's floor fraction; 0: not shown
};

// The page as text.
absl::StatusOr<std::string> HtmlProfile(const Profile& profile, const HtmlOptions& options = {});

absl::Status WriteHtmlProfile(const Profile& profile, const std::string& path,
                              const HtmlOptions& options = {});

}  // namespace dfc::profiler

#endif  // DFC_RUNTIME_PROFILER_HTML_PROFILE_H_

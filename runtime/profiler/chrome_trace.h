// A Chrome trace (the JSON "Trace Event Format") of a Profile, which the Perfetto UI, Chrome
// DevTools' Performance panel ("Load trace…") and chrome://tracing (in Chromes that still have
// it) open: the host's threads and the device's queues as rows named by metadata
// events, spans and kernels as complete ("X") slices, marks as instants, and a flow arrow from
// each launch span to the kernel or transfer it enqueued. Slices and flows share the category
// "dfc"; a device slice's "kind" arg is "kernel" or "transfer".
#ifndef DFC_RUNTIME_PROFILER_CHROME_TRACE_H_
#define DFC_RUNTIME_PROFILER_CHROME_TRACE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "runtime/profiler/profiler.h"

namespace dfc::profiler {

struct TraceOptions {
  // At most this many host and device slices are written (0: all). A trace that hits the cap
  // says so in an instant event at its start and in its "otherData".
  int64_t max_events = 1'000'000;
};

// The trace as JSON text.
std::string ChromeTrace(const Profile& profile, const TraceOptions& options = {});

// Writes the trace to `path`; a path ending in ".gz" is compressed by the gzip program.
absl::Status WriteChromeTrace(const Profile& profile, const std::string& path,
                              const TraceOptions& options = {});

}  // namespace dfc::profiler

#endif  // DFC_RUNTIME_PROFILER_CHROME_TRACE_H_

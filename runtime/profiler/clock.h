// Host and device clocks aligned: a device timestamp plus the queue's offset is a time on the
// host's steady clock (profiler.h's NowNs).
#ifndef DFC_RUNTIME_PROFILER_CLOCK_H_
#define DFC_RUNTIME_PROFILER_CLOCK_H_

#include <CL/cl.h>

#include "runtime/profiler/profiler.h"

namespace dfc::profiler {

// The offset of `queue`'s device clock, estimated now (Collect() reuses a device's estimate for
// a second).
// Where the device has clGetDeviceAndHostTimer (OpenCL 2.1) it pairs the two clocks; otherwise
// it times a 4-byte write against the host clock several times and keeps the tightest: the
// device's start and end lie between the host's times before and after, so the midpoints are
// matched and the error is at most half the tightest round trip (QueueInfo::clock says which
// and the bound).
QueueInfo AlignQueueClock(cl_command_queue queue);

}  // namespace dfc::profiler

#endif  // DFC_RUNTIME_PROFILER_CLOCK_H_

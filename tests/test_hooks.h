// The runtime's test hooks, out of its public interface: a kernel's source edited before it is
// built (to make a build fail, or a kernel wrong), and a driver call made to fail as a driver's
// does when memory runs out or the device is lost. Only tests include this header.
#ifndef DFC_TESTS_TEST_HOOKS_H_
#define DFC_TESTS_TEST_HOOKS_H_

#include <CL/cl.h>

#include <functional>
#include <string>
#include <utility>

#include "runtime/device_executor.h"
#include "runtime/device_session.h"
#include "runtime/opencl/context.h"

namespace dfc::testing {

class TestHooks {
 public:
  // Every kernel `executor` builds from now on, generated or given (UseKernel), has its source
  // passed through `edit` first.
  static void EditSources(DeviceExecutor& executor, std::function<void(std::string& source)> edit) {
    executor.edit_source_ = std::move(edit);
  }
  static void EditSources(DeviceSession& session, std::function<void(std::string& source)> edit) {
    EditSources(*session.executor_, std::move(edit));
  }

  // The call of `kind` after the next `after` ones returns `error` (CL_OUT_OF_RESOURCES, say)
  // instead of reaching the driver. One fault at a time; `after` < 0 clears it.
  static void InjectFault(cl::ClContext& context, cl::ClContext::FaultKind kind, int after,
                          cl_int error) {
    context.fault_ = {.kind = kind, .after = after, .error = error};
  }
};

}  // namespace dfc::testing

#endif  // DFC_TESTS_TEST_HOOKS_H_

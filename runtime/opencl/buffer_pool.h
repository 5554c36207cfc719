// Device buffers that their users are done with, kept for the next request of the same size.
//
// A session runs the same plan step after step, so it asks for the same buffer sizes every
// time. Creating a buffer is cheap for the driver, but the first touch of its memory is not:
// on a CPU device a fresh 200 MB buffer costs about a millisecond of page faults and TLB misses
// inside the kernel that first writes it. TensorFlow's BFC allocator and TFLite's GPU delegate
// keep their device memory for the same reason. The pool matches sizes exactly (a plan's sizes
// repeat exactly; size classes would waste up to half of a large buffer), holds at most
// `capacity` bytes, and is emptied when the device refuses an allocation.
//
// Reuse is safe on the one in-order queue every buffer of a context is used through: a command
// that writes a reused buffer runs after every command enqueued by its previous owner. A reused
// buffer holds its previous owner's data, as a fresh one holds whatever the driver left there:
// Allocate never promised zeros.
#ifndef DFC_RUNTIME_OPENCL_BUFFER_POOL_H_
#define DFC_RUNTIME_OPENCL_BUFFER_POOL_H_

#include <CL/cl.h>

#include <cstddef>
#include <map>
#include <mutex>

#include "runtime/opencl/handles.h"

namespace dfc::cl {

class BufferPool {
 public:
  explicit BufferPool(size_t capacity) : capacity_(capacity) {}

  // A kept buffer of exactly `bytes` bytes, or an empty handle when there is none.
  ClMem Take(size_t bytes);
  // Keeps `mem` (of `bytes` bytes) for a later Take, or releases it when keeping it would hold
  // more than the capacity.
  void Give(ClMem mem, size_t bytes);
  // Releases every kept buffer.
  void Clear();

  size_t held_bytes() const;
  size_t capacity() const;
  // 0 turns the pool off: every buffer given back from then on is released.
  void set_capacity(size_t capacity);

 private:
  mutable std::mutex mu_;
  std::multimap<size_t, ClMem> free_;
  size_t held_ = 0;
  size_t capacity_;
};

}  // namespace dfc::cl

#endif  // DFC_RUNTIME_OPENCL_BUFFER_POOL_H_

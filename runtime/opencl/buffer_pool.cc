// The pool of device buffers (see buffer_pool.h).
#include "runtime/opencl/buffer_pool.h"

#include <utility>

namespace dfc::cl {

ClMem BufferPool::Take(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = free_.find(bytes);
  if (it == free_.end()) return ClMem();
  ClMem mem = std::move(it->second);
  free_.erase(it);
  held_ -= bytes;
  return mem;
}

void BufferPool::Give(ClMem mem, size_t bytes) {
  if (!mem) return;
  std::lock_guard<std::mutex> lock(mu_);
  // Over the capacity the buffer is released here, when `mem` goes out of scope.
  if (held_ + bytes > capacity_) return;
  free_.emplace(bytes, std::move(mem));
  held_ += bytes;
}

void BufferPool::Clear() {
  std::multimap<size_t, ClMem> released;  // destroyed after the lock is let go
  std::lock_guard<std::mutex> lock(mu_);
  released.swap(free_);
  held_ = 0;
}

size_t BufferPool::held_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_;
}

size_t BufferPool::capacity() const {
  std::lock_guard<std::mutex> lock(mu_);
  return capacity_;
}

void BufferPool::set_capacity(size_t capacity) {
  std::multimap<size_t, ClMem> released;  // destroyed after the lock is let go
  std::lock_guard<std::mutex> lock(mu_);
  capacity_ = capacity;
  // Keeps the smallest buffers that fit, releases the rest.
  size_t kept = 0;
  for (auto it = free_.begin(); it != free_.end();) {
    if (kept + it->first <= capacity_) {
      kept += it->first;
      ++it;
    } else {
      released.insert(free_.extract(it++));
    }
  }
  held_ = kept;
}

}  // namespace dfc::cl

// A log that one thread appends to and another reads, without a lock: the per-thread event
// block of the profiler. Records go into fixed-size chunks that never move; each chunk
// publishes how many of its records are complete with a release store, so the reader sees a
// record only after it was written in full. The reader may free the chunks it has read once
// the writer has moved past them (the writer touches only its last chunk).
#ifndef DFC_RUNTIME_PROFILER_EVENT_LOG_H_
#define DFC_RUNTIME_PROFILER_EVENT_LOG_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace dfc::profiler {

template <typename T, size_t kChunk = 1024>
class EventLog {
 public:
  EventLog() : head_(new Chunk), tail_(head_) {}
  ~EventLog() {
    for (Chunk* c = head_; c != nullptr;) {
      Chunk* next = c->next.load(std::memory_order_relaxed);
      delete c;
      c = next;
    }
  }
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  // Writer only. The record is visible to the reader when this returns.
  void Append(T record) {
    size_t n = tail_->size.load(std::memory_order_relaxed);
    if (n == kChunk) {
      Chunk* fresh = new Chunk;
      tail_->next.store(fresh, std::memory_order_release);
      tail_ = fresh;
      n = 0;
    }
    tail_->records[n] = std::move(record);
    tail_->size.store(n + 1, std::memory_order_release);
  }

  // Reader only: moves every record appended since the last Drain into `out(T&&)`, and frees
  // the chunks the writer has left.
  template <typename Out>
  void Drain(Out&& out) {
    while (true) {
      const size_t n = head_->size.load(std::memory_order_acquire);
      for (; read_ < n; ++read_) out(std::move(head_->records[read_]));
      Chunk* next = head_->next.load(std::memory_order_acquire);
      // A chunk with a successor is full and the writer never returns to it.
      if (next == nullptr || read_ < kChunk) return;
      delete head_;
      head_ = next;
      read_ = 0;
    }
  }

 private:
  struct Chunk {
    std::array<T, kChunk> records;
    std::atomic<size_t> size{0};
    std::atomic<Chunk*> next{nullptr};
  };
  Chunk* head_;  // the reader's
  size_t read_ = 0;
  Chunk* tail_;  // the writer's
};

}  // namespace dfc::profiler

#endif  // DFC_RUNTIME_PROFILER_EVENT_LOG_H_

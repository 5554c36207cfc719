// Emitting OpenCL C statements into nested blocks, and values computed at most once per scope.
//
// The kernel generator is a staged interpreter: it walks the IR as the interpreter does, but
// where the interpreter computes a value it emits the statements that compute it. Statements
// go into the innermost open block; a block is rendered into its parent when it closes, so a
// statement appended to an outer block while an inner one is open lands just before the inner
// block starts. That is how a value that does not depend on a loop is hoisted out of it.
#ifndef DFC_CODEGEN_C_EMITTER_H_
#define DFC_CODEGEN_C_EMITTER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/arith.h"

namespace dfc::codegen {

// A count of operations that may depend on sizes: the sum of numerator / denominator over its
// terms. A branch that runs for a known share of the elements (a Concat's part: its length over
// the whole's) counts that share of its statements.
struct OpCount {
  std::vector<std::pair<ArithExpr, int64_t>> terms;  // numerator, denominator > 0

  void Add(const ArithExpr& numerator, int64_t denominator);
  // The count under `sizes`; an error where a size is unbound.
  absl::StatusOr<double> Evaluate(const SizeBindings& sizes) const;
};

// The share of its parent's runs a block runs: numerator / denominator (1 / 1 for a loop's body
// or a branch counted as taken).
struct Share {
  int64_t numerator = 1;
  int64_t denominator = 1;
};

class CEmitter {
 public:
  // `block_counter` numbers blocks and names across every emitter that shares it, so that a
  // Memo never mistakes a block of one kernel for a block of another, and the kernels of one
  // program share no names.
  explicit CEmitter(int64_t* block_counter);

  // Appends one statement (or a line such as "for (...) {") to the innermost open block.
  void Emit(absl::string_view line);
  // Puts one statement first in the open block at `depth` (1 is the outermost): a loop's
  // prologue, decided after its body began.
  void EmitFirst(int depth, absl::string_view line);
  // A fresh C identifier: "<stem>_<k>".
  std::string Fresh(absl::string_view stem);

  // Opens a block under `header` ("for (long i = 0; i < n; ++i)", "if (gid < 10)", or "" for a
  // bare scope; lines before the last, such as a loop's #pragma, go before it) whose statements run
  // `trips` times for each time its parent's do (a loop's trip count; 1 for a branch, which is
  // counted as taken); CloseBlock renders it into its parent as `header {` ... `}`.
  void OpenBlock(std::string header, ArithExpr trips = ArithExpr(1), Share share = {});
  void CloseBlock();

  // The operations the emitted code performs: each statement's count (`ops_of_line`, set by the
  // generator, which knows its functions' names) times the trips of the blocks around it.
  void CountOps(std::function<int64_t(absl::string_view line)> ops_of_line) {
    ops_of_line_ = std::move(ops_of_line);
  }
  const OpCount& ops() const { return ops_; }

  // Ids of the open blocks, outermost first: a variable declared in block b is visible while b
  // is open.
  bool IsOpen(int64_t block_id) const;
  int64_t current_block() const;
  int depth() const { return static_cast<int>(stack_.size()); }
  // The depth of the innermost open branch (a block under an `if`), 0 if none: what is
  // computed inside it must not move out of it (a read guarded by a bounds check).
  int DeepestBranch() const;

  // Runs `emit` with the blocks deeper than `depth` set aside, so that what it emits goes into
  // the block at that depth (just before the inner blocks), then puts them back.
  template <typename T>
  T EmitAt(int depth, const std::function<T()>& emit);

  // The rendered statements of the outermost block. Every opened block must be closed.
  std::string Finish();

 private:
  struct Block {
    int64_t id;
    std::string header;
    std::vector<std::string> lines;
    ArithExpr weight;         // how often its statements run: the product of the trips down to it
    int64_t denominator = 1;  // ... divided by this: the shares down to it
  };
  void Count(const Block& block, absl::string_view line);

  std::vector<std::unique_ptr<Block>> stack_;
  int64_t* next_block_;
  std::function<int64_t(absl::string_view)> ops_of_line_;
  OpCount ops_;
};

template <typename T>
T CEmitter::EmitAt(int depth, const std::function<T()>& emit) {
  std::vector<std::unique_ptr<Block>> inner;
  while (static_cast<int>(stack_.size()) > depth) {
    inner.push_back(std::move(stack_.back()));
    stack_.pop_back();
  }
  T result = emit();
  while (!inner.empty()) {
    stack_.push_back(std::move(inner.back()));
    inner.pop_back();
  }
  return result;
}

// The C names of a value computed once: the first use emits its statements (at the depth it
// was given, or where it is first used), later uses in the same scope reuse the variables, and
// a use after that scope has closed emits them again.
class Memo {
 public:
  using Compute = std::function<absl::StatusOr<std::vector<std::string>>()>;
  // `emitter` points at the emitter in use (it changes from kernel to kernel).
  // `hoist_depth` < 0: emit where first used.
  Memo(CEmitter* const* emitter, Compute compute, int hoist_depth)
      : emitter_(emitter), compute_(std::move(compute)), hoist_depth_(hoist_depth) {}

  absl::StatusOr<std::vector<std::string>> Get();

 private:
  CEmitter* const* emitter_;
  Compute compute_;
  int hoist_depth_;
  std::optional<int64_t> block_;
  std::vector<std::string> names_;
};

}  // namespace dfc::codegen

#endif  // DFC_CODEGEN_C_EMITTER_H_

// Software prefetch of the rows a work-item streams, and the sequential loops it goes into
// (generator.h).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/generator.h"

namespace dfc::codegen::gen {

void Generator::Prefetch(const std::string& buffer, const ArithExpr& offset) {
  if (profile_.prefetch_bytes <= 0) return;
  const std::vector<std::string> names = offset.Variables();
  const std::string gid = CVar("gid").var_name();
  if (std::ranges::find(names, gid) == names.end()) return;
  for (auto loop = seq_loops_.rbegin(); loop != seq_loops_.rend(); ++loop) {
    if (loop->emitter != em_ || std::ranges::find(names, loop->index) == names.end()) continue;
    // It goes first in the loop's body, so it may name only what is declared before: gid,
    // sizes, the indices of this loop and the sequential loops around it. The index of an
    // unrolled loop inside it (the rows of a block, rewrite::BlockRows) takes each of its
    // values: one prefetch a row.
    const size_t depth = static_cast<size_t>(loop.base() - seq_loops_.begin());
    std::vector<const UnrolledLoop*> expand;
    for (const std::string& name : names) {
      const bool known = !IsCVar(name) || name == gid ||
                         std::any_of(seq_loops_.begin(), loop.base(),
                                     [&](const SequentialLoop& l) { return l.index == name; });
      if (known) continue;
      const auto unrolled = std::ranges::find_if(
          unrolled_, [&](const UnrolledLoop& u) { return u.index == name && u.inside >= depth; });
      if (unrolled == unrolled_.end()) return;
      if (std::ranges::find(expand, &*unrolled) == expand.end()) expand.push_back(&*unrolled);
    }
    std::vector<ArithExpr> offsets = {offset};
    for (const UnrolledLoop* u : expand) {
      std::vector<ArithExpr> each;
      for (const ArithExpr& o : offsets) {
        for (int64_t v = 0; v < u->count; ++v) each.push_back(o.Substitute({{u->index, v}}));
      }
      offsets = std::move(each);
    }
    if (static_cast<int64_t>(offsets.size()) > kMaxPrefetchesAStep) return;
    for (const ArithExpr& o : offsets) {
      const std::string pointer = absl::StrCat(buffer, " + ", Print(o));
      if (!loop->prefetched.insert(pointer).second) continue;
      uses_prefetch_ = true;
      em_->EmitFirst(loop->depth, absl::StrCat("DFC_PREFETCH((__global const char*)(", pointer,
                                               ") + ", profile_.prefetch_bytes, ");"));
    }
    return;
  }
}

ArithExpr Generator::OpenSequentialLoop(const ArithExpr& count) {
  const ArithExpr index = CVar(em_->Fresh("i"));
  em_->OpenBlock(ForHeader(index, count), count);
  seq_loops_.push_back({.index = index.var_name(), .emitter = em_, .depth = em_->depth()});
  return index;
}

absl::StatusOr<CVal> Generator::OpenLoopsOver(const CVal& array, int& loops) {
  if (array.rows != nullptr) {
    DFC_ASSIGN_OR_RETURN(CVal row, OpenLoopsOver(*array.rows, loops));
    ++loops;
    return row.element(OpenSequentialLoop(row.type->length));
  }
  ++loops;
  return array.element(OpenSequentialLoop(array.type->length));
}

void Generator::CloseSequentialLoop() {
  seq_loops_.pop_back();
  em_->CloseBlock();
}

}  // namespace dfc::codegen::gen

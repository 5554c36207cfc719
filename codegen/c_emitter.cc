// Nested blocks of OpenCL C statements (see c_emitter.h).
#include "codegen/c_emitter.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status.h"

namespace dfc::codegen {

CEmitter::CEmitter(int64_t* block_counter) : next_block_(block_counter) { OpenBlock(""); }

void CEmitter::Emit(absl::string_view line) { stack_.back()->lines.emplace_back(line); }

void CEmitter::EmitFirst(int depth, absl::string_view line) {
  std::vector<std::string>& lines = stack_[depth - 1]->lines;
  lines.emplace(lines.begin(), line);
}

std::string CEmitter::Fresh(absl::string_view stem) {
  return absl::StrCat(stem, "_", (*next_block_)++);
}

void CEmitter::OpenBlock(std::string header) {
  stack_.push_back(std::make_unique<Block>(Block{(*next_block_)++, std::move(header), {}}));
}

void CEmitter::CloseBlock() {
  DFC_CHECK(stack_.size() > 1);
  std::unique_ptr<Block> block = std::move(stack_.back());
  stack_.pop_back();
  Block& parent = *stack_.back();
  parent.lines.push_back(block->header.empty() ? "{" : absl::StrCat(block->header, " {"));
  for (std::string& line : block->lines) parent.lines.push_back(absl::StrCat("  ", line));
  parent.lines.push_back("}");
}

bool CEmitter::IsOpen(int64_t block_id) const {
  for (const auto& block : stack_) {
    if (block->id == block_id) return true;
  }
  return false;
}

int64_t CEmitter::current_block() const { return stack_.back()->id; }

std::string CEmitter::Finish() {
  DFC_CHECK(stack_.size() == 1);
  std::string out;
  for (const std::string& line : stack_.back()->lines) absl::StrAppend(&out, line, "\n");
  return out;
}

absl::StatusOr<std::vector<std::string>> Memo::Get() {
  CEmitter* emitter = *emitter_;
  if (block_ && emitter->IsOpen(*block_)) return names_;
  const int depth =
      hoist_depth_ >= 0 && hoist_depth_ <= emitter->depth() ? hoist_depth_ : emitter->depth();
  using Result = absl::StatusOr<std::pair<int64_t, std::vector<std::string>>>;
  Result result = emitter->EmitAt<Result>(depth, [&]() -> Result {
    DFC_ASSIGN_OR_RETURN(std::vector<std::string> names, compute_());
    return std::make_pair(emitter->current_block(), std::move(names));
  });
  if (!result.ok()) return result.status();
  block_ = result->first;
  names_ = std::move(result->second);
  return names_;
}

}  // namespace dfc::codegen

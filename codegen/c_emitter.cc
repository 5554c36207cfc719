// Nested blocks of OpenCL C statements (see c_emitter.h).
#include "codegen/c_emitter.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/check.h"
#include "base/status.h"

namespace dfc::codegen {

CEmitter::CEmitter(int64_t* block_counter) : next_block_(block_counter) { OpenBlock(""); }

void CEmitter::Emit(absl::string_view line) {
  Count(*stack_.back(), line);
  stack_.back()->lines.emplace_back(line);
}

void CEmitter::EmitFirst(int depth, absl::string_view line) {
  Count(*stack_[depth - 1], line);
  std::vector<std::string>& lines = stack_[depth - 1]->lines;
  lines.emplace(lines.begin(), line);
}

void CEmitter::Count(const Block& block, absl::string_view line) {
  if (!ops_of_line_) return;
  if (const int64_t n = ops_of_line_(line); n > 0) ops_.Add(block.weight * n, block.denominator);
}

void OpCount::Add(const ArithExpr& numerator, int64_t denominator) {
  for (auto& [n, d] : terms) {
    if (d == denominator) {
      n = n + numerator;
      return;
    }
  }
  terms.emplace_back(numerator, denominator);
}

absl::StatusOr<double> OpCount::Evaluate(const SizeBindings& sizes) const {
  double total = 0;
  for (const auto& [n, d] : terms) {
    DFC_ASSIGN_OR_RETURN(const int64_t value, n.Evaluate(sizes));
    total += static_cast<double>(value) / static_cast<double>(d);
  }
  return total;
}

std::string CEmitter::Fresh(absl::string_view stem) {
  return absl::StrCat(stem, "_", (*next_block_)++);
}

void CEmitter::OpenBlock(std::string header, ArithExpr trips, Share share) {
  ArithExpr weight = trips * share.numerator;
  int64_t denominator = share.denominator;
  if (!stack_.empty()) {
    weight = stack_.back()->weight * weight;
    denominator *= stack_.back()->denominator;
  }
  stack_.push_back(std::make_unique<Block>(
      Block{(*next_block_)++, std::move(header), {}, std::move(weight), denominator}));
}

void CEmitter::CloseBlock() {
  DFC_CHECK(stack_.size() > 1);
  std::unique_ptr<Block> block = std::move(stack_.back());
  stack_.pop_back();
  Block& parent = *stack_.back();
  // A header of several lines (a loop under its #pragma) opens the block on its last.
  std::vector<std::string> header = absl::StrSplit(block->header, '\n');
  for (size_t k = 0; k + 1 < header.size(); ++k) parent.lines.push_back(header[k]);
  parent.lines.push_back(header.back().empty() ? "{" : absl::StrCat(header.back(), " {"));
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

int CEmitter::DeepestBranch() const {
  for (int d = depth(); d > 0; --d) {
    if (absl::StartsWith(stack_[d - 1]->header, "if")) return d;
  }
  return 0;
}

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

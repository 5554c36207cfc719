// Software prefetch of the rows a work-item streams, and the sequential loops it goes into
// (generator.h).
#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "codegen/generator.h"

namespace dfc::codegen::gen {

namespace {

// `text` cut into words (runs of letters, digits and '_') and the single characters between.
std::vector<absl::string_view> Tokens(absl::string_view text) {
  const auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::vector<absl::string_view> out;
  for (size_t at = 0; at < text.size();) {
    size_t end = at + 1;
    if (part(text[at])) {
      while (end < text.size() && part(text[end])) ++end;
    }
    out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

// The C identifiers `text` names, in order (not the suffixes of literals such as 784L).
std::vector<std::string> Identifiers(absl::string_view text) {
  std::vector<std::string> out;
  for (absl::string_view token : Tokens(text)) {
    const unsigned char first = token[0];
    if (std::isalpha(first) || first == '_') out.emplace_back(token);
  }
  return out;
}

// `text` with every whole identifier `name` replaced by `value`.
std::string ReplaceIdentifier(absl::string_view text, absl::string_view name,
                              absl::string_view value) {
  std::string out;
  for (absl::string_view token : Tokens(text)) absl::StrAppend(&out, token == name ? value : token);
  return out;
}

}  // namespace

void Generator::Prefetch(const std::string& pointer) {
  if (profile_.prefetch_bytes <= 0) return;
  const std::vector<std::string> names = Identifiers(pointer);
  const auto names_it = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  if (!names_it("gid")) return;
  for (auto loop = seq_loops_.rbegin(); loop != seq_loops_.rend(); ++loop) {
    if (loop->emitter != em_ || !names_it(loop->index)) continue;
    // It goes first in the loop's body, so it may name only what is declared before: the
    // buffer, gid, sizes, the indices of this loop and the sequential loops around it, and
    // the index arithmetic's functions. The index of an unrolled loop inside it (the rows of a
    // block, rewrite::BlockRows) takes each of its values: one prefetch a row.
    const size_t depth = static_cast<size_t>(loop.base() - seq_loops_.begin());
    std::vector<const UnrolledLoop*> expand;
    for (const std::string& name : names) {
      const bool known = name == "gid" || global_buffers_.contains(name) ||
                         name.rfind("size_", 0) == 0 ||
                         std::ranges::find(kIndexFunctions, name) != kIndexFunctions.end() ||
                         std::any_of(seq_loops_.begin(), loop.base(),
                                     [&](const SequentialLoop& l) { return l.index == name; });
      if (known) continue;
      const auto unrolled = std::ranges::find_if(
          unrolled_, [&](const UnrolledLoop& u) { return u.index == name && u.inside >= depth; });
      if (unrolled == unrolled_.end()) return;
      if (std::ranges::find(expand, &*unrolled) == expand.end()) expand.push_back(&*unrolled);
    }
    std::vector<std::string> pointers = {pointer};
    for (const UnrolledLoop* u : expand) {
      std::vector<std::string> each;
      for (const std::string& p : pointers) {
        for (int64_t v = 0; v < u->count; ++v) {
          each.push_back(ReplaceIdentifier(p, u->index, absl::StrCat(v, "L")));
        }
      }
      pointers = std::move(each);
    }
    if (static_cast<int64_t>(pointers.size()) > kMaxPrefetchesAStep) return;
    for (const std::string& p : pointers) {
      if (!loop->prefetched.insert(p).second) continue;
      uses_prefetch_ = true;
      em_->EmitFirst(loop->depth, absl::StrCat("DFC_PREFETCH((__global const char*)(", p, ") + ",
                                               profile_.prefetch_bytes, ");"));
    }
    return;
  }
}

void Generator::OpenSequentialLoop(const std::string& index, const std::string& header) {
  em_->OpenBlock(header);
  seq_loops_.push_back({.index = index, .emitter = em_, .depth = em_->depth()});
}

void Generator::CloseSequentialLoop() {
  seq_loops_.pop_back();
  em_->CloseBlock();
}

}  // namespace dfc::codegen::gen

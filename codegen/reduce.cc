// The generator's folds: ReduceSeq into scalars or private arrays, the lane tree of a vector,
// and a Reduce split across a work-group (generator.h).
#include <bit>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "codegen/generator.h"
#include "ir/analysis.h"
#include "ir/from_tf/scalar_funs.h"

namespace dfc::codegen::gen {

absl::StatusOr<CVal> Generator::ReduceSeq(const ir::FunPattern& p, std::vector<CVal> args,
                                          const Env& env) {
  const CVal init = args[0];
  const CVal array = args[1];
  if (init.type->is_array()) return ReduceIntoPrivate(p, init, array, env);
  std::vector<std::string> types;
  std::function<absl::Status(const TypePtr&)> collect = [&](const TypePtr& t) -> absl::Status {
    if (t->is_tuple()) {
      for (const TypePtr& e : t->elements) DFC_RETURN_IF_ERROR(collect(e));
      return absl::OkStatus();
    }
    if (!t->is_scalar() && !t->is_vector()) {
      return Unsupported(absl::StrCat("a Reduce accumulator of type ", ir::TypeToString(t)));
    }
    types.push_back(CType(t));  // a vector's lanes (rewrite::VectorizeColumns) fold at once
    return absl::OkStatus();
  };
  DFC_RETURN_IF_ERROR(collect(init.type));
  auto compute = [this, &p, init, types, array, env]() -> absl::StatusOr<std::vector<std::string>> {
    if (p.kind == Fun::Kind::kReduceLcl) {
      if (lanes_ == 0 || types.size() != 1) {
        return absl::InternalError(absl::StrCat("ReduceLcl of a ", ir::TypeToString(init.type),
                                                lanes_ == 0 ? " outside MapWrg" : ""));
      }
      DFC_ASSIGN_OR_RETURN(std::string result, EmitSplitReduce(p, init, array, types[0], env));
      return std::vector<std::string>{result};
    }
    if (p.kind == Fun::Kind::kReduceLanes) {
      DFC_ASSIGN_OR_RETURN(std::string result, EmitLaneTree(p, init, array, env));
      return std::vector<std::string>{result};
    }
    std::vector<const CVal*> init_leaves;
    DFC_RETURN_IF_ERROR(Leaves(init, init_leaves));
    std::vector<std::string> acc;
    for (size_t k = 0; k < init_leaves.size(); ++k) {
      DFC_ASSIGN_OR_RETURN(std::string v, init_leaves[k]->scalar());
      acc.push_back(em_->Fresh("acc"));
      em_->Emit(absl::StrCat(types[k], " ", acc.back(), " = ", v, ";"));
    }
    int loops = 0;
    DFC_ASSIGN_OR_RETURN(CVal element, OpenLoopsOver(array, loops));
    int next = 0;
    CVal acc_val = FromLeaves(
        init.type,
        [&acc](int k) -> Thunk {
          return [name = acc[k]]() -> absl::StatusOr<std::string> { return name; };
        },
        next);
    const bool saved = top_level_;
    top_level_ = false;
    absl::StatusOr<CVal> step = Apply(*p.f, {acc_val, element}, init.type, env);
    top_level_ = saved;
    if (!step.ok()) return step.status();
    std::vector<const CVal*> step_leaves;
    DFC_RETURN_IF_ERROR(Leaves(*step, step_leaves));
    // Every new value is computed before any is assigned: a field may read the old others.
    std::vector<std::string> next_values;
    for (size_t k = 0; k < step_leaves.size(); ++k) {
      DFC_ASSIGN_OR_RETURN(std::string v, step_leaves[k]->scalar());
      next_values.push_back(em_->Fresh("next"));
      em_->Emit(absl::StrCat("const ", types[k], " ", next_values.back(), " = ", v, ";"));
    }
    for (size_t k = 0; k < acc.size(); ++k) {
      em_->Emit(absl::StrCat(acc[k], " = ", next_values[k], ";"));
    }
    while (loops-- > 0) CloseSequentialLoop();
    return acc;
  };
  auto memo = std::make_shared<Memo>(&em_, std::move(compute), top_level_ ? 2 : -1);
  int next = 0;
  return FromLeaves(
      init.type,
      [memo](int k) -> Thunk {
        return [memo, k]() -> absl::StatusOr<std::string> {
          DFC_ASSIGN_OR_RETURN(std::vector<std::string> names, memo->Get());
          return names[k];
        };
      },
      next);
}

absl::StatusOr<CVal> Generator::ReduceIntoPrivate(const ir::FunPattern& p, const CVal& init,
                                                  const CVal& array, const Env& env) {
  if (std::optional<std::string> why = AccumulatorRefusal(init.type, !top_level_)) {
    return Unsupported(*why);
  }
  const std::optional<int64_t> n = Slots(init.type)->AsConstant();
  const TypePtr leaf = LeafType(init.type);
  const std::string type = CType(leaf);
  const std::string acc = em_->Fresh("acc");
  const int64_t scalar_bytes = SizeOf(leaf->dtype) * (leaf->is_vector() ? leaf->width : 1);
  DeclarePrivateArray(type, acc, *n, scalar_bytes, ir::TypeToString(init.type));
  // Every loop over the accumulator is unrolled, so that the driver's compiler can keep it in
  // registers: a private array indexed by loop counters lives in (cached) memory.
  DFC_RETURN_IF_ERROR(Store(init, init.type, acc, 0, /*private_array=*/true, /*unroll=*/true));
  int loops = 0;
  DFC_ASSIGN_OR_RETURN(CVal element, OpenLoopsOver(array, loops));
  DFC_ASSIGN_OR_RETURN(
      CVal step,
      Apply(*p.f, {Load(acc, leaf->dtype, init.type, 0), std::move(element)}, init.type, env));
  // Every new element is computed before any is assigned: an element may read the old others.
  const std::string next = em_->Fresh("next");
  DeclarePrivateArray(type, next, *n, scalar_bytes, "");
  DFC_RETURN_IF_ERROR(Store(step, init.type, next, 0, /*private_array=*/true, /*unroll=*/true));
  const std::string q = em_->Fresh("q");
  em_->Emit("#pragma unroll");
  em_->Emit(absl::StrCat("for (int ", q, " = 0; ", q, " < ", *n, "; ++", q, ") ", acc, "[", q,
                         "] = ", next, "[", q, "];"));
  while (loops-- > 0) CloseSequentialLoop();
  return Load(acc, leaf->dtype, init.type, 0);
}

absl::StatusOr<std::string> Generator::EmitLaneTree(const ir::FunPattern& p, const CVal& init,
                                                    const CVal& vectors, const Env& env) {
  DFC_ASSIGN_OR_RETURN(CVal whole, vectors.element(0));
  const DType dtype = whole.type->dtype;
  DFC_ASSIGN_OR_RETURN(std::string text, whole.scalar());
  std::string name = em_->Fresh("lanes");
  em_->Emit(absl::StrCat("const ", CType(whole.type), " ", name, " = ", text, ";"));
  for (int w = whole.type->width / 2; w >= 1; w /= 2) {
    const TypePtr half = w > 1 ? ir::VectorType(dtype, w) : ir::ScalarType(dtype);
    auto part = [&](const char* which) {
      return CVal{half, [text = absl::StrCat(name, ".", which)]() -> absl::StatusOr<std::string> {
                    return text;
                  }};
    };
    DFC_ASSIGN_OR_RETURN(CVal both, Apply(*p.f, {part("lo"), part("hi")}, half, env));
    DFC_ASSIGN_OR_RETURN(std::string combined, both.scalar());
    name = em_->Fresh("lanes");
    em_->Emit(absl::StrCat("const ", CType(half), " ", name, " = ", combined, ";"));
  }
  auto named = [&](std::string text) {
    return CVal{init.type, [text]() -> absl::StatusOr<std::string> { return text; }};
  };
  DFC_ASSIGN_OR_RETURN(std::string init_value, init.scalar());
  DFC_ASSIGN_OR_RETURN(CVal with_init,
                       Apply(*p.f, {named(init_value), named(name)}, init.type, env));
  DFC_ASSIGN_OR_RETURN(std::string result_text, with_init.scalar());
  const std::string result = em_->Fresh("acc");
  em_->Emit(absl::StrCat("const ", CType(init.type), " ", result, " = ", result_text, ";"));
  return result;
}

absl::StatusOr<std::string> Generator::EmitSplitReduce(const ir::FunPattern& p, const CVal& init,
                                                       const CVal& array, const std::string& type,
                                                       const Env& env) {
  local_types_.insert(type);
  const std::string scratch = absl::StrCat("dfc_part_", type);
  auto named = [&](std::string text) {
    return CVal{init.type, [text]() -> absl::StatusOr<std::string> { return text; }};
  };
  auto combine = [&](const CVal& a, const CVal& b) -> absl::StatusOr<std::string> {
    DFC_ASSIGN_OR_RETURN(CVal v, Apply(*p.f, {a, b}, init.type, env));
    return v.scalar();
  };
  DFC_ASSIGN_OR_RETURN(std::string init_value, init.scalar());
  // MapLcl: work-item lid folds elements lid, lid + L, ... of the row's array.
  const std::string part = em_->Fresh("part"), has = em_->Fresh("has"), i = em_->Fresh("i");
  em_->Emit(absl::StrCat(type, " ", part, " = ", init_value, ";"));
  em_->Emit(absl::StrCat("uchar ", has, " = 0;"));
  em_->OpenBlock(absl::StrCat("for (long ", i, " = lid; ", i, " < ", Print(array.type->length),
                              "; ", i, " += ", lanes_, ")"),
                 (array.type->length + (lanes_ - 1)) / lanes_);
  const std::string x = em_->Fresh("x");
  absl::StatusOr<CVal> element = array.element(CVar(i));
  absl::StatusOr<std::string> value = element.ok() ? element->scalar() : element.status();
  if (value.ok()) em_->Emit(absl::StrCat("const ", type, " ", x, " = ", *value, ";"));
  absl::StatusOr<std::string> step = value.ok() ? combine(named(part), named(x)) : value.status();
  if (!step.ok()) return step.status();
  em_->Emit(absl::StrCat(part, " = ", has, " ? ", *step, " : ", x, ";"));
  em_->Emit(absl::StrCat(has, " = 1;"));
  em_->CloseBlock();
  // The partial results, combined pairwise in local memory: after the level of stride s,
  // item l < s holds the combination of items l, l + s, l + 2s, ...
  em_->Emit(absl::StrCat(scratch, "[lid] = ", part, ";"));
  em_->Emit(absl::StrCat("dfc_has[lid] = ", has, ";"));
  em_->Emit("barrier(CLK_LOCAL_MEM_FENCE);");
  const std::string s = em_->Fresh("s");
  em_->OpenBlock(absl::StrCat("for (int ", s, " = ", lanes_ / 2, "; ", s, " > 0; ", s, " >>= 1)"),
                 static_cast<int64_t>(std::bit_width(static_cast<unsigned>(lanes_))) - 1);
  em_->OpenBlock(absl::StrCat("if (lid < ", s, " && dfc_has[lid + ", s, "])"));
  const std::string mine = absl::StrCat(scratch, "[lid]");
  const std::string theirs = absl::StrCat(scratch, "[lid + ", s, "]");
  DFC_ASSIGN_OR_RETURN(std::string both, combine(named(mine), named(theirs)));
  em_->Emit(absl::StrCat(mine, " = dfc_has[lid] ? ", both, " : ", theirs, ";"));
  em_->Emit("dfc_has[lid] = 1;");
  em_->CloseBlock();
  em_->Emit("barrier(CLK_LOCAL_MEM_FENCE);");
  em_->CloseBlock();
  // The Reduce's result: its initial value combined with the row's, for every work-item.
  const std::string row = absl::StrCat(scratch, "[0]");
  DFC_ASSIGN_OR_RETURN(std::string with_init, combine(named(init_value), named(row)));
  const std::string result = em_->Fresh("acc");
  em_->Emit(absl::StrCat("const ", type, " ", result, " = dfc_has[0] ? ", with_init, " : ",
                         init_value, ";"));
  em_->Emit("barrier(CLK_LOCAL_MEM_FENCE);  // every item has read it: the next may reuse it");
  return result;
}

}  // namespace dfc::codegen::gen

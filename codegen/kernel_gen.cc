// The kernels of a cluster (kernel_gen.h): the outputs mapped onto work-items (MapGlb, or
// MapWrg/MapLcl for few rows that reduce), and the program assembled around them. The
// generator's other parts are listed in generator.h.
#include "codegen/kernel_gen.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status.h"
#include "codegen/generator.h"
#include "graph/arith.h"
#include "ir/analysis.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/traverse.h"
#include "ir/type.h"
#include "ir/work.h"
#include "rewrite/lower_for_device.h"
#include "rewrite/lowering.h"

namespace dfc::codegen {
namespace gen {
namespace {

// Software prefetch (DeviceProfile::prefetch_bytes): clang's builtin, which PoCL's and other
// LLVM-based CPU drivers turn into prefetch instructions; nothing elsewhere (OpenCL's own
// prefetch() is a no-op in PoCL).
const char kPrefetchPrelude[] = R"(#if defined(__clang__)
#define DFC_PREFETCH(p) __builtin_prefetch(p)
#else
#define DFC_PREFETCH(p)
#endif
)";

const char kPrelude[] = R"(// Floor division and modulo of sizes and indices (C's / and % truncate).
long dfc_floordiv(long a, long b) {
  long q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
long dfc_floormod(long a, long b) {
  long r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
)";

const char kHalfPrelude[] =
    R"(// float16 is computed in float and rounded to half after every operation, as TensorFlow does.
float dfc_round_half(float x) {
  ushort bits;
  vstore_half_rte(x, 0, (__private half*)&bits);
  return vload_half(0, (__private const half*)&bits);
}
)";

bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The name a parameter line declares: "__global const float* restrict in0  // x" is in0.
std::string ParameterName(absl::string_view line) {
  line = line.substr(0, line.find("  //"));
  while (!line.empty() && !IsIdentifierChar(line.back())) line.remove_suffix(1);
  size_t start = line.size();
  while (start > 0 && IsIdentifierChar(line[start - 1])) --start;
  return std::string(line.substr(start));
}

// Whether `name` occurs in one of `texts` as a whole identifier.
bool UsesName(std::initializer_list<absl::string_view> texts, absl::string_view name) {
  for (absl::string_view text : texts) {
    for (size_t at = text.find(name); at != absl::string_view::npos; at = text.find(name, at + 1)) {
      const size_t end = at + name.size();
      if ((at == 0 || !IsIdentifierChar(text[at - 1])) &&
          (end == text.size() || !IsIdentifierChar(text[end]))) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

int64_t Generator::OpsOfLine(absl::string_view line) const {
  int64_t ops = 0;
  for (size_t i = 0; i < line.size();) {
    const auto word = [&](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    if (!word(line[i])) {
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < line.size() && word(line[i])) ++i;
    if (i == line.size() || line[i] != '(') continue;
    const auto it = fun_ops_.find(line.substr(start, i - start));
    if (it != fun_ops_.end()) ops += it->second;
  }
  return ops;
}

ArithExpr Generator::StageOwnOps(const std::vector<Output>& outputs) const {
  ArithExpr ops(0);
  std::vector<const ir::Expr*> read;
  for (const Output& out : outputs) {
    ops = ops + ir::StrictOps(out.expr);
    read.push_back(out.expr.get());
  }
  // Each unstored let value read by what the stage computes, counted once, and the unstored lets
  // those values read in turn.
  std::vector<bool> counted(unstored_lets_.size(), false);
  for (size_t r = 0; r < read.size(); ++r) {
    for (size_t k = 0; k < unstored_lets_.size(); ++k) {
      const auto& [param, value] = unstored_lets_[k];
      if (counted[k] || ir::Reads(*read[r], param) == 0) continue;
      counted[k] = true;
      ops = ops + ir::StrictOps(value);
      read.push_back(value.get());
    }
  }
  return ops;
}

absl::StatusOr<Generator::Output> Generator::MappedOutput(const ExprPtr& e, const Env& env,
                                                          std::string buffer, std::string comment) {
  Output out{
      .expr = e, .type = e->type, .buffer = std::move(buffer), .comment = std::move(comment)};
  if (!e->type->is_array()) {
    // One work-item computes a scalar, or one work-group where it splits its Reduces.
    rewrite::WalkKernel(e, [&](const ExprPtr& x) {
      out.by_work_groups = out.by_work_groups || rewrite::CallOf(x, Fun::Kind::kReduceLcl);
      return !out.by_work_groups;
    });
    DFC_ASSIGN_OR_RETURN(out.value, Eval(e, env));
    return out;
  }
  const ExprPtr rows = rewrite::MappedRows(e);  // the MapGlb or MapWrg call
  if (rows == nullptr) {
    return absl::InternalError(
        absl::StrCat("the rows of ", ir::TypeToString(e->type), " are not mapped onto the device"));
  }
  out.by_work_groups = static_cast<const ir::FunCall&>(*rows).f->kind == Fun::Kind::kMapWrg;
  // Split(m) of rows (flattenRows' MapGlb, or blocks of joined positions): the same memory as
  // the rows under the Splits, stored as they are.
  ExprPtr joined = e;
  while (const ir::FunCall* split = rewrite::CallOf(joined, Fun::Kind::kSplit)) {
    joined = split->args[0];
  }
  out.type = joined->type;
  out.blocks = rows != joined;
  if (const ir::FunCall* prefix = rewrite::CallOf(joined, Fun::Kind::kReindex);
      prefix && out.blocks) {
    out.rows_below = ir::As<ir::ReindexPattern>(*prefix->f).length;
  }
  DFC_ASSIGN_OR_RETURN(out.value, Eval(rows, env));
  return out;
}

absl::Status Generator::EmitKernel(const std::string& name, const std::vector<Output>& outputs) {
  // MapWrg/MapLcl (kernel_gen.h) for the outputs the lowering mapped by work-groups, MapGlb for
  // the rest, in a kernel of its own after them.
  std::vector<Output> split, rest;
  for (const Output& out : outputs) (out.by_work_groups ? split : rest).push_back(out);
  for (const auto& [group, mapped_lanes, stage_name] :
       {std::tuple{&split, profile_.WorkGroupReductionSize(),
                   rest.empty() ? name : absl::StrCat(name, "_wrg")},
        std::tuple{&rest, 0, name}}) {
    if (group->empty()) continue;
    if (mapped_lanes <= 0 && group == &split) {
      return absl::InternalError(
          absl::StrCat("MapWrg on ", profile_.name, ", which does not reduce in work-groups"));
    }
    DFC_ASSIGN_OR_RETURN(EmittedKernel kernel, EmitKernelMapped(stage_name, *group, mapped_lanes));
    kernels_.push_back(std::move(kernel.text));
    stages_.push_back(std::move(kernel.stage));
  }
  return absl::OkStatus();
}

absl::StatusOr<Generator::EmittedKernel> Generator::EmitKernelMapped(
    const std::string& name, const std::vector<Output>& outputs, int lanes) {
  CEmitter emitter(&block_counter_);
  emitter.CountOps([this](absl::string_view line) { return OpsOfLine(line); });
  CEmitter* const outer = em_;
  em_ = &emitter;
  lanes_ = lanes;
  local_types_.clear();
  const int64_t outer_private_bytes = private_bytes_;  // of the kernel this one is nested in
  private_bytes_ = 0;
  EmittedKernel kernel{.stage = {name, {}, lanes > 0 ? lanes : work_group_size_, lanes > 0}};
  KernelStage& stage = kernel.stage;
  // Under MapWrg/MapLcl every work-item of a row's group runs the row's code.
  const int items_a_row = std::max(lanes, 1);
  auto emit = [&]() -> absl::Status {
    if (lanes > 0) {
      em_->Emit(
          absl::StrCat("// MapWrg(0) over rows, MapLcl(0) in each: work-group gid computes "
                       "row gid; its ",
                       lanes, " work-items split every Reduce by a combiner"));
      em_->Emit("const long gid = get_group_id(0);");
      em_->Emit("const int lid = get_local_id(0);");
    } else {
      em_->Emit("// MapGlb(0) over rows: work-item gid computes row gid");
      em_->Emit("const long gid = get_global_id(0);");
    }
    for (const Output& out : outputs) {
      em_->Emit(absl::StrCat("// ", out.comment));
      if (out.blocks) {
        // Join $ MapGlb(f) $ x: work-item gid computes block f(x[gid]) once and stores its
        // rows, where row by row each would compute its whole block again. The block's type
        // ([b][m]) is the output's ([n·b][m]) cut in rows of b, so the bounds still come
        // from the declared type.
        const CVal& blocks = out.value;
        em_->Emit(absl::StrCat("// MapGlb: work-item gid computes block gid of ",
                               ir::TypeToString(blocks.type->element), " rows"));
        stage.rows.push_back(blocks.type->length);
        em_->OpenBlock(absl::StrCat("if (gid < ", Print(blocks.type->length), ")"),
                       blocks.type->length * items_a_row);
        DFC_ASSIGN_OR_RETURN(CVal block, blocks.element(CVar("gid")));
        DFC_RETURN_IF_ERROR(Store(block, blocks.type->element, out.buffer, CVar("gid"),
                                  /*private_array=*/false, /*unroll=*/false, out.rows_below));
      } else if (out.type->is_array()) {
        stage.rows.push_back(out.type->length);
        em_->OpenBlock(absl::StrCat("if (gid < ", Print(out.type->length), ")"),
                       out.type->length * items_a_row);
        DFC_ASSIGN_OR_RETURN(CVal row, out.value.element(CVar("gid")));
        DFC_RETURN_IF_ERROR(Store(row, out.type->element, out.buffer, CVar("gid")));
      } else {
        stage.rows.push_back(1);
        em_->OpenBlock("if (gid == 0)", items_a_row);
        DFC_RETURN_IF_ERROR(Store(out.value, out.type, out.buffer, 0));
      }
      em_->CloseBlock();
      const DType dtype = ir::BaseDType(out.type);
      uses_half_ |= dtype == DType::kHalf;
      uses_double_ |= dtype == DType::kDouble;
    }
    return absl::OkStatus();
  };
  absl::Status status = emit();
  em_ = outer;
  lanes_ = 0;
  stage.private_bytes = private_bytes_;
  private_bytes_ = outer_private_bytes;
  DFC_RETURN_IF_ERROR(status);
  stage.ops = emitter.ops();
  stage.own_ops = StageOwnOps(outputs);
  for (const Output& out : outputs) {
    if (std::optional<SymbolicShape> shape = ir::TensorShape(out.type)) {
      stage.stored_bytes =
          stage.stored_bytes +
          NumElements(*shape) * ArithExpr(static_cast<int64_t>(SizeOf(ir::BaseDType(out.type))));
    }
  }
  // Local memory is declared at the kernel's scope.
  for (const std::string& type : local_types_) {
    absl::StrAppend(&kernel.text.locals, "__local ", type, " dfc_part_", type, "[", lanes, "];\n");
  }
  if (!local_types_.empty()) {
    absl::StrAppend(&kernel.text.locals, "__local uchar dfc_has[", lanes, "];\n");
  }
  kernel.text.body = emitter.Finish();
  return kernel;
}

absl::StatusOr<KernelSource> Generator::Generate(const KernelOptions& options) {
  const auto& lambda = *cluster_.lambda;
  name_ = options.name;
  work_group_size_ =
      options.work_group_size >= 0 ? options.work_group_size : options.profile.WorkGroupSize();
  profile_ = options.profile;
  auto root = std::make_shared<Bindings>();
  for (size_t k = 0; k < lambda.params.size(); ++k) {
    const TypePtr& type = lambda.params[k]->type;
    if (!ir::TensorShape(type)) {
      return Unsupported(absl::StrCat("a parameter of type ", ir::TypeToString(type)));
    }
    const DType dtype = ir::BaseDType(type);
    const std::string name = absl::StrCat("in", k);
    global_buffers_.insert(name);
    buffer_params_.push_back(absl::StrCat("__global const ", StorageType(dtype), "* restrict ",
                                          name, "  // ", cluster_.params[k].ToString()));
    (*root)[lambda.params[k].get()] = Load(name, dtype, type, 0);
  }
  const Env env =
      std::make_shared<const Frame>(Frame{.root = root, .parent = nullptr, .bindings = {}});

  // The body's top level: what the whole cluster binds (its lets) is evaluated here, once, and
  // then the values its outputs store, as the lowering mapped them.
  CEmitter top(&block_counter_);
  em_ = &top;
  top_level_ = true;
  std::vector<Output> outputs;
  absl::Status evaluated = [&]() -> absl::Status {
    Env scope = env;
    ExprPtr e = lambda.body;
    while (const ir::FunCall* let = rewrite::CallOf(e, Fun::Kind::kLambda)) {
      DFC_ASSIGN_OR_RETURN(scope, BindLet(*let, scope));
      e = static_cast<const ir::Lambda&>(*let->f).body;
    }
    const std::vector<ExprPtr> stored = rewrite::BodyOutputs(e);
    if (stored.size() != cluster_.outputs.size()) {
      return absl::InternalError(absl::StrCat("the cluster's body stores ", stored.size(),
                                              " values for ", cluster_.outputs.size(), " outputs"));
    }
    for (size_t k = 0; k < stored.size(); ++k) {
      const TypePtr& type = cluster_.output_types[k];
      const std::string buffer = absl::StrCat("out", k);
      DFC_ASSIGN_OR_RETURN(Output out, MappedOutput(stored[k], scope, buffer,
                                                    absl::StrCat(cluster_.outputs[k].ToString(),
                                                                 ": ", ir::TypeToString(type))));
      // An output flattenRows joined (Split $ MapGlb) is stored as its rows: the same memory.
      if (rewrite::CallOf(stored[k], Fun::Kind::kSplit) == nullptr) out.type = type;
      outputs.push_back(std::move(out));
    }
    // The outputs' buffers follow the temporaries' (made while evaluating them).
    for (size_t k = 0; k < stored.size(); ++k) {
      buffer_params_.push_back(
          absl::StrCat("__global ", StorageType(ir::BaseDType(cluster_.output_types[k])),
                       "* restrict ", outputs[k].buffer, "  // ", cluster_.outputs[k].ToString()));
    }
    return absl::OkStatus();
  }();
  top_level_ = false;
  DFC_RETURN_IF_ERROR(evaluated);
  DFC_RETURN_IF_ERROR(EmitKernel(options.name, outputs));
  // Statements emitted at the top level itself (a runtime index read outside every Map) go
  // first in every kernel.
  const std::string preamble = top.Finish();

  KernelSource kernel;
  kernel.stages = stages_;
  kernel.temporaries = temporaries_;
  kernel.checks_indices = checks_indices_;
  std::vector<std::string> params = buffer_params_;
  params.push_back("__global int* restrict dfc_error  // set when an index is out of range");
  for (const std::string& var : size_vars_) {
    kernel.size_args.push_back(var);
    params.push_back(absl::StrCat("const long size_", var));
  }

  std::string& src = kernel.source;
  absl::StrAppend(&src, "// ", options.name, ": generated by dfc\n// TF nodes:\n");
  for (const std::string& node : options.nodes) absl::StrAppend(&src, "//   ", node, "\n");
  if (!options.rules.empty() && options.rules != "default") {
    absl::StrAppend(&src, "// rewritten by: ", options.rules, "\n");
  }
  absl::StrAppend(&src,
                  "// strategy: default (outer Map -> MapGlb(0), or MapWrg(0)/MapLcl(0) for few "
                  "rows that reduce (see each kernel); inner Maps -> MapSeq, Reduce -> "
                  "ReduceSeq, views as index arithmetic, values read twice computed once by a "
                  "kernel of their own)\n// device: ",
                  profile_.name, ": ", profile_.description,
                  work_group_size_ > 0 ? absl::StrCat("; work-groups of ", work_group_size_)
                                       : std::string("; work-group size left to the driver"),
                  "\n\n");
  if (uses_double_) absl::StrAppend(&src, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\n");
  absl::StrAppend(&src, kPrelude, "\n");
  if (uses_prefetch_) absl::StrAppend(&src, kPrefetchPrelude, "\n");
  if (uses_half_) absl::StrAppend(&src, kHalfPrelude, "\n");
  for (const auto& [name, f] : user_funs_) {
    std::vector<std::string> names;
    for (size_t k = 0; k < f->param_names.size(); ++k) {
      names.push_back(
          absl::StrCat(ir::OpenCLType(f->param_types[k]->dtype), " ", f->param_names[k]));
    }
    absl::StrAppend(&src, ir::OpenCLType(f->result_type->dtype), " ", name, "(",
                    absl::StrJoin(names, ", "), ") {\n  ", f->body, "\n}\n");
  }
  for (const auto& [name, twin] : vector_funs_) {
    const auto& [f, width] = twin;
    std::vector<std::string> names;
    for (size_t k = 0; k < f->param_names.size(); ++k) {
      names.push_back(
          absl::StrCat(ir::OpenCLType(f->param_types[k]->dtype), width, " ", f->param_names[k]));
    }
    absl::StrAppend(&src, ir::OpenCLType(f->result_type->dtype), width, " ", name, "(",
                    absl::StrJoin(names, ", "), ") {\n  ", f->body, "\n}\n");
  }
  for (const auto& [name, fused] : fma_funs_) {
    const auto& [f, width] = fused;
    const std::string type =
        absl::StrCat(ir::OpenCLType(f->result_type->dtype), width > 1 ? absl::StrCat(width) : "");
    absl::StrAppend(&src, type, " ", name, "(", type, " acc, ", type, " x, ", type,
                    " y) {\n  return fma(x, y, acc);\n}\n");
  }
  for (size_t s = 0; s < stages_.size(); ++s) {
    const std::string attribute = stages_[s].work_group_per_row
                                      ? absl::StrCat("__attribute__((reqd_work_group_size(",
                                                     stages_[s].work_group_size, ", 1, 1))) ")
                                      : "";
    absl::StrAppend(&src, "\n__kernel ", attribute, "void ", stages_[s].name, "(\n");
    // Each stage takes only what it reads or writes: a launch costs the driver work for every
    // buffer it is given.
    std::vector<std::string> used;
    for (const std::string& param : params) {
      if (UsesName({kernels_[s].locals, preamble, kernels_[s].body}, ParameterName(param))) {
        used.push_back(param);
      }
    }
    if (used.empty()) absl::StrAppend(&src, "    void) {\n");
    for (size_t k = 0; k < used.size(); ++k) {
      // The comment after a parameter goes after its comma.
      std::string line = used[k];
      const size_t comment = line.find("  //");
      const std::string sep = k + 1 < used.size() ? "," : ") {";
      if (comment == std::string::npos) {
        line += sep;
      } else {
        line.insert(comment, sep);
      }
      absl::StrAppend(&src, "    ", line, "\n");
    }
    // Local memory first (it is declared at the kernel's scope), then the statements of the
    // cluster's top level, then the kernel's own.
    for (const std::string& text : {kernels_[s].locals, preamble, kernels_[s].body}) {
      for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
        absl::StrAppend(&src, "  ", line, "\n");
      }
    }
    absl::StrAppend(&src, "}\n");
  }
  return kernel;
}

}  // namespace gen

absl::StatusOr<std::vector<std::string>> KernelParameters(absl::string_view source,
                                                          absl::string_view name) {
  const std::string opening = absl::StrCat("void ", name, "(\n");
  const size_t at = source.find(opening);
  if (at == absl::string_view::npos) {
    return absl::NotFoundError(absl::StrCat("the source has no kernel ", name));
  }
  std::vector<std::string> names;
  size_t line_start = at + opening.size();
  for (;;) {
    const size_t line_end = source.find('\n', line_start);
    if (line_end == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("kernel ", name, "'s parameters do not end"));
    }
    const absl::string_view line = source.substr(line_start, line_end - line_start);
    const absl::string_view code = line.substr(0, line.find("  //"));
    if (code.find("void)") == absl::string_view::npos) names.push_back(gen::ParameterName(code));
    if (code.find(") {") != absl::string_view::npos) return names;
    line_start = line_end + 1;
  }
}

std::string StorageType(DType dtype) {
  return dtype == DType::kHalf ? "half" : ir::OpenCLType(dtype);
}

absl::StatusOr<KernelSource> GenerateKernel(const ir::TranslatedCluster& lowered,
                                            const KernelOptions& options) {
  DFC_RETURN_IF_ERROR(rewrite::VerifyLowered(lowered.lambda->body));
  gen::Generator generator(lowered);
  return generator.Generate(options);
}

}  // namespace dfc::codegen

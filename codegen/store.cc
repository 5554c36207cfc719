// Writing values: stores into buffers and private arrays (a write-side view's own writer),
// and values materialised by a kernel of their own or a private array (generator.h).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "codegen/generator.h"
#include "ir/from_tf/scalar_funs.h"

namespace dfc::codegen::gen {

absl::Status Generator::Store(const CVal& value, const TypePtr& type, const std::string& buffer,
                              const ArithExpr& offset, bool private_array, bool unroll,
                              const std::optional<ArithExpr>& rows_below) {
  const DType dtype = ir::BaseDType(type);
  if ((type->is_scalar() || type->is_vector()) && value.type->kind == type->kind) {
    DFC_ASSIGN_OR_RETURN(std::string v, value.scalar());
    if (private_array) {
      em_->Emit(absl::StrCat(buffer, "[", Print(offset), "] = ", v, ";"));
      return absl::OkStatus();
    }
    // Under MapWrg/MapLcl every work-item of the group holds the row: the first stores it.
    em_->Emit(absl::StrCat(
        lanes_ > 0 ? "if (lid == 0) " : "",
        dtype == DType::kHalf
            ? absl::StrCat("vstore_half_rte(", v, ", ", Print(offset), ", ", buffer, ");")
            : absl::StrCat(buffer, "[", Print(offset), "] = ", v, ";")));
    return absl::OkStatus();
  }
  if (!type->is_array() || !value.type->is_array()) {
    return absl::InternalError(absl::StrCat("an output of type ", ir::TypeToString(type),
                                            " has a value of type ", ir::TypeToString(value.type)));
  }
  if (value.writer) {
    DFC_ASSIGN_OR_RETURN(bool written,
                         value.writer({type, buffer, offset, private_array, rows_below}));
    if (written) return absl::OkStatus();
  }
  if (value.rows != nullptr && !unroll && !rows_below) {
    // A value joined from rows (a Join, or a Map or Zip of one): each row obtained once, then
    // its elements; element by element, each would obtain its row again (a fold that makes a
    // group of a convolution's output channels, once per channel).
    const CVal& rows = *value.rows;
    const ArithExpr r = CVar(em_->Fresh("r"));
    const TypePtr row_type = ir::ArrayType(type->element, rows.type->element->length);
    em_->OpenBlock(ForHeader(r, rows.type->length), rows.type->length);
    DFC_ASSIGN_OR_RETURN(CVal row, rows.element(r));
    DFC_RETURN_IF_ERROR(
        Store(row, row_type, buffer, offset * rows.type->length + r, private_array, unroll));
    em_->CloseBlock();
    return absl::OkStatus();
  }
  const std::optional<int64_t> count = type->length.AsConstant();
  if (unroll && count && *count <= kUnrolledInText && !rows_below) {
    // Unrolled in the text: each element's statements with its own constants, so that a load
    // two elements share (the vector of a product's right matrix that every row of a register
    // block multiplies) is made once (LoadOnce).
    for (int64_t k = 0; k < *count; ++k) {
      DFC_ASSIGN_OR_RETURN(CVal element, value.element(k));
      DFC_RETURN_IF_ERROR(
          Store(element, type->element, buffer, offset * type->length + k, private_array, unroll));
    }
    return absl::OkStatus();
  }
  const ArithExpr j = CVar(em_->Fresh("j"));
  std::string header = ForHeader(j, type->length);
  if (unroll && count) {
    header = absl::StrCat("#pragma unroll\n", header);
    unrolled_.push_back({j.var_name(), *count, seq_loops_.size(), em_->depth() + 1});
  }
  em_->OpenBlock(header, type->length);
  const ArithExpr at = offset * type->length + j;
  if (rows_below) em_->OpenBlock(absl::StrCat("if (", Print(at), " < ", Print(*rows_below), ")"));
  absl::Status stored = [&]() -> absl::Status {
    DFC_ASSIGN_OR_RETURN(CVal element, value.element(j));
    return Store(element, type->element, buffer, at, private_array, unroll);
  }();
  if (unroll && count) unrolled_.pop_back();
  DFC_RETURN_IF_ERROR(stored);
  if (rows_below) em_->CloseBlock();
  em_->CloseBlock();
  return absl::OkStatus();
}

absl::StatusOr<bool> Generator::StoreVectors(const CVal& vectors, const StoreTarget& target) {
  const TypePtr& type = target.type;
  if (!type->element->is_scalar() || ir::BaseDType(type) == DType::kHalf || target.private_array ||
      target.rows_below) {
    return false;
  }
  const int w = vectors.type->element->width;
  const ArithExpr i = CVar(em_->Fresh("i"));
  em_->OpenBlock(ForHeader(i, vectors.type->length), vectors.type->length);
  DFC_ASSIGN_OR_RETURN(CVal vector, vectors.element(i));
  DFC_ASSIGN_OR_RETURN(std::string v, vector.scalar());
  em_->Emit(absl::StrCat(lanes_ > 0 ? "if (lid == 0) " : "", "vstore", w, "(", v, ", 0, ",
                         target.buffer, " + ", Print(target.offset * type->length + i * w), ");"));
  em_->CloseBlock();
  return true;
}

absl::StatusOr<bool> Generator::StoreColumns(const CVal& columns, const StoreTarget& target) {
  const TypePtr& type = target.type;
  if (lanes_ > 0 || !type->element->is_array() || !type->element->element->is_scalar()) {
    return false;
  }
  const std::string& buffer = target.buffer;
  const std::optional<ArithExpr>& rows_below = target.rows_below;
  const TypePtr& leaf = columns.type->element->element;  // columns: [m][r]
  // A column's element: a scalar, a vector of w of a row's scalars, or a block of `vectors` such
  // vectors side by side (blockColumns' columns, viewed as scalars by AsScalar o Join).
  int64_t vectors = 1;
  TypePtr lane = leaf;
  if (leaf->is_array()) {
    const std::optional<int64_t> m = leaf->length.AsConstant();
    if (!m || !leaf->element->is_vector()) return false;
    vectors = *m;
    lane = leaf->element;
  }
  const int w = lane->is_vector() ? lane->width : 1;
  // Column i's r rows.
  const auto store_column = [&](const CVal& column, const ArithExpr& i) -> absl::Status {
    const ArithExpr j = CVar(em_->Fresh("j"));
    em_->OpenBlock(absl::StrCat(type->length.AsConstant() ? "#pragma unroll\n" : "",
                                ForHeader(j, type->length)),
                   type->length);
    const ArithExpr row_at = target.offset * type->length + j;
    if (rows_below)
      em_->OpenBlock(absl::StrCat("if (", Print(row_at), " < ", Print(*rows_below), ")"));
    DFC_ASSIGN_OR_RETURN(CVal element, column.element(j));
    const ArithExpr at = row_at * type->element->length + i * (vectors * w);
    if (leaf->is_array()) {
      for (int64_t v = 0; v < vectors; ++v) {
        DFC_ASSIGN_OR_RETURN(CVal vector, element.element(v));
        DFC_ASSIGN_OR_RETURN(std::string value, vector.scalar());
        em_->Emit(
            absl::StrCat("vstore", w, "(", value, ", 0, ", buffer, " + ", Print(at + v * w), ");"));
      }
    } else if (w > 1) {
      DFC_ASSIGN_OR_RETURN(std::string v, element.scalar());
      em_->Emit(absl::StrCat("vstore", w, "(", v, ", 0, ", buffer, " + ", Print(at), ");"));
    } else {
      DFC_RETURN_IF_ERROR(Store(element, leaf, buffer, at, target.private_array));
    }
    if (rows_below) em_->CloseBlock();
    em_->CloseBlock();
    return absl::OkStatus();
  };
  const ArithExpr g = CVar(em_->Fresh("i"));
  if (columns.rows != nullptr) {
    // Join $ blocks of m columns (blockColumns): each block computed once, then its columns.
    const CVal& blocks = *columns.rows;
    const int64_t m = *blocks.type->element->length.AsConstant();
    em_->OpenBlock(ForHeader(g, blocks.type->length), blocks.type->length);
    DFC_ASSIGN_OR_RETURN(CVal block, blocks.element(g));
    for (int64_t c = 0; c < m; ++c) {
      DFC_ASSIGN_OR_RETURN(CVal column, block.element(c));
      DFC_RETURN_IF_ERROR(store_column(column, g * m + c));
    }
    em_->CloseBlock();
    return true;
  }
  em_->OpenBlock(ForHeader(g, columns.type->length), columns.type->length);
  DFC_ASSIGN_OR_RETURN(CVal column, columns.element(g));
  DFC_RETURN_IF_ERROR(store_column(column, g));
  em_->CloseBlock();
  return true;
}

absl::StatusOr<CVal> Generator::Materialize(const ExprPtr& e, const Env& env) {
  DFC_ASSIGN_OR_RETURN(std::vector<CVal> stored, MaterializeTogether({e}, env));
  return std::move(stored[0]);
}

absl::StatusOr<std::vector<CVal>> Generator::MaterializeTogether(const std::vector<ExprPtr>& values,
                                                                 const Env& env) {
  std::vector<Output> outs;
  for (const ExprPtr& e : values) {
    if (!e->type->is_array() || !ir::TensorShape(e->type)) {
      return Unsupported(absl::StrCat("ToGlobal of a ", ir::TypeToString(e->type)));
    }
    // Evaluated first: the temporaries it reads are numbered before its own.
    DFC_ASSIGN_OR_RETURN(Output out, MappedOutput(e, env, "", ""));
    const std::string buffer = out.buffer = absl::StrCat("tmp", temporaries_.size());
    out.comment = absl::StrCat(buffer, ": ", ir::TypeToString(e->type));
    temporaries_.push_back(e->type);
    global_buffers_.insert(buffer);
    buffer_params_.push_back(absl::StrCat("__global ", StorageType(ir::BaseDType(e->type)),
                                          "* restrict ", buffer, "  // ",
                                          ir::TypeToString(e->type)));
    outs.push_back(std::move(out));
  }
  // Outside every output's block, the stage computes its values as the cluster's body would.
  const bool saved = top_level_;
  top_level_ = false;
  const std::string stage = absl::StrCat(name_, "_s", stages_.size());
  absl::Status emitted = EmitKernel(stage, outs);
  top_level_ = saved;
  DFC_RETURN_IF_ERROR(emitted);
  std::vector<CVal> loaded;
  for (size_t k = 0; k < values.size(); ++k) {
    const TypePtr& type = values[k]->type;
    loaded.push_back(Load(outs[k].buffer, ir::BaseDType(type), type, 0));
  }
  return loaded;
}

void Generator::DeclarePrivateArray(const std::string& type, const std::string& name,
                                    int64_t elements, int64_t element_bytes,
                                    const std::string& comment) {
  elements = std::max<int64_t>(elements, 1);
  em_->Emit(absl::StrCat(type, " ", name, "[", elements, "];",
                         comment.empty() ? "" : absl::StrCat("  // ", comment)));
  private_bytes_ += elements * element_bytes;
}

absl::StatusOr<CVal> Generator::MaterializePrivately(const CVal& value) {
  const DType dtype = ir::BaseDType(value.type);
  const int64_t n = *ConstantElements(value.type);
  const std::string name = em_->Fresh("priv");
  const std::string type = ir::OpenCLType(dtype);  // float16 is kept as float
  DeclarePrivateArray(type, name, n, dtype == DType::kHalf ? 4 : SizeOf(dtype),
                      absl::StrCat(ir::TypeToString(value.type), ", computed once"));
  DFC_RETURN_IF_ERROR(Store(value, value.type, name, 0, /*private_array=*/true));
  return Load(name, dtype == DType::kHalf ? DType::kFloat : dtype, value.type, 0);
}

}  // namespace dfc::codegen::gen

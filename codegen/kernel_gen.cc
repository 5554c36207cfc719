// The kernel generator: a staged twin of ir/interpreter.cc (see kernel_gen.h, c_emitter.h).
//
// Where the interpreter holds a value, the generator holds a CVal: a scalar is a thunk that
// emits what computes it and returns a C expression; an array is a length and a function from
// a C index expression to the element's CVal (a view: nothing is stored); a tuple is its
// fields. Values bound by a Lambda are computed once per scope (Memo).
#include "codegen/kernel_gen.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status.h"
#include "codegen/c_emitter.h"
#include "ir/analysis.h"
#include "ir/lower/scalar_funs.h"

namespace dfc::codegen {
namespace {

using ir::ExprPtr;
using ir::Fun;
using ir::TypePtr;

struct CVal;

// A function that values hold, shared rather than copied when the value is: an element
// function captures the values it reads, which capture theirs, so copying one by value would
// copy the whole chain behind it (quadratic in a cluster's depth).
template <typename Signature>
class SharedFn;
template <typename R, typename... Args>
class SharedFn<R(Args...)> {
 public:
  SharedFn() = default;
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, SharedFn>>>
  SharedFn(F f)  // NOLINT: implicit, as std::function's
      : f_(std::make_shared<const std::function<R(Args...)>>(std::move(f))) {}
  R operator()(Args... args) const { return (*f_)(std::forward<Args>(args)...); }
  explicit operator bool() const { return f_ != nullptr && static_cast<bool>(*f_); }

 private:
  std::shared_ptr<const std::function<R(Args...)>> f_;
};
using Thunk = SharedFn<absl::StatusOr<std::string>()>;
using ElementFn = SharedFn<absl::StatusOr<CVal>(const std::string& index)>;
using Lazy = std::function<absl::StatusOr<CVal>()>;

struct CVal {
  TypePtr type;
  Thunk scalar;              // scalars
  std::vector<CVal> fields;  // tuples
  ElementFn element;         // arrays
  // Reading an element does arithmetic (a UserFun, a Reduce), not only index arithmetic and
  // loads: worth keeping in private memory when read more than once.
  bool computed = false;
  // An array of scalars stored contiguously, in a buffer or a private array: element i is
  // `buffer[base + i]`, so that AsVector(w) reads w of them with one vload<w>. Empty when not
  // known to be so (a view that reorders, a float16 buffer).
  std::string buffer;
  std::string base;
  // AsScalar's result: the array of vectors whose lanes it lists (a Reduce by a combiner over
  // the lanes of one vector folds them as a tree of halves).
  std::shared_ptr<const CVal> lanes_of;
  // An array whose every element is one work-item's (MapGlb): a kernel storing Join $ it
  // gives each work-item an element, a block of the joined rows (blocks_of).
  bool per_work_item = false;
  // Join's result over such an array: the blocks it lists.
  std::shared_ptr<const CVal> blocks_of;
  // With blocks_of, where only a prefix of the joined rows is the value (Reindex(n, i), the
  // rows rewrite::BlockRows padded the last block with dropped): the row count n, in C. Rows
  // at or past it are computed with their block and not stored.
  std::string rows_below;
  // A Map whose function does arithmetic: reading an element emits its computation.
  bool maps_computing = false;
  // Transpose's result over such a Map (each element a column of the result, computed at once:
  // a Reduce's accumulators, rewrite::BlockRows): the array of columns. Stored row by row,
  // every row would compute every column again; Store walks the columns instead.
  // rows_as_scalars: Map(AsScalar) of that, each row's vectors lane by lane.
  std::shared_ptr<const CVal> columns_of;
  bool rows_as_scalars = false;
};

// The C type of a scalar or vector value, in its compute type: "float", "float16".
std::string CType(const TypePtr& type) {
  const std::string scalar = ir::OpenCLType(type->dtype);
  return type->is_vector() ? absl::StrCat(scalar, type->width) : scalar;
}

// The scalar or vector at the bottom of nested arrays, or nullptr (a tuple).
TypePtr LeafType(const TypePtr& type) {
  if (type->is_array()) return LeafType(type->element);
  return type->is_scalar() || type->is_vector() ? type : nullptr;
}

// How many scalars or vectors (one slot each) a value of `type` holds: NumElements for a
// tensor. Null for a tuple.
std::optional<ArithExpr> Slots(const TypePtr& type) {
  if (type->is_scalar() || type->is_vector()) return ArithExpr(1);
  if (!type->is_array()) return std::nullopt;
  std::optional<ArithExpr> element = Slots(type->element);
  if (!element) return std::nullopt;
  return type->length * *element;
}

// The most elements a work-item keeps in a private array (4 KiB of float): recomputing an
// element that does arithmetic costs more than writing and reading it once, and GPU drivers
// keep arrays this size in registers or spill them to cached scratch memory without failing.
constexpr int64_t kMaxPrivateElements = 1024;

// The rows a CPU work-item copies together when it stores a view of a matrix (a transposed
// input, rewrite::StoreTransposed): a cache line of floats. Row by row, each element a work-item
// reads down a column of the input is a cache line of its own (the 784 columns of an
// 8192x784 input took 9 ms that way); 16 rows at once read each line once, and write 16
// sequential streams.
constexpr int64_t kCopyBlockRows = 16;

// The most scalars (vector lanes counted) a Reduce keeps in an accumulator array. The array is
// meant to live in registers (every loop over it is unrolled, so the driver's compiler sees
// each element as a value of its own): 512 scalars are the 32 vector registers of an AVX-512
// core, and hold a block of 2 rows by 10 columns of float16 accumulators (rewrite::BlockRows,
// 320). A GPU thread has fewer (255 32-bit registers on NVIDIA's): there a large one spills, and
// the tuner's timing says so. Larger, its unrolled code would grow with it, and a CPU driver
// that gives thousands of work-items a group overflows its thread's stack (PoCL did, with 1024:
// a 784x256 layer's accumulator of 256 float4).
constexpr int64_t kMaxAccumulatorScalars = 512;

// The parameters bound where an expression is evaluated: the kernel's own (the root), and a
// chain of frames, one for each lambda applied. A frame never changes once made, so a value
// whose code is written later (an array's element function) keeps the bindings it was made
// under; and applying a lambda costs its own parameters, not a copy of every enclosing binding
// (a cluster of thousands of ops nests as many lambdas: copying made compiling quadratic).
using Bindings = absl::flat_hash_map<const ir::Param*, CVal>;
struct Frame {
  std::shared_ptr<const Bindings> root;  // the kernel's parameters, looked up first
  std::shared_ptr<const Frame> parent;   // null at the root
  Bindings bindings;
};
using Env = std::shared_ptr<const Frame>;

// The value `param` is bound to in `env`, or null. Parameters are distinct objects, never
// shadowed, so the root is asked first: the kernel's inputs are read from deep inside.
const CVal* Lookup(const Env& env, const ir::Param* param) {
  if (auto it = env->root->find(param); it != env->root->end()) return &it->second;
  for (const Frame* frame = env.get(); frame != nullptr; frame = frame->parent.get()) {
    if (auto it = frame->bindings.find(param); it != frame->bindings.end()) return &it->second;
  }
  return nullptr;
}

absl::Status Unsupported(absl::string_view what) {
  return absl::UnimplementedError(
      absl::StrCat(what, " is not supported by the OpenCL code generator yet"));
}

// The OpenCL C literal of a scalar, in its compute type.
std::string ScalarLiteral(const ir::Scalar& s) {
  const std::string type = ir::OpenCLType(s.dtype);
  if (IsFloating(s.dtype)) return ir::FloatLiteral(s.dtype, s.f);
  if (s.dtype == DType::kUInt64) return absl::StrCat(s.AsUInt64(), "UL");
  if (s.dtype == DType::kInt64) {
    if (s.i == INT64_MIN) return "(-9223372036854775807L - 1L)";
    return absl::StrCat(s.i, "L");
  }
  return absl::StrCat("((", type, ")", s.i, ")");
}

// The functions index arithmetic calls (Size, Pad): a prefetch's address may name them.
constexpr std::array<absl::string_view, 5> kIndexFunctions = {"clamp", "min", "max", "dfc_floordiv",
                                                              "dfc_floormod"};
// The most prefetches a sequential loop's step issues for one read (the rows of a block): more
// would cost more than the misses they save.
constexpr int64_t kMaxPrefetchesAStep = 16;

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

class Generator {
 public:
  explicit Generator(const ir::LoweredCluster& cluster) : cluster_(cluster) {}

  absl::StatusOr<KernelSource> Generate(const KernelOptions& options);

 private:
  absl::StatusOr<CVal> Eval(const ExprPtr& expr, const Env& env);
  absl::StatusOr<CVal> Apply(const Fun& f, std::vector<CVal> args, const TypePtr& result,
                             const Env& env);
  absl::StatusOr<CVal> ApplyLambda(const ir::Lambda& lambda, std::vector<CVal> args,
                                   const Env& env);
  absl::StatusOr<CVal> ApplyPattern(const ir::Pattern& p, std::vector<CVal> args,
                                    const TypePtr& result, const Env& env);
  absl::StatusOr<CVal> CallUserFun(const ir::UserFun& f, std::vector<CVal> args);
  absl::StatusOr<CVal> ReduceSeq(const ir::Pattern& p, std::vector<CVal> args, const Env& env);
  // A Reduce whose accumulator is an array (of known size, at most kMaxAccumulatorScalars
  // scalars, vector lanes counted): kept in a private array of the work-item.
  absl::StatusOr<CVal> ReduceIntoPrivate(const ir::Pattern& p, const CVal& init, const CVal& array,
                                         const Env& env);
  // Software prefetch (DeviceProfile::prefetch_bytes) of a vector read from global memory at
  // `pointer`, if it streams: the row's own data (the pointer names gid), advancing with an
  // enclosing sequential loop (it names the loop's index). The prefetch goes first in that
  // loop's body, once per pointer, however deep inside the read is (an unrolled loop over
  // columns would otherwise prefetch one line ten times). Data every work-item reads (a weight
  // matrix) stays in cache and is not prefetched; nor is a lone scalar, which a loop stepping
  // 4 bytes would prefetch 16 times a line.
  void Prefetch(const std::string& pointer);
  struct SequentialLoop {
    std::string index;
    const CEmitter* emitter;
    int depth;  // the emitter's depth inside the loop's body
    std::set<std::string> prefetched;
  };
  // Opens and closes a sequential loop's block, keeping seq_loops_.
  void OpenSequentialLoop(const std::string& index, const std::string& header);
  void CloseSequentialLoop();
  // Whether a Reduce met in a MapWrg/MapLcl kernel is split across the work-items: its step is
  // a combiner on its elements' type and it is long enough to share.
  bool SplitsAcrossWorkItems(const ir::Pattern& p, const CVal& init, const CVal& array) const;
  // A Reduce by a combiner over the lanes of one vector: the halves combined lane-wise until
  // one lane is left (16 -> 8 -> 4 -> 2 -> 1), then with init. Returns the result's C name.
  absl::StatusOr<std::string> EmitLaneTree(const ir::Pattern& p, const CVal& init,
                                           const CVal& vectors, const Env& env);
  // Emits the split Reduce (kernel_gen.h) and returns the C name of its result.
  absl::StatusOr<std::string> EmitSplitReduce(const ir::Pattern& p, const CVal& init,
                                              const CVal& array, const std::string& type,
                                              const Env& env);

  // A value whose scalars are computed once per scope: at once inside a kernel's loops, or
  // at first use (hoisted to the output's block) for values of the whole cluster.
  absl::StatusOr<CVal> Bind(CVal value);
  // cond ? then : other, element by element; the branches are emitted only where taken.
  CVal Select(const TypePtr& type, std::string cond, Lazy then, Lazy other);
  // The value of `type` whose every scalar is `fill` (Pad's constant; zeros for an
  // out-of-range At, which flags the error).
  CVal Filled(const TypePtr& type, const ir::Scalar& fill);
  // A tensor parameter in global memory: element offsets from `base`.
  CVal Load(const std::string& buffer, DType dtype, const TypePtr& type, std::string base);
  // Writes `value` as the output of `type`: loop bounds come from the declared type, so a
  // kernel never writes past the buffer the runtime allocated for it.
  // With `unroll`, loops of a known trip count are fully unrolled (an accumulator array kept
  // in registers).
  // `rows_below` (C, optional): of value's rows, store only those whose index in the buffer,
  // (offset) * length + j, is below it (CVal::rows_below).
  absl::Status Store(const CVal& value, const TypePtr& type, const std::string& buffer,
                     const std::string& offset, bool private_array = false, bool unroll = false,
                     const std::string& rows_below = "");
  // C text of a size expression; `index` names what the Reindex variable `i` stands for.
  std::string Size(const ArithExpr& e, const std::string& index = "");

  struct Output {
    CVal value;
    TypePtr type;
    std::string buffer;
    std::string comment;
  };
  // Emits a kernel that writes `outputs` (work-item gid writes row gid of each) and returns
  // its stage.
  absl::Status EmitKernel(const std::string& name, const std::vector<Output>& outputs);
  // The kernel under one mapping: MapWrg/MapLcl with `lanes` work-items a row, or MapGlb (0).
  struct KernelText {
    std::string locals;  // declarations of local memory
    std::string body;
  };
  struct EmittedKernel {
    KernelStage stage;
    KernelText text;
    int split_reduces = 0;
  };
  absl::StatusOr<EmittedKernel> EmitKernelMapped(const std::string& name,
                                                 const std::vector<Output>& outputs, int lanes);
  // Whether the rows of `outputs` are a known number too small to fill the device.
  bool FewRows(const std::vector<Output>& outputs) const;
  // A top-level array bound by a let: computed by a kernel of its own into a temporary.
  absl::StatusOr<CVal> Materialize(const CVal& value);
  // Emits a kernel that copies `value`, a view of a matrix of scalars (no arithmetic), into
  // `buffer`: work-item gid copies the block of kCopyBlockRows rows from gid·kCopyBlockRows,
  // column by column.
  absl::Status EmitBlockedCopy(const std::string& name, const CVal& value,
                               const std::string& buffer, const std::string& comment);
  // An array a work-item reads several times and whose elements do arithmetic (a row of
  // hidden units that every output of the next layer reads): computed once, into a private
  // array of the work-item, if it has a known size of at most kMaxPrivateElements.
  static bool FitsPrivately(const TypePtr& type);
  absl::StatusOr<CVal> MaterializePrivately(const CVal& value);
  // Stores `value` (columns_of set, a [r][m] matrix of scalars) column by column: each column
  // computed once, its r elements stored down the rows (those below `rows_below`, as Store).
  absl::Status StoreColumns(const CVal& value, const TypePtr& type, const std::string& buffer,
                            const std::string& offset, const std::string& rows_below);
  // Emits `type name[elements];` (and the comment), counting its bytes in private_bytes_.
  void DeclarePrivateArray(const std::string& type, const std::string& name, int64_t elements,
                           int64_t element_bytes, const std::string& comment);

  const ir::LoweredCluster& cluster_;
  int64_t block_counter_ = 0;
  CEmitter* em_ = nullptr;
  std::vector<KernelText> kernels_;  // the rendered kernel functions, in stage order
  std::vector<KernelStage> stages_;
  int64_t private_bytes_ = 0;  // of the kernel being emitted: KernelStage::private_bytes
  std::vector<TypePtr> temporaries_;
  std::vector<std::string> buffer_params_;  // the kernels' buffer parameters, in order
  std::set<std::string> global_buffers_;    // the inputs' and temporaries' names
  std::vector<SequentialLoop> seq_loops_;   // the open ReduceSeq loops, outermost first
  // The open unrolled loops of Store (a step's accumulator elements, a block's rows): index,
  // trip count, and how many sequential loops were open around it.
  struct UnrolledLoop {
    std::string index;
    int64_t count;
    size_t inside;
  };
  std::vector<UnrolledLoop> unrolled_;
  bool uses_prefetch_ = false;
  std::string name_;
  DeviceProfile profile_;
  int work_group_size_ = 0;  // of MapGlb kernels (0: the driver's choice)
  std::set<std::string> size_vars_;
  std::map<std::string, const ir::UserFun*> user_funs_;
  std::map<std::string, std::pair<const ir::UserFun*, int>> vector_funs_;  // twins, widths
  bool uses_double_ = false;
  bool uses_half_ = false;
  bool top_level_ = false;  // evaluating the cluster's body, outside every output's block
  // MapWrg/MapLcl (kernel_gen.h): the work-items per row of the kernel being emitted (0: MapGlb),
  // whether the code being emitted is one work-item's share of a split Reduce, how many Reduces
  // the kernel split, and the compute types of the local-memory arrays that combine them.
  int lanes_ = 0;
  bool in_lane_loop_ = false;
  int split_reduces_ = 0;
  std::set<std::string> local_types_;
};

std::string Generator::Size(const ArithExpr& e, const std::string& index) {
  switch (e.kind()) {
    case ArithExpr::Kind::kConst:
      return absl::StrCat(*e.AsConstant(), "L");
    case ArithExpr::Kind::kVar:
      if (e.var_name() == ir::IndexVar().var_name() && !index.empty()) return index;
      size_vars_.insert(e.var_name());
      return absl::StrCat("size_", e.var_name());
    case ArithExpr::Kind::kSum: {
      std::vector<std::string> terms;
      for (const ArithExpr& t : e.operands()) terms.push_back(Size(t, index));
      return absl::StrCat("(", absl::StrJoin(terms, " + "), ")");
    }
    case ArithExpr::Kind::kProd: {
      std::vector<std::string> factors;
      if (e.coefficient() != 1) factors.push_back(absl::StrCat(e.coefficient(), "L"));
      for (const ArithExpr& f : e.operands()) factors.push_back(Size(f, index));
      return absl::StrCat("(", absl::StrJoin(factors, " * "), ")");
    }
    case ArithExpr::Kind::kDiv:
    case ArithExpr::Kind::kMod:
      return absl::StrCat(e.kind() == ArithExpr::Kind::kDiv ? "dfc_floordiv(" : "dfc_floormod(",
                          Size(e.operands()[0], index), ", ", Size(e.operands()[1], index), ")");
  }
  return "0L";
}

absl::StatusOr<CVal> Generator::Bind(CVal value) {
  if (value.type->is_array()) return value;  // a view: elements are computed where read
  if (value.type->is_tuple()) {
    for (CVal& field : value.fields) {
      DFC_ASSIGN_OR_RETURN(field, Bind(std::move(field)));
    }
    return value;
  }
  if (!value.type->is_scalar() && !value.type->is_vector()) {
    return Unsupported(ir::TypeToString(value.type));
  }
  const std::string type = CType(value.type);
  auto memo = std::make_shared<Memo>(
      &em_,
      [this, type, thunk = value.scalar]() -> absl::StatusOr<std::vector<std::string>> {
        DFC_ASSIGN_OR_RETURN(std::string expr, thunk());
        std::string name = em_->Fresh("v");
        em_->Emit(absl::StrCat("const ", type, " ", name, " = ", expr, ";"));
        return std::vector<std::string>{name};
      },
      top_level_ ? 2 : -1);
  value.scalar = [memo]() -> absl::StatusOr<std::string> {
    DFC_ASSIGN_OR_RETURN(std::vector<std::string> names, memo->Get());
    return names[0];
  };
  if (!top_level_) DFC_RETURN_IF_ERROR(memo->Get().status());
  return value;
}

CVal Generator::Select(const TypePtr& type, std::string cond, Lazy then, Lazy other) {
  CVal out{type};
  if (type->is_tuple()) {
    for (size_t k = 0; k < type->elements.size(); ++k) {
      auto field = [k](Lazy whole) -> Lazy {
        return [k, whole]() -> absl::StatusOr<CVal> {
          DFC_ASSIGN_OR_RETURN(CVal v, whole());
          return v.fields[k];
        };
      };
      out.fields.push_back(Select(type->elements[k], cond, field(then), field(other)));
    }
  } else if (type->is_array()) {
    out.element = [this, type, cond, then, other](const std::string& i) -> absl::StatusOr<CVal> {
      auto element = [i](Lazy whole) -> Lazy {
        return [i, whole]() -> absl::StatusOr<CVal> {
          DFC_ASSIGN_OR_RETURN(CVal v, whole());
          return v.element(i);
        };
      };
      return Select(type->element, cond, element(then), element(other));
    };
  } else {
    out.scalar = [this, type, cond, then, other]() -> absl::StatusOr<std::string> {
      const std::string name = em_->Fresh("sel");
      em_->Emit(absl::StrCat(ir::OpenCLType(type->dtype), " ", name, ";"));
      for (const auto& [header, branch] : {std::pair{absl::StrCat("if (", cond, ")"), then},
                                           std::pair{std::string("else"), other}}) {
        em_->OpenBlock(header);
        absl::StatusOr<CVal> v = branch();
        absl::StatusOr<std::string> expr = v.ok() ? v->scalar() : v.status();
        if (!expr.ok()) return expr.status();
        em_->Emit(absl::StrCat(name, " = ", *expr, ";"));
        em_->CloseBlock();
      }
      return name;
    };
  }
  return out;
}

CVal Generator::Filled(const TypePtr& type, const ir::Scalar& fill) {
  CVal out{type};
  if (type->is_tuple()) {
    for (const TypePtr& t : type->elements) out.fields.push_back(Filled(t, fill));
  } else if (type->is_array()) {
    out.element = [this, type, fill](const std::string&) -> absl::StatusOr<CVal> {
      return Filled(type->element, fill);
    };
  } else {
    // Pad's value has the array's dtype; a zero is made for each dtype.
    const ir::Scalar value = fill.dtype == type->dtype ? fill : ir::Scalar::Int(type->dtype, 0);
    out.scalar = [value]() -> absl::StatusOr<std::string> { return ScalarLiteral(value); };
  }
  return out;
}

CVal Generator::Load(const std::string& buffer, DType dtype, const TypePtr& type,
                     std::string base) {
  CVal out{type};
  if (type->is_array()) {
    const std::string stride = Size(*Slots(type->element));
    if (type->element->is_scalar() && dtype != DType::kHalf) {
      out.buffer = buffer;
      out.base = base;
    }
    out.element = [this, buffer, dtype, type, base,
                   stride](const std::string& i) -> absl::StatusOr<CVal> {
      return Load(buffer, dtype, type->element,
                  absl::StrCat("(", base, " + (", i, ") * ", stride, ")"));
    };
  } else {
    out.scalar = [buffer, dtype, base]() -> absl::StatusOr<std::string> {
      if (dtype == DType::kHalf) return absl::StrCat("vload_half(", base, ", ", buffer, ")");
      return absl::StrCat(buffer, "[", base, "]");
    };
  }
  return out;
}

absl::Status Generator::Store(const CVal& value, const TypePtr& type, const std::string& buffer,
                              const std::string& offset, bool private_array, bool unroll,
                              const std::string& rows_below) {
  const DType dtype = ir::BaseDType(type);
  if ((type->is_scalar() || type->is_vector()) && value.type->kind == type->kind) {
    DFC_ASSIGN_OR_RETURN(std::string v, value.scalar());
    if (private_array) {
      em_->Emit(absl::StrCat(buffer, "[", offset, "] = ", v, ";"));
      return absl::OkStatus();
    }
    // Under MapWrg/MapLcl every work-item of the group holds the row: the first stores it.
    em_->Emit(
        absl::StrCat(lanes_ > 0 ? "if (lid == 0) " : "",
                     dtype == DType::kHalf
                         ? absl::StrCat("vstore_half_rte(", v, ", ", offset, ", ", buffer, ");")
                         : absl::StrCat(buffer, "[", offset, "] = ", v, ";")));
    return absl::OkStatus();
  }
  if (!type->is_array() || !value.type->is_array()) {
    return absl::InternalError(absl::StrCat("an output of type ", ir::TypeToString(type),
                                            " has a value of type ", ir::TypeToString(value.type)));
  }
  if (value.columns_of != nullptr && (private_array || dtype != DType::kHalf) && lanes_ == 0 &&
      type->element->is_array() && type->element->element->is_scalar()) {
    return StoreColumns(value, type, buffer, offset, rows_below);
  }
  // The lanes of vectors (AsScalar) into a global array of scalars: a vstore<w> a vector, each
  // vector computed once (read lane by lane, each lane would compute its vector again).
  if (value.lanes_of != nullptr && type->element->is_scalar() && dtype != DType::kHalf &&
      !private_array && rows_below.empty()) {
    const CVal& vectors = *value.lanes_of;
    const int w = vectors.type->element->width;
    const std::string i = em_->Fresh("i");
    em_->OpenBlock(absl::StrCat("for (long ", i, " = 0; ", i, " < ", Size(vectors.type->length),
                                "; ++", i, ")"));
    DFC_ASSIGN_OR_RETURN(CVal vector, vectors.element(i));
    DFC_ASSIGN_OR_RETURN(std::string v, vector.scalar());
    em_->Emit(absl::StrCat(lanes_ > 0 ? "if (lid == 0) " : "", "vstore", w, "(", v, ", 0, ", buffer,
                           " + (", offset, ") * ", Size(type->length), " + ", i, " * ", w, ");"));
    em_->CloseBlock();
    return absl::OkStatus();
  }
  const std::string j = em_->Fresh("j");
  const std::string n = Size(type->length);
  const std::optional<int64_t> count = type->length.AsConstant();
  if (unroll && count) {
    em_->Emit("#pragma unroll");
    unrolled_.push_back({j, *count, seq_loops_.size()});
  }
  em_->OpenBlock(absl::StrCat("for (long ", j, " = 0; ", j, " < ", n, "; ++", j, ")"));
  const std::string at = absl::StrCat("(", offset, ") * ", n, " + ", j);
  if (!rows_below.empty()) em_->OpenBlock(absl::StrCat("if (", at, " < ", rows_below, ")"));
  absl::Status stored = [&]() -> absl::Status {
    DFC_ASSIGN_OR_RETURN(CVal element, value.element(j));
    return Store(element, type->element, buffer, at, private_array, unroll);
  }();
  if (unroll && count) unrolled_.pop_back();
  DFC_RETURN_IF_ERROR(stored);
  if (!rows_below.empty()) em_->CloseBlock();
  em_->CloseBlock();
  return absl::OkStatus();
}

absl::Status Generator::StoreColumns(const CVal& value, const TypePtr& type,
                                     const std::string& buffer, const std::string& offset,
                                     const std::string& rows_below) {
  const CVal& columns = *value.columns_of;  // [m][r]
  const TypePtr& leaf = columns.type->element->element;
  const int w = value.rows_as_scalars ? leaf->width : 1;
  if (value.rows_as_scalars != leaf->is_vector()) {
    return absl::InternalError(absl::StrCat("columns of ", ir::TypeToString(columns.type),
                                            " stored as ", ir::TypeToString(type)));
  }
  const std::string r = Size(type->length);
  const std::string row = Size(type->element->length);
  const std::string i = em_->Fresh("i");
  const std::string j = em_->Fresh("j");
  em_->OpenBlock(absl::StrCat("for (long ", i, " = 0; ", i, " < ", Size(columns.type->length),
                              "; ++", i, ")"));
  DFC_ASSIGN_OR_RETURN(CVal column, columns.element(i));
  if (type->length.AsConstant()) em_->Emit("#pragma unroll");
  em_->OpenBlock(absl::StrCat("for (long ", j, " = 0; ", j, " < ", r, "; ++", j, ")"));
  const std::string row_at = absl::StrCat("(", offset, ") * ", r, " + ", j);
  if (!rows_below.empty()) em_->OpenBlock(absl::StrCat("if (", row_at, " < ", rows_below, ")"));
  DFC_ASSIGN_OR_RETURN(CVal element, column.element(j));
  DFC_ASSIGN_OR_RETURN(std::string v, element.scalar());
  const std::string at = absl::StrCat("(", row_at, ") * ", row, " + ", i, " * ", w);
  em_->Emit(w > 1 ? absl::StrCat("vstore", w, "(", v, ", 0, ", buffer, " + ", at, ");")
                  : absl::StrCat(buffer, "[", at, "] = ", v, ";"));
  if (!rows_below.empty()) em_->CloseBlock();
  em_->CloseBlock();
  em_->CloseBlock();
  return absl::OkStatus();
}

absl::StatusOr<CVal> Generator::Eval(const ExprPtr& expr, const Env& env) {
  switch (expr->kind) {
    case ir::Expr::Kind::kParam: {
      const CVal* value = Lookup(env, static_cast<const ir::Param*>(expr.get()));
      if (value == nullptr) {
        return absl::InternalError(
            absl::StrCat("parameter ", static_cast<const ir::Param&>(*expr).name, " is not bound"));
      }
      return *value;
    }
    case ir::Expr::Kind::kLiteral: {
      const ir::Scalar& s = static_cast<const ir::Literal&>(*expr).value;
      if (s.dtype == DType::kDouble) uses_double_ = true;
      return CVal{expr->type,
                  [text = ScalarLiteral(s)]() -> absl::StatusOr<std::string> { return text; }};
    }
    case ir::Expr::Kind::kFunCall: {
      const auto& call = static_cast<const ir::FunCall&>(*expr);
      std::vector<CVal> args;
      for (const ExprPtr& a : call.args) {
        DFC_ASSIGN_OR_RETURN(CVal v, Eval(a, env));
        args.push_back(std::move(v));
      }
      // At a literal index known to be in range (a vector filled with a Reduce's initial
      // value, rewrite::VectorizeColumns): the element itself, with no check to emit.
      if (call.f->kind == Fun::Kind::kAt && call.args[1]->kind == ir::Expr::Kind::kLiteral) {
        const int64_t i = static_cast<const ir::Literal&>(*call.args[1]).value.i;
        const std::optional<int64_t> n = args[0].type->length.AsConstant();
        if (n && i >= 0 && i < *n) return args[0].element(absl::StrCat(i, "L"));
      }
      return Apply(*call.f, std::move(args), expr->type, env);
    }
  }
  return absl::InternalError("unknown expression kind");
}

absl::StatusOr<CVal> Generator::Apply(const Fun& f, std::vector<CVal> args, const TypePtr& result,
                                      const Env& env) {
  switch (f.kind) {
    case Fun::Kind::kLambda:
      return ApplyLambda(static_cast<const ir::Lambda&>(f), std::move(args), env);
    case Fun::Kind::kUserFun:
      return CallUserFun(static_cast<const ir::UserFun&>(f), std::move(args));
    default: {
      // A pattern's value computes if its function does or any argument's value does.
      bool computed = ir::Computes(f);
      for (const CVal& a : args) computed = computed || a.computed;
      DFC_ASSIGN_OR_RETURN(
          CVal v, ApplyPattern(static_cast<const ir::Pattern&>(f), std::move(args), result, env));
      v.computed = v.computed || computed;
      return v;
    }
  }
}

absl::StatusOr<CVal> Generator::ApplyLambda(const ir::Lambda& lambda, std::vector<CVal> args,
                                            const Env& env) {
  auto bound = std::make_shared<Frame>(Frame{.root = env->root, .parent = env, .bindings = {}});
  for (size_t k = 0; k < args.size(); ++k) {
    CVal v = std::move(args[k]);
    if (top_level_ && v.type->is_array() && ir::TensorShape(v.type)) {
      DFC_ASSIGN_OR_RETURN(v, Materialize(v));
    } else if (!top_level_ && v.computed && v.type->is_array() &&
               (ir::Reads(*lambda.body, lambda.params[k].get()) > 1 || v.columns_of != nullptr) &&
               FitsPrivately(v.type)) {
      // (Read by rows, a Transpose of computed columns would compute every column a row.)
      DFC_ASSIGN_OR_RETURN(v, MaterializePrivately(v));
    } else {
      DFC_ASSIGN_OR_RETURN(v, Bind(std::move(v)));
    }
    bound->bindings[lambda.params[k].get()] = std::move(v);
  }
  return Eval(lambda.body, bound);
}

absl::StatusOr<CVal> Generator::CallUserFun(const ir::UserFun& f, std::vector<CVal> args) {
  for (const TypePtr& t : f.param_types) {
    if (!t->is_scalar()) return Unsupported(absl::StrCat("UserFun ", f.name, " on non-scalars"));
    if (t->dtype == DType::kDouble) uses_double_ = true;
    if (t->dtype == DType::kHalf) uses_half_ = true;
  }
  if (f.result_type->dtype == DType::kHalf) uses_half_ = true;
  if (f.result_type->dtype == DType::kDouble) uses_double_ = true;
  // Applied lane by lane to vectors of one width (the type rule): a twin whose parameters are
  // vectors runs the same body, OpenCL C's arithmetic and builtins being lane-wise on vectors,
  // and a scalar argument is widened to every lane. float16 (rounded after every operation) and
  // bool (a comparison of vectors gives -1, not 1) are not vectorised.
  int width = 1;
  for (const CVal& a : args) width = a.type->is_vector() ? a.type->width : width;
  std::string name = f.name;
  if (width > 1) {
    // OpenCL C's `if` takes a scalar condition: a body that branches is not lane-wise.
    if (absl::StrContains(f.body, "if (") || absl::StrContains(f.body, "if(")) {
      return Unsupported(
          absl::StrCat("UserFun ", f.name, " on vectors (its body branches with `if`)"));
    }
    for (const TypePtr& t : f.param_types) {
      if (t->dtype == DType::kHalf || t->dtype == DType::kBool) {
        return Unsupported(
            absl::StrCat("UserFun ", f.name, " on vectors of ", DTypeName(t->dtype)));
      }
    }
    if (f.result_type->dtype == DType::kHalf || f.result_type->dtype == DType::kBool) {
      return Unsupported(absl::StrCat("UserFun ", f.name, " on vectors"));
    }
    name = absl::StrCat(f.name, "_x", width);
    vector_funs_.emplace(name, std::pair{&f, width});
  } else {
    user_funs_.emplace(f.name, &f);
  }
  const bool round = f.result_type->dtype == DType::kHalf;
  const TypePtr result = width > 1 ? ir::VectorType(f.result_type->dtype, width) : f.result_type;
  return CVal{.type = result,
              .scalar = [name, args, round, width]() -> absl::StatusOr<std::string> {
                std::vector<std::string> texts;
                for (const CVal& a : args) {
                  DFC_ASSIGN_OR_RETURN(std::string t, a.scalar());
                  if (width > 1 && a.type->is_scalar()) {
                    t = absl::StrCat("((", CType(ir::VectorType(a.type->dtype, width)), ")(", t,
                                     "))");
                  }
                  texts.push_back(std::move(t));
                }
                std::string call = absl::StrCat(name, "(", absl::StrJoin(texts, ", "), ")");
                return round ? absl::StrCat("dfc_round_half(", call, ")") : call;
              },
              .computed = true};
}

// Element i of Split(m) (stride m) and of Slide(size, step) (stride step): the window of
// `array` that starts at element i * stride, of type `window`.
ElementFn Windows(const CVal& array, const TypePtr& window, const std::string& stride) {
  return [array, window, stride](const std::string& i) -> absl::StatusOr<CVal> {
    CVal w{window};
    if (!array.buffer.empty()) {  // a window of a contiguous array is contiguous
      w.buffer = array.buffer;
      w.base = absl::StrCat("(", array.base, " + (", i, ") * ", stride, ")");
    }
    w.element = [array, stride, i](const std::string& j) {
      return array.element(absl::StrCat("((", i, ") * ", stride, " + (", j, "))"));
    };
    return w;
  };
}

// The scalars and vectors of a value, depth first through tuples.
absl::Status Leaves(const CVal& v, std::vector<const CVal*>& out) {
  if (v.type->is_tuple()) {
    for (const CVal& f : v.fields) DFC_RETURN_IF_ERROR(Leaves(f, out));
    return absl::OkStatus();
  }
  if (!v.type->is_scalar() && !v.type->is_vector()) {
    return Unsupported(absl::StrCat("a Reduce accumulator of type ", ir::TypeToString(v.type)));
  }
  out.push_back(&v);
  return absl::OkStatus();
}

// A value of `type` whose k-th scalar (depth first) is names(k).
CVal FromLeaves(const TypePtr& type, const std::function<Thunk(int)>& leaf, int& next) {
  CVal out{type};
  if (type->is_tuple()) {
    for (const TypePtr& t : type->elements) out.fields.push_back(FromLeaves(t, leaf, next));
  } else {
    out.scalar = leaf(next++);
  }
  return out;
}

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

absl::StatusOr<CVal> Generator::ReduceSeq(const ir::Pattern& p, std::vector<CVal> args,
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
    if (lanes_ > 0 && !in_lane_loop_ && SplitsAcrossWorkItems(p, init, array)) {
      DFC_ASSIGN_OR_RETURN(std::string result, EmitSplitReduce(p, init, array, types[0], env));
      return std::vector<std::string>{result};
    }
    if (array.lanes_of != nullptr && array.lanes_of->type->length.AsConstant() == 1 &&
        ir::CombinerOf(p.f) != nullptr && init.type->is_scalar()) {
      DFC_ASSIGN_OR_RETURN(std::string result, EmitLaneTree(p, init, *array.lanes_of, env));
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
    const std::string i = em_->Fresh("i");
    OpenSequentialLoop(i, absl::StrCat("for (long ", i, " = 0; ", i, " < ",
                                       Size(array.type->length), "; ++", i, ")"));
    int next = 0;
    CVal acc_val = FromLeaves(
        init.type,
        [&acc](int k) -> Thunk {
          return [name = acc[k]]() -> absl::StatusOr<std::string> { return name; };
        },
        next);
    DFC_ASSIGN_OR_RETURN(CVal element, array.element(i));
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
    CloseSequentialLoop();
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

absl::StatusOr<CVal> Generator::ReduceIntoPrivate(const ir::Pattern& p, const CVal& init,
                                                  const CVal& array, const Env& env) {
  const std::optional<ArithExpr> slots = Slots(init.type);
  const std::optional<int64_t> n = slots ? slots->AsConstant() : std::nullopt;
  const TypePtr leaf = LeafType(init.type);
  if (!n || leaf == nullptr || leaf->dtype == DType::kHalf || top_level_) {
    return Unsupported(absl::StrCat("a Reduce accumulator of type ", ir::TypeToString(init.type),
                                    top_level_ ? " outside the rows of a kernel" : ""));
  }
  const int64_t scalars = *n * (leaf->is_vector() ? leaf->width : 1);
  if (scalars > kMaxAccumulatorScalars) {
    return Unsupported(absl::StrCat("a Reduce accumulator of type ", ir::TypeToString(init.type),
                                    " (", scalars, " scalars, more than the ",
                                    kMaxAccumulatorScalars, " a work-item keeps in registers)"));
  }
  const std::string type = CType(leaf);
  const std::string acc = em_->Fresh("acc");
  const int64_t scalar_bytes = SizeOf(leaf->dtype) * (leaf->is_vector() ? leaf->width : 1);
  DeclarePrivateArray(type, acc, *n, scalar_bytes, ir::TypeToString(init.type));
  // Every loop over the accumulator is unrolled, so that the driver's compiler can keep it in
  // registers: a private array indexed by loop counters lives in (cached) memory.
  DFC_RETURN_IF_ERROR(Store(init, init.type, acc, "0L", /*private_array=*/true, /*unroll=*/true));
  const std::string i = em_->Fresh("i");
  OpenSequentialLoop(i, absl::StrCat("for (long ", i, " = 0; ", i, " < ", Size(array.type->length),
                                     "; ++", i, ")"));
  DFC_ASSIGN_OR_RETURN(CVal element, array.element(i));
  DFC_ASSIGN_OR_RETURN(
      CVal step,
      Apply(*p.f, {Load(acc, leaf->dtype, init.type, "0L"), std::move(element)}, init.type, env));
  // Every new element is computed before any is assigned: an element may read the old others.
  const std::string next = em_->Fresh("next");
  DeclarePrivateArray(type, next, *n, scalar_bytes, "");
  DFC_RETURN_IF_ERROR(Store(step, init.type, next, "0L", /*private_array=*/true, /*unroll=*/true));
  const std::string q = em_->Fresh("q");
  em_->Emit("#pragma unroll");
  em_->Emit(absl::StrCat("for (int ", q, " = 0; ", q, " < ", *n, "; ++", q, ") ", acc, "[", q,
                         "] = ", next, "[", q, "];"));
  CloseSequentialLoop();
  CVal result = Load(acc, leaf->dtype, init.type, "0L");
  result.computed = true;
  return result;
}

absl::StatusOr<std::string> Generator::EmitLaneTree(const ir::Pattern& p, const CVal& init,
                                                    const CVal& vectors, const Env& env) {
  DFC_ASSIGN_OR_RETURN(CVal whole, vectors.element("0L"));
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

bool Generator::SplitsAcrossWorkItems(const ir::Pattern& p, const CVal& init,
                                      const CVal& array) const {
  const TypePtr& element = array.type->element;
  if (ir::CombinerOf(p.f) == nullptr || !init.type->is_scalar() || !element->is_scalar() ||
      element->dtype != init.type->dtype) {
    return false;
  }
  const std::optional<int64_t> n = array.type->length.AsConstant();
  return !n || *n >= lanes_;  // a symbolic length is a batch: long
}

absl::StatusOr<std::string> Generator::EmitSplitReduce(const ir::Pattern& p, const CVal& init,
                                                       const CVal& array, const std::string& type,
                                                       const Env& env) {
  ++split_reduces_;
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
  em_->OpenBlock(absl::StrCat("for (long ", i, " = lid; ", i, " < ", Size(array.type->length), "; ",
                              i, " += ", lanes_, ")"));
  const bool saved = in_lane_loop_;
  in_lane_loop_ = true;
  const std::string x = em_->Fresh("x");
  absl::StatusOr<CVal> element = array.element(i);
  absl::StatusOr<std::string> value = element.ok() ? element->scalar() : element.status();
  if (value.ok()) em_->Emit(absl::StrCat("const ", type, " ", x, " = ", *value, ";"));
  absl::StatusOr<std::string> step = value.ok() ? combine(named(part), named(x)) : value.status();
  in_lane_loop_ = saved;
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
  em_->OpenBlock(absl::StrCat("for (int ", s, " = ", lanes_ / 2, "; ", s, " > 0; ", s, " >>= 1)"));
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

absl::StatusOr<CVal> Generator::ApplyPattern(const ir::Pattern& p, std::vector<CVal> args,
                                             const TypePtr& result, const Env& env) {
  using K = Fun::Kind;
  CVal out{result};
  switch (p.kind) {
    case K::kMapGlb:
      out.per_work_item = true;
      [[fallthrough]];
    case K::kMap:
    case K::kMapWrg:
    case K::kMapLcl:
    case K::kMapSeq:
      out.maps_computing = ir::Computes(*p.f);
      if (p.f->kind == K::kAsScalar && args[0].columns_of != nullptr) {
        out.columns_of = args[0].columns_of;
        out.rows_as_scalars = true;
      }
      out.element = [this, &p, array = args[0], result,
                     env](const std::string& i) -> absl::StatusOr<CVal> {
        DFC_ASSIGN_OR_RETURN(CVal element, array.element(i));
        const bool saved = top_level_;
        top_level_ = false;
        absl::StatusOr<CVal> v = Apply(*p.f, {std::move(element)}, result->element, env);
        top_level_ = saved;
        return v;
      };
      return out;
    case K::kReduce:
    case K::kReduceSeq:
      return ReduceSeq(p, std::move(args), env);
    case K::kZip:
      out.element = [args](const std::string& i) -> absl::StatusOr<CVal> {
        CVal tuple{nullptr};
        std::vector<TypePtr> types;
        for (const CVal& a : args) {
          DFC_ASSIGN_OR_RETURN(CVal e, a.element(i));
          types.push_back(e.type);
          tuple.fields.push_back(std::move(e));
        }
        tuple.type = ir::TupleType(std::move(types));
        return tuple;
      };
      return out;
    case K::kGet:
      return args[0].fields[p.index];
    case K::kTuple:
      out.fields = std::move(args);
      return out;
    case K::kId:
    case K::kToGlobal:
    case K::kToLocal:
    case K::kToPrivate:
      if (p.kind == K::kId) return args[0];
      return Apply(*p.f, std::move(args), result, env);
    case K::kSplit:
      out.element = Windows(args[0], result->element, Size(p.size));
      return out;
    case K::kJoin: {
      // Rows of length 0 join to an empty array, whose elements are never read: divide by 1
      // there rather than write a division by zero that the OpenCL compiler warns about.
      const ArithExpr& row = args[0].type->element->length;
      const std::string m = row.AsConstant() == 0 ? "1L" : Size(row);
      if (args[0].per_work_item) out.blocks_of = std::make_shared<const CVal>(args[0]);
      out.element = [array = args[0], m](const std::string& k) -> absl::StatusOr<CVal> {
        DFC_ASSIGN_OR_RETURN(CVal row, array.element(absl::StrCat("((", k, ") / ", m, ")")));
        return row.element(absl::StrCat("((", k, ") % ", m, ")"));
      };
      return out;
    }
    case K::kTranspose:
      if (args[0].maps_computing) out.columns_of = std::make_shared<const CVal>(args[0]);
      out.element = [array = args[0], result](const std::string& i) -> absl::StatusOr<CVal> {
        CVal column{result->element};
        column.element = [array, i](const std::string& j) -> absl::StatusOr<CVal> {
          DFC_ASSIGN_OR_RETURN(CVal row, array.element(j));
          return row.element(i);
        };
        return column;
      };
      return out;
    case K::kSlide:
      out.element = Windows(args[0], result->element, Size(p.step));
      return out;
    case K::kPad: {
      const std::string left = Size(p.left);
      const std::string n = Size(args[0].type->length);
      out.element = [this, &p, array = args[0], left,
                     n](const std::string& j) -> absl::StatusOr<CVal> {
        // The index into `array`: arithmetic only, so that a prefetch can name it.
        const std::string src = absl::StrCat("((", j, ") - ", left, ")");
        switch (p.pad_mode) {
          case ir::PadMode::kConstant: {
            CVal fill = Filled(array.type->element, p.pad_value);
            return Select(
                array.type->element, absl::StrCat(src, " >= 0 && ", src, " < ", n),
                [array, src]() { return array.element(src); },
                [fill]() -> absl::StatusOr<CVal> { return fill; });
          }
          case ir::PadMode::kClamp:
            return array.element(absl::StrCat("clamp(", src, ", 0L, ", n, " - 1)"));
          case ir::PadMode::kReflect:
            return array.element(absl::StrCat("(", src, " < 0 ? -", src, " : (", src, " >= ", n,
                                              " ? 2 * (", n, " - 1) - ", src, " : ", src, "))"));
          case ir::PadMode::kSymmetric:
            return array.element(absl::StrCat("(", src, " < 0 ? -", src, " - 1 : (", src, " >= ", n,
                                              " ? 2 * ", n, " - 1 - ", src, " : ", src, "))"));
        }
        return absl::InternalError("unknown pad mode");
      };
      return out;
    }
    case K::kReindex: {
      // The first rows of blocks (the rows blockRows padded dropped): still stored by blocks.
      if (args[0].blocks_of != nullptr && p.index_fn == ir::IndexVar()) {
        out.blocks_of = args[0].blocks_of;
        out.rows_below = Size(p.size);
      }
      // A shift, out[i] = in[i + c], keeps a contiguous array contiguous.
      const ArithExpr offset = p.index_fn - ir::IndexVar();
      const std::vector<std::string> vars = offset.Variables();
      if (!args[0].buffer.empty() && std::ranges::find(vars, "i") == vars.end()) {
        out.buffer = args[0].buffer;
        out.base = absl::StrCat("(", args[0].base, " + ", Size(offset), ")");
      }
      out.element = [this, &p, array = args[0]](const std::string& i) -> absl::StatusOr<CVal> {
        const std::string at = em_->Fresh("at");
        em_->Emit(absl::StrCat("const long ", at, " = ", Size(p.index_fn, i), ";"));
        return array.element(at);
      };
      return out;
    }
    case K::kConcat:
      out.element = [this, args](const std::string& i) -> absl::StatusOr<CVal> {
        // Part k holds indices [start_k, start_k + n_k): select down the parts.
        std::function<absl::StatusOr<CVal>(size_t, std::string)> part =
            [&](size_t k, std::string start) -> absl::StatusOr<CVal> {
          const std::string local = absl::StrCat("((", i, ") - (", start, "))");
          if (k + 1 == args.size()) return args[k].element(local);
          const std::string end = absl::StrCat("(", start, " + ", Size(args[k].type->length), ")");
          const CVal& a = args[k];
          absl::StatusOr<CVal> rest_value = part(k + 1, end);
          if (!rest_value.ok()) return rest_value.status();
          return Select(
              a.type->element, absl::StrCat("(", i, ") < ", end),
              [a, local]() { return a.element(local); },
              [v = *rest_value]() -> absl::StatusOr<CVal> { return v; });
        };
        return part(0, "0L");
      };
      return out;
    case K::kRepeat:
      out.element = [value = args[0]](const std::string&) -> absl::StatusOr<CVal> { return value; };
      return out;
    case K::kIota:
      out.element = [dtype = p.dtype](const std::string& i) -> absl::StatusOr<CVal> {
        return CVal{ir::ScalarType(dtype), [dtype, i]() -> absl::StatusOr<std::string> {
                      return absl::StrCat("((", ir::OpenCLType(dtype), ")(", i, "))");
                    }};
      };
      return out;
    case K::kSizeValue: {
      const std::string value =
          absl::StrCat("((", ir::OpenCLType(p.dtype), ")(", Size(p.size), "))");
      out.scalar = [value]() -> absl::StatusOr<std::string> { return value; };
      return out;
    }
    case K::kAt: {
      const std::string n = Size(args[0].type->length);
      // A runtime index out of range flags the error and reads zeros, never outside a buffer.
      auto read = [this, array = args[0], index = args[1], n]() -> absl::StatusOr<CVal> {
        DFC_ASSIGN_OR_RETURN(std::string i, index.scalar());
        const std::string at = em_->Fresh("at");
        em_->Emit(absl::StrCat("const long ", at, " = (long)(", i, ");"));
        const std::string ok = absl::StrCat("(ulong)", at, " < (ulong)", n);
        em_->Emit(absl::StrCat("if (!(", ok, ")) *dfc_error = 1;"));
        return Select(
            array.type->element, ok, [array, at]() { return array.element(at); },
            [this, t = array.type->element]() -> absl::StatusOr<CVal> {
              return Filled(t, ir::Scalar::Int(ir::BaseDType(t), 0));
            });
      };
      // The index is read where the element is: defer through the value's shape.
      if (result->is_scalar()) {
        out.scalar = [read]() -> absl::StatusOr<std::string> {
          DFC_ASSIGN_OR_RETURN(CVal v, read());
          return v.scalar();
        };
        return out;
      }
      return read();
    }
    case K::kAsVector: {
      const TypePtr vector = result->element;
      const int w = vector->width;
      if (vector->dtype == DType::kHalf) return Unsupported("a vector of float16");
      // AsVector(w) $ AsScalar $ v, v of vectors of w lanes, is v: a row that one elementwise
      // op computed as vectors is read so by the next (vectorizeMaps).
      if (args[0].lanes_of != nullptr && ir::TypeEquals(args[0].lanes_of->type, result)) {
        return *args[0].lanes_of;
      }
      out.element = [this, array = args[0], vector,
                     w](const std::string& i) -> absl::StatusOr<CVal> {
        const std::string first = absl::StrCat("(", i, ") * ", w);
        if (!array.buffer.empty()) {  // contiguous: one load
          const std::string pointer = absl::StrCat(array.buffer, " + ", array.base, " + ", first);
          const bool global = global_buffers_.contains(array.buffer);
          return CVal{vector, [this, pointer, global, w]() -> absl::StatusOr<std::string> {
                        if (global) Prefetch(pointer);
                        return absl::StrCat("vload", w, "(0, ", pointer, ")");
                      }};
        }
        return CVal{vector, [array, vector, w, first]() -> absl::StatusOr<std::string> {
                      std::vector<std::string> lanes;
                      for (int k = 0; k < w; ++k) {
                        DFC_ASSIGN_OR_RETURN(CVal e, array.element(absl::StrCat(first, " + ", k)));
                        DFC_ASSIGN_OR_RETURN(std::string text, e.scalar());
                        lanes.push_back(std::move(text));
                      }
                      return absl::StrCat("((", CType(vector), ")(", absl::StrJoin(lanes, ", "),
                                          "))");
                    }};
      };
      return out;
    }
    case K::kAsScalar: {
      const TypePtr vector = args[0].type->element;
      out.lanes_of = std::make_shared<const CVal>(args[0]);
      out.element = [this, array = args[0], vector,
                     scalar = result->element](const std::string& k) -> absl::StatusOr<CVal> {
        return CVal{scalar, [this, array, vector, k]() -> absl::StatusOr<std::string> {
                      const int w = vector->width;
                      DFC_ASSIGN_OR_RETURN(CVal v,
                                           array.element(absl::StrCat("((", k, ") / ", w, ")")));
                      DFC_ASSIGN_OR_RETURN(std::string text, v.scalar());
                      // A lane at a runtime index: through the address of a private copy.
                      const std::string name = em_->Fresh("vec");
                      em_->Emit(absl::StrCat("const ", CType(vector), " ", name, " = ", text, ";"));
                      return absl::StrCat("((const ", ir::OpenCLType(vector->dtype), "*)&", name,
                                          ")[(", k, ") % ", w, "]");
                    }};
      };
      return out;
    }
    default:
      break;
  }
  return Unsupported(ir::FunName(p));
}

absl::Status Generator::EmitKernel(const std::string& name, const std::vector<Output>& outputs) {
  // MapWrg/MapLcl (kernel_gen.h) for the outputs of few rows whose code splits a Reduce (alone,
  // an output that splits nothing would have every work-item repeat its row for nothing);
  // MapGlb for the rest, in a kernel of its own after them.
  std::vector<Output> split, rest;
  const int lanes = profile_.WorkGroupReductionSize();
  for (const Output& out : outputs) {
    if (lanes > 0 && FewRows({out})) {
      DFC_ASSIGN_OR_RETURN(EmittedKernel trial, EmitKernelMapped(name, {out}, lanes));
      if (trial.split_reduces > 0) {
        split.push_back(out);
        continue;
      }
    }
    rest.push_back(out);
  }
  if (!split.empty() && !FewRows(split)) {  // too many rows together: the device is full
    rest = outputs;
    split.clear();
  }
  for (const auto& [group, mapped_lanes, stage_name] :
       {std::tuple{&split, lanes, rest.empty() ? name : absl::StrCat(name, "_wrg")},
        std::tuple{&rest, 0, name}}) {
    if (group->empty()) continue;
    DFC_ASSIGN_OR_RETURN(EmittedKernel kernel, EmitKernelMapped(stage_name, *group, mapped_lanes));
    kernels_.push_back(std::move(kernel.text));
    stages_.push_back(std::move(kernel.stage));
  }
  return absl::OkStatus();
}

bool Generator::FewRows(const std::vector<Output>& outputs) const {
  int64_t rows = 0;
  for (const Output& out : outputs) {
    const std::optional<int64_t> n =
        out.type->is_array() ? out.type->length.AsConstant() : std::optional<int64_t>(1);
    if (!n) return false;  // a size variable: a batch, assumed to fill the device
    rows += *n;
  }
  return rows < profile_.ConcurrentWorkItems();
}

absl::StatusOr<Generator::EmittedKernel> Generator::EmitKernelMapped(
    const std::string& name, const std::vector<Output>& outputs, int lanes) {
  CEmitter emitter(&block_counter_);
  CEmitter* const outer = em_;
  em_ = &emitter;
  lanes_ = lanes;
  split_reduces_ = 0;
  local_types_.clear();
  const int64_t outer_private_bytes = private_bytes_;  // of the kernel this one is nested in
  private_bytes_ = 0;
  EmittedKernel kernel{.stage = {name, {}, lanes > 0 ? lanes : work_group_size_, lanes > 0}};
  KernelStage& stage = kernel.stage;
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
      if (const CVal* blocks = out.value.blocks_of.get(); blocks != nullptr && lanes == 0) {
        // Join $ MapGlb(f) $ x: work-item gid computes block f(x[gid]) once and stores its
        // rows, where row by row each would compute its whole block again. The block's type
        // ([b][m]) is the output's ([n·b][m]) cut in rows of b, so the bounds still come
        // from the declared type.
        em_->Emit(absl::StrCat("// MapGlb: work-item gid computes block gid of ",
                               ir::TypeToString(blocks->type->element), " rows"));
        stage.rows.push_back(blocks->type->length);
        em_->OpenBlock(absl::StrCat("if (gid < ", Size(blocks->type->length), ")"));
        DFC_ASSIGN_OR_RETURN(CVal block, blocks->element("gid"));
        DFC_RETURN_IF_ERROR(Store(block, blocks->type->element, out.buffer, "gid",
                                  /*private_array=*/false, /*unroll=*/false, out.value.rows_below));
      } else if (out.type->is_array()) {
        stage.rows.push_back(out.type->length);
        em_->OpenBlock(absl::StrCat("if (gid < ", Size(out.type->length), ")"));
        DFC_ASSIGN_OR_RETURN(CVal row, out.value.element("gid"));
        DFC_RETURN_IF_ERROR(Store(row, out.type->element, out.buffer, "gid"));
      } else {
        stage.rows.push_back(1);
        em_->OpenBlock("if (gid == 0)");
        DFC_RETURN_IF_ERROR(Store(out.value, out.type, out.buffer, "0L"));
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
  // Local memory is declared at the kernel's scope.
  for (const std::string& type : local_types_) {
    absl::StrAppend(&kernel.text.locals, "__local ", type, " dfc_part_", type, "[", lanes, "];\n");
  }
  if (!local_types_.empty()) {
    absl::StrAppend(&kernel.text.locals, "__local uchar dfc_has[", lanes, "];\n");
  }
  kernel.text.body = emitter.Finish();
  kernel.split_reduces = split_reduces_;
  return kernel;
}

absl::StatusOr<CVal> Generator::Materialize(const CVal& value) {
  const std::string buffer = absl::StrCat("tmp", temporaries_.size());
  const DType dtype = ir::BaseDType(value.type);
  temporaries_.push_back(value.type);
  global_buffers_.insert(buffer);
  buffer_params_.push_back(absl::StrCat("__global ", StorageType(dtype), "* restrict ", buffer,
                                        "  // ", ir::TypeToString(value.type)));
  // Outside every output's block, the stage computes its value as the cluster's body would.
  const bool saved = top_level_;
  top_level_ = false;
  const std::string stage = absl::StrCat(name_, "_s", stages_.size());
  const std::string comment = absl::StrCat(buffer, ": ", ir::TypeToString(value.type));
  // A GPU reads a transposed view with neighbouring work-items on neighbouring elements: its
  // reads coalesce row by row.
  const bool matrix = value.type->is_array() && value.type->element->is_array() &&
                      value.type->element->element->is_scalar();
  absl::Status emitted = !profile_.is_gpu && !value.computed && matrix
                             ? EmitBlockedCopy(stage, value, buffer, comment)
                             : EmitKernel(stage, {{value, value.type, buffer, comment}});
  top_level_ = saved;
  DFC_RETURN_IF_ERROR(emitted);
  return Load(buffer, dtype, value.type, "0L");
}

absl::Status Generator::EmitBlockedCopy(const std::string& name, const CVal& value,
                                        const std::string& buffer, const std::string& comment) {
  CEmitter emitter(&block_counter_);
  CEmitter* const outer = em_;
  em_ = &emitter;
  KernelStage stage{.name = name,
                    .rows = {ArithExpr::CeilDiv(value.type->length, kCopyBlockRows)},
                    .work_group_size = work_group_size_};
  auto emit = [&]() -> absl::Status {
    em_->Emit(absl::StrCat("// MapGlb(0) over blocks of ", kCopyBlockRows,
                           " rows: work-item gid copies rows ", kCopyBlockRows, "*gid to ",
                           kCopyBlockRows, "*gid + ", kCopyBlockRows - 1, ", column by column"));
    em_->Emit("const long gid = get_global_id(0);");
    em_->Emit(absl::StrCat("// ", comment));
    const std::string rows = Size(value.type->length);
    const std::string columns = Size(value.type->element->length);
    const std::string j = em_->Fresh("j");
    const std::string t = em_->Fresh("t");
    const std::string row = em_->Fresh("row");
    // Work-items past the rows (the global size rounded up to the work-group size) do nothing.
    em_->OpenBlock(absl::StrCat("if (gid * ", kCopyBlockRows, " < ", rows, ")"));
    em_->OpenBlock(absl::StrCat("for (long ", j, " = 0; ", j, " < ", columns, "; ++", j, ")"));
    em_->Emit("#pragma unroll");
    em_->OpenBlock(
        absl::StrCat("for (long ", t, " = 0; ", t, " < ", kCopyBlockRows, "; ++", t, ")"));
    em_->Emit(absl::StrCat("const long ", row, " = gid * ", kCopyBlockRows, " + ", t, ";"));
    em_->OpenBlock(absl::StrCat("if (", row, " < ", rows, ")"));
    DFC_ASSIGN_OR_RETURN(CVal elements, value.element(row));
    DFC_ASSIGN_OR_RETURN(CVal element, elements.element(j));
    DFC_RETURN_IF_ERROR(Store(element, value.type->element->element, buffer,
                              absl::StrCat(row, " * ", columns, " + ", j)));
    em_->CloseBlock();
    em_->CloseBlock();
    em_->CloseBlock();
    em_->CloseBlock();
    return absl::OkStatus();
  };
  const absl::Status status = emit();
  em_ = outer;
  DFC_RETURN_IF_ERROR(status);
  const DType dtype = ir::BaseDType(value.type);
  uses_half_ |= dtype == DType::kHalf;
  uses_double_ |= dtype == DType::kDouble;
  kernels_.push_back({.locals = "", .body = emitter.Finish()});
  stages_.push_back(std::move(stage));
  return absl::OkStatus();
}

// The number of scalars of a tensor type, if it is a known constant.
std::optional<int64_t> ConstantElements(const TypePtr& type) {
  const auto shape = ir::TensorShape(type);
  if (!shape) return std::nullopt;
  return NumElements(*shape).AsConstant();
}

bool Generator::FitsPrivately(const TypePtr& type) {
  const std::optional<int64_t> n = ConstantElements(type);
  return n && *n <= kMaxPrivateElements;
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
  DFC_RETURN_IF_ERROR(Store(value, value.type, name, "0L", /*private_array=*/true));
  return Load(name, dtype == DType::kHalf ? DType::kFloat : dtype, value.type, "0L");
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
    (*root)[lambda.params[k].get()] = Load(name, dtype, type, "0L");
  }
  const Env env =
      std::make_shared<const Frame>(Frame{.root = root, .parent = nullptr, .bindings = {}});

  // The body's top level: what the whole cluster binds (its lets) is evaluated here, once.
  CEmitter top(&block_counter_);
  em_ = &top;
  top_level_ = true;
  absl::StatusOr<CVal> body = Eval(lambda.body, env);
  top_level_ = false;
  if (!body.ok()) return body.status();
  std::vector<Output> outputs;
  for (size_t k = 0; k < cluster_.outputs.size(); ++k) {
    const TypePtr& type = cluster_.output_types[k];
    const std::string buffer = absl::StrCat("out", k);
    buffer_params_.push_back(absl::StrCat("__global ", StorageType(ir::BaseDType(type)),
                                          "* restrict ", buffer, "  // ",
                                          cluster_.outputs[k].ToString()));
    outputs.push_back({cluster_.outputs.size() == 1 ? *body : body->fields[k], type, buffer,
                       absl::StrCat(cluster_.outputs[k].ToString(), ": ", ir::TypeToString(type))});
  }
  DFC_RETURN_IF_ERROR(EmitKernel(options.name, outputs));
  // Statements emitted at the top level itself (a runtime index read outside every Map) go
  // first in every kernel.
  const std::string preamble = top.Finish();

  KernelSource kernel;
  kernel.stages = stages_;
  kernel.temporaries = temporaries_;
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
  for (size_t s = 0; s < stages_.size(); ++s) {
    const std::string attribute = stages_[s].work_group_per_row
                                      ? absl::StrCat("__attribute__((reqd_work_group_size(",
                                                     stages_[s].work_group_size, ", 1, 1))) ")
                                      : "";
    absl::StrAppend(&src, "\n__kernel ", attribute, "void ", stages_[s].name, "(\n");
    for (size_t k = 0; k < params.size(); ++k) {
      // The comment after a parameter goes after its comma.
      std::string line = params[k];
      const size_t comment = line.find("  //");
      const std::string sep = k + 1 < params.size() ? "," : ") {";
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

}  // namespace

std::string StorageType(DType dtype) {
  return dtype == DType::kHalf ? "half" : ir::OpenCLType(dtype);
}

absl::StatusOr<KernelSource> GenerateKernel(const ir::LoweredCluster& cluster,
                                            const KernelOptions& options) {
  Generator generator(cluster);
  return generator.Generate(options);
}

}  // namespace dfc::codegen

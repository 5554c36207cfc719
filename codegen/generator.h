// The kernel generator's internals, shared by its files: a staged twin of ir/interpreter.cc
// (see kernel_gen.h, c_emitter.h).
//
// Where the interpreter holds a value, the generator holds a CVal: a scalar is a thunk that
// emits what computes it and returns a C expression; an array is a length and a function from
// a C index expression to the element's CVal (a view: nothing is stored); a tuple is its
// fields. Values bound by a Lambda are computed once per scope (Memo).
//
// The Generator's members live by concept: values.cc (CVal helpers, sizes, loads), apply.cc
// (evaluating expressions; the patterns as views), reduce.cc (the folds), store.cc (writing
// values and private arrays), prefetch.cc (software prefetch) and kernel_gen.cc (mapping the
// outputs onto work-items and assembling the program).
#ifndef DFC_CODEGEN_GENERATOR_H_
#define DFC_CODEGEN_GENERATOR_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "codegen/c_emitter.h"
#include "codegen/kernel_gen.h"
#include "rewrite/work_item.h"

namespace dfc::codegen::gen {

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
using ElementFn = SharedFn<absl::StatusOr<CVal>(const ArithExpr& index)>;
using Lazy = std::function<absl::StatusOr<CVal>()>;

// Index arithmetic is ArithExpr until printed (Generator::Print), so that its simplification
// applies and a prefetch reads the loop indices an address names (Variables()). Besides size
// variables (printed size_N), an index names C variables of the generator's: gid, loop indices,
// and an index computed into a variable of its own (a Reindex's, a runtime index, a mirrored
// border). CVar marks them with a leading '$', which no size variable has. Every one is
// non-negative wherever an element is read through it, so a division whose operands are sums
// and products of them is C's own (Print).
ArithExpr CVar(absl::string_view name);
bool IsCVar(absl::string_view var_name);

// Where Store writes a value: `type` at `offset` of `buffer` (a private array of the work-item's,
// or a global buffer of which only the rows below `rows_below` are written, where it is set).
struct StoreTarget {
  const TypePtr& type;
  const std::string& buffer;
  const ArithExpr& offset;
  bool private_array;
  const std::optional<ArithExpr>& rows_below;
};
// A value's own way of being written (CVal::writer): true when written, false where it cannot
// write to that target and Store writes the value element by element.
using Writer = SharedFn<absl::StatusOr<bool>(const StoreTarget& target)>;

struct CVal {
  TypePtr type;
  Thunk scalar;              // scalars
  std::vector<CVal> fields;  // tuples
  ElementFn element;         // arrays
  // The result of a dot product's multiply (UserFun::Arithmetic::kMultiply): its two factors,
  // so that a sum of it is emitted as one fused multiply-add.
  std::shared_ptr<const std::pair<CVal, CVal>> factors;
  // An array of scalars stored contiguously, in a buffer or a private array: element i is
  // `buffer[base + i]`, so that AsVector(w) reads w of them with one vload<w>. Empty when not
  // known to be so (a view that reorders, a float16 buffer).
  std::string buffer;
  ArithExpr base;
  // An array of arrays whose scalars lie in order in a buffer, from `flat_base` on (a filter
  // loaded as it is stored): Join keeps it, and an array of scalars it joins is contiguous.
  std::string flat_buffer;
  ArithExpr flat_base;
  // The array as Join $ rows where it was made so (a window's taps, a batch's positions joined),
  // or null: element k is the rows' element k / m's element k % m, m a constant. A fold walks
  // the rows in nested loops (OpenLoopsOver), indexing each directly instead of dividing.
  std::shared_ptr<const CVal> rows;
  // An array made by Select (cond ? then : other, element by element), its condition and
  // branches, or null: AsVector commutes with it, one condition for a vector's lanes, each
  // branch loaded as a vector (a padded row of channels: one vload, not a select a lane).
  struct Selected {
    std::string cond;
    std::function<absl::StatusOr<CVal>()> then, other;
  };
  std::shared_ptr<const Selected> selected;
  // Whether element() only builds views, at every depth: it emits no code and reads no scalar
  // (a tensor's buffer, and the patterns that rearrange such arrays). Such an array's element
  // may be looked at before the loop that reads it opens (TransposedView).
  bool view = false;
  // How the value is written where its pattern says more than its elements do, or null: a
  // TransposeW's result column by column, each column computed once; AsScalar's vector by vector
  // (vstore<w>), each vector computed once. A Map of AsScalar lists each row's vectors as the
  // same memory, so it is written as its argument is.
  Writer writer;
};

// The C type of a scalar or vector value, in its compute type: "float", "float16".
std::string CType(const TypePtr& type);

// What a work-item can hold (rewrite/work_item.h), which the lowering and the generator share.
using rewrite::AccumulatorRefusal;
using rewrite::AsVectorRefusal;
using rewrite::ConstantElements;
using rewrite::LeafType;
using rewrite::Slots;
using rewrite::VectorRefusal;

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
const CVal* Lookup(const Env& env, const ir::Param* param);

// An IR construct the generator does not handle, as an Unimplemented error naming it.
absl::Status Unsupported(absl::string_view what);

// The OpenCL C literal of a scalar, in its compute type.
std::string ScalarLiteral(const ir::Scalar& s);

// Element i of Split(m) (stride m) and of Slide(size, step) (stride step): the window of
// `array` that starts at element i * stride, of type `window`.
ElementFn Windows(const CVal& array, const TypePtr& window, const ArithExpr& stride);
// Map(f) $ array and Zip $ arrays as views of type `result`, element by element where read,
// with rows (CVal::rows) wherever an array they read has them.
using ElementMap = SharedFn<absl::StatusOr<CVal>(CVal)>;
// `f_is_view`: f makes a view of a view without emitting (CVal::view).
CVal MappedView(const CVal& array, const TypePtr& result, const ElementMap& f,
                bool f_is_view = false);
CVal ZippedView(std::vector<CVal> arrays, const TypePtr& result);
// Transpose $ array as a view of type `result`, with rows where the array is a view whose rows
// have rows: Transpose o Map(Join) = Join o Map(Transpose) o Transpose, so that a fold over a
// register block's joined taps walks them in nested loops as one position's fold does.
CVal TransposedView(const CVal& array, const TypePtr& result);

// The scalars and vectors of a value, depth first through tuples.
absl::Status Leaves(const CVal& v, std::vector<const CVal*>& out);

// A value of `type` whose k-th scalar (depth first) is names(k).
CVal FromLeaves(const TypePtr& type, const std::function<Thunk(int)>& leaf, int& next);

// The most elements of a private array whose every loop is unrolled (a fold's accumulators) that
// Store writes with a statement each rather than a loop the driver unrolls: a register block's
// 12 to 64, whose shared loads are then made once.
constexpr int64_t kUnrolledInText = 64;

// The most prefetches a sequential loop's step issues for one read (the rows of a block): more
// would cost more than the misses they save.
constexpr int64_t kMaxPrefetchesAStep = 16;

class Generator {
 public:
  explicit Generator(const ir::TranslatedCluster& cluster) : cluster_(cluster) {}

  absl::StatusOr<KernelSource> Generate(const KernelOptions& options);

 private:
  absl::StatusOr<CVal> Eval(const ExprPtr& expr, const Env& env);
  absl::StatusOr<CVal> Apply(const Fun& f, std::vector<CVal> args, const TypePtr& result,
                             const Env& env);
  absl::StatusOr<CVal> ApplyLambda(const ir::Lambda& lambda, std::vector<CVal> args,
                                   const Env& env);
  // The frame a let binds: its arguments evaluated (a ToPrivate one computed into a private
  // array of the work-item) and bound to its λ's parameters. At the top level, a tensor
  // argument must be ToGlobal (the lowering's toGlobal).
  absl::StatusOr<Env> BindLet(const ir::FunCall& let, const Env& env);
  // The frame binding `lambda`'s parameters to `args`, those whose `kept` is set in private
  // arrays, the rest as they are (Bind).
  absl::StatusOr<Env> Bound(const ir::Lambda& lambda, std::vector<CVal> args, const Env& env,
                            const std::vector<bool>& kept);
  absl::StatusOr<CVal> ApplyPattern(const ir::Pattern& p, std::vector<CVal> args,
                                    const TypePtr& result, const Env& env);
  absl::StatusOr<CVal> CallUserFun(const ir::UserFun& f, std::vector<CVal> args);
  absl::StatusOr<CVal> ReduceSeq(const ir::FunPattern& p, std::vector<CVal> args, const Env& env);
  // A Reduce whose accumulator is an array (of known size, at most kMaxAccumulatorScalars
  // scalars, vector lanes counted): kept in a private array of the work-item.
  absl::StatusOr<CVal> ReduceIntoPrivate(const ir::FunPattern& p, const CVal& init,
                                         const CVal& array, const Env& env);
  // Software prefetch (DeviceProfile::prefetch_bytes) of a vector read from global memory at
  // `pointer`, if it streams: the row's own data (the pointer names gid), advancing with an
  // enclosing sequential loop (it names the loop's index). The prefetch goes first in that
  // loop's body, once per pointer, however deep inside the read is (an unrolled loop over
  // columns would otherwise prefetch one line ten times). Data every work-item reads (a weight
  // matrix) stays in cache and is not prefetched; nor is a lone scalar, which a loop stepping
  // 4 bytes would prefetch 16 times a line.
  void Prefetch(const std::string& buffer, const ArithExpr& offset);
  struct SequentialLoop {
    std::string index;  // the CVar's name
    const CEmitter* emitter;
    int depth;  // the emitter's depth inside the loop's body
    std::set<std::string> prefetched;
  };
  // Opens and closes a sequential loop's block, keeping seq_loops_.
  // `for (long index = 0; index < count; ++index)`; returns the index.
  ArithExpr OpenSequentialLoop(const ArithExpr& count);
  void CloseSequentialLoop();
  // The sequential loops that walk `array`'s elements in order, one per level of its rows
  // (CVal::rows), opened; returns the element they reach and adds their number to `loops`.
  absl::StatusOr<CVal> OpenLoopsOver(const CVal& array, int& loops);
  // ReduceLanes: the halves of one vector combined lane-wise until one lane is left
  // (16 -> 8 -> 4 -> 2 -> 1), then with init. Returns the result's C name.
  absl::StatusOr<std::string> EmitLaneTree(const ir::FunPattern& p, const CVal& init,
                                           const CVal& vectors, const Env& env);
  // Emits ReduceLcl, the Reduce split across the work-group (kernel_gen.h), and returns the C
  // name of its result.
  absl::StatusOr<std::string> EmitSplitReduce(const ir::FunPattern& p, const CVal& init,
                                              const CVal& array, const std::string& type,
                                              const Env& env);

  // The operations a statement performs: those of each UserFun it calls (fun_ops_).
  int64_t OpsOfLine(absl::string_view line) const;
  // A value whose scalars are computed once per scope: at once inside a kernel's loops, or
  // at first use (hoisted to the output's block) for values of the whole cluster.
  absl::StatusOr<CVal> Bind(CVal value);
  // cond ? then : other, element by element; the branches are emitted only where taken. The
  // shares say for what part of the elements each branch runs, where that is known (a
  // Concat's parts), for the operations the kernel counts.
  CVal Select(const TypePtr& type, std::string cond, Lazy then, Lazy other,
              std::pair<Share, Share> shares = {});
  // Element i of AsVector(w) $ array: vector w·i to w·i + w - 1 of it, one vload<w> where the
  // array is contiguous, one select where it is a Select's.
  absl::StatusOr<CVal> VectorAt(const CVal& array, const TypePtr& vector, const ArithExpr& i);
  // The value of `type` whose every scalar is `fill` (Pad's constant; zeros for an
  // out-of-range At, which flags the error).
  CVal Filled(const TypePtr& type, const ir::Scalar& fill);
  // A tensor parameter in global memory: element offsets from `base`.
  CVal Load(const std::string& buffer, DType dtype, const TypePtr& type, const ArithExpr& base);
  // `load` (the C text reading `address` of a buffer the kernel does not write) bound once to a
  // variable where its address is known: in the innermost loop whose index it names, not
  // inside the loops of a fold step's tile it does not depend on (the vector of a product's
  // right matrix that every row of a register block multiplies), and never outside a branch
  // it was read in. Returns the variable's name.
  absl::StatusOr<std::string> LoadOnce(const std::string& load, const TypePtr& type,
                                       const ArithExpr& address);
  // Writes `value` as the output of `type`: loop bounds come from the declared type, so a
  // kernel never writes past the buffer the runtime allocated for it.
  // With `unroll`, loops of a known trip count are fully unrolled (an accumulator array kept
  // in registers).
  // `rows_below` (optional): of value's rows, store only those whose index in the buffer,
  // offset * length + j, is below it (a block's rows past the array's end).
  absl::Status Store(const CVal& value, const TypePtr& type, const std::string& buffer,
                     const ArithExpr& offset, bool private_array = false, bool unroll = false,
                     const std::optional<ArithExpr>& rows_below = std::nullopt);
  // The C text of a size or an index; the size variables it names become kernel arguments.
  std::string Print(const ArithExpr& e);
  // A loop's C header over `index` (a CVar) from 0 to `count`.
  std::string ForHeader(const ArithExpr& index, const ArithExpr& count);

  // A value a kernel stores, as the lowering mapped it (rewrite::MappedRows): work-item (or
  // work-group) gid computes rows[gid], or block blocks[gid] of rows (those below rows_below,
  // if set), or, for a scalar, work-item 0 computes it.
  struct Output {
    ExprPtr expr;  // the value as the lowering left it
    CVal value;    // the rows, the blocks, or the scalar
    TypePtr type;
    std::string buffer;
    std::string comment;
    bool by_work_groups = false;  // MapWrg(0), or a scalar whose Reduces are ReduceLcl(0)
    bool blocks = false;
    std::optional<ArithExpr> rows_below;
  };
  // `e`, a value the lowering mapped, evaluated at the top level as an Output.
  absl::StatusOr<Output> MappedOutput(const ExprPtr& e, const Env& env, std::string buffer,
                                      std::string comment);
  // The work of the graph nodes a kernel storing `outputs` computes, each once: the outputs'
  // strict operations and those of the unstored lets they read (KernelStage::own_ops).
  ArithExpr StageOwnOps(const std::vector<Output>& outputs) const;
  // Emits the kernels that write `outputs`: those mapped by work-groups first, then the rest.
  absl::Status EmitKernel(const std::string& name, const std::vector<Output>& outputs);
  // The kernel under one mapping: MapWrg/MapLcl with `lanes` work-items a row, or MapGlb (0).
  struct KernelText {
    std::string locals;  // declarations of local memory
    std::string body;
  };
  struct EmittedKernel {
    KernelStage stage;
    KernelText text;
  };
  absl::StatusOr<EmittedKernel> EmitKernelMapped(const std::string& name,
                                                 const std::vector<Output>& outputs, int lanes);
  // A top-level array bound by a let, ToGlobal $ e: computed by a kernel of its own into a
  // temporary.
  absl::StatusOr<CVal> Materialize(const ExprPtr& e, const Env& env);
  // Several values stored by one kernel (a let that binds them together): one launch where
  // each would take its own.
  absl::StatusOr<std::vector<CVal>> MaterializeTogether(const std::vector<ExprPtr>& values,
                                                        const Env& env);
  // ToPrivate: an array computed once into a private array of the work-item.
  absl::StatusOr<CVal> MaterializePrivately(const CVal& value);
  // TransposeW's writer: `columns` ([m][r] scalars or vectors of w lanes) stored as the rows
  // of an [r][m·w] matrix of scalars, column by column: each column computed once, its r
  // elements stored down the rows (those below `rows_below`).
  absl::StatusOr<bool> StoreColumns(const CVal& columns, const StoreTarget& target);
  // AsScalar's writer: `vectors` stored as an array of scalars in a global buffer, a vstore<w>
  // a vector.
  absl::StatusOr<bool> StoreVectors(const CVal& vectors, const StoreTarget& target);
  // Emits `type name[elements];` (and the comment), counting its bytes in private_bytes_.
  void DeclarePrivateArray(const std::string& type, const std::string& name, int64_t elements,
                           int64_t element_bytes, const std::string& comment);

  const ir::TranslatedCluster& cluster_;
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
    std::string index;  // the CVar's name
    int64_t count;
    size_t inside;
    int depth;  // the emitter's depth inside the loop's body
  };
  std::vector<UnrolledLoop> unrolled_;
  bool uses_prefetch_ = false;
  bool checks_indices_ = false;  // some code sets dfc_error
  std::string name_;
  rewrite::DeviceProfile profile_;
  int work_group_size_ = 0;  // of MapGlb kernels (0: the driver's choice)
  std::set<std::string> size_vars_;
  std::map<std::string, const ir::UserFun*> user_funs_;
  // The operations each C function of a UserFun performs (a vector twin's width, twice that
  // for a fused multiply-add), by name: what CEmitter counts for a statement that calls it.
  absl::flat_hash_map<std::string, int> fun_ops_;
  // The fused multiply-adds of dot-product sums (UserFun::Arithmetic): name, the sum, width.
  std::map<std::string, std::pair<const ir::UserFun*, int>> fma_funs_;
  // LoadOnce's variables, by the load's text (a Memo knows the scope each is valid in).
  absl::flat_hash_map<std::string, std::shared_ptr<Memo>> loads_;
  std::map<std::string, std::pair<const ir::UserFun*, int>> vector_funs_;  // twins, widths
  bool uses_double_ = false;
  bool uses_half_ = false;
  bool top_level_ = false;  // evaluating the cluster's body, outside every output's block
  // The values the cluster's top-level lets bind that no kernel stores (a tuple of row
  // statistics, a scalar): computed where they are read, their work belongs to each kernel that
  // reads them (StageOwnOps).
  std::vector<std::pair<const ir::Param*, ExprPtr>> unstored_lets_;
  // MapWrg/MapLcl (kernel_gen.h): the work-items per row of the kernel being emitted (0: MapGlb),
  // and the compute types of the local-memory arrays that combine its ReduceLcls.
  int lanes_ = 0;
  std::set<std::string> local_types_;
};

}  // namespace dfc::codegen::gen

#endif  // DFC_CODEGEN_GENERATOR_H_

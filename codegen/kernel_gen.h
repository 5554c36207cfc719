// OpenCL C for a cluster: one kernel that computes every output of the cluster's Lambda.
//
// The default strategy, as Lift's: the outermost Map of each output is spread over work-items
// (MapGlb(0): work-item `gid` computes row `gid` of every output that has one), every inner
// Map is a sequential loop (MapSeq) and every Reduce a sequential fold (ReduceSeq); scalars
// live in private variables. Views (Zip, Split, Join, Transpose, Slide, Pad, Reindex, Concat,
// Repeat, Iota, Get) are index arithmetic: nothing is copied. Size variables are kernel
// arguments, so one kernel serves every batch size.
//
// Inside a work-item, an array bound once and read several times whose elements do arithmetic
// (a row of hidden units that every output of the next layer reads; the logits that Softmax
// reads for its max, its sum and its quotients) is computed once into a private array, if its
// size is a known constant of at most 1024 elements; any other array is a view, its elements
// computed where they are read.
//
// Where the device profile says so (a GPU with real local memory, WorkGroupReductionSize), a
// kernel whose rows are a known number too small to fill the device (ConcurrentWorkItems) and
// whose rows reduce takes Lift's MapWrg/MapLcl mapping instead: work-group g computes row g,
// every work-item of it runs the row's code, and each Reduce by a combiner (UserFun::combiner)
// met there is split across the work-items (item l folds elements l, l + L, l + 2L...: reads
// that neighbouring items make side by side) and combined by a tree in local memory, with a
// barrier after each level. Only the first work-item stores. The gradient of a weight matrix
// (784 x 10 sums over the batch) is such a kernel.
//
// A value the cluster binds once and reads several times (a let at the cluster's top level,
// such as a MatMul whose result two nodes read) is computed once: by a kernel of its own that
// writes it to a temporary buffer, before the kernel of the outputs, which reads it from
// there. Recomputing it wherever it is read would repeat the work in every reader and, along
// a chain of such values (the steps of an unrolled RNN), make the code grow exponentially.
//
// A kernel of a cluster takes, of these and in this order, the arguments its code names
// (KernelParameters): one `__global const T*` per cluster parameter, one `__global T*` per
// temporary, one `__global T*` per output, `__global int* dfc_error` (set to 1 when a runtime
// index is out of range, as for a GatherV2 index TensorFlow would refuse), then one `long` per
// size variable.
#ifndef DFC_CODEGEN_KERNEL_GEN_H_
#define DFC_CODEGEN_KERNEL_GEN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/c_emitter.h"
#include "graph/arith.h"
#include "ir/from_tf/cluster.h"
#include "rewrite/device_profile.h"

namespace dfc::codegen {

struct KernelStage {
  std::string name;  // the kernel function's name
  // The outermost length of each value the kernel writes (1 for a scalar): the global size
  // is their maximum.
  std::vector<ArithExpr> rows;
  // The work-group size (0: the driver's choice). The global size is rounded up to a
  // multiple of it; work-items past the rows write nothing.
  int work_group_size = 0;
  // MapWrg/MapLcl: work-group g computes row g, its work_group_size work-items splitting the
  // row's Reduces (the kernel requires exactly that work-group size). The global size is then
  // the rows times the work-group size.
  bool work_group_per_row = false;
  // The bytes of the private arrays each work-item declares (accumulators, values computed
  // once). A CPU driver runs a work-group's items on one thread's stack: the executor bounds
  // a work-group size it would leave to the driver by them (runtime/device_executor.cc).
  int64_t private_bytes = 0;
  // The operations its code performs, every work-item's together: each UserFun applied counts
  // its lanes, times the trips of the loops around it (CEmitter::ops). Where the kernel
  // computes a value again each time it reads it, this exceeds own_ops.
  OpCount ops;
  // The operations of the values it stores, each computed once (ir::StrictOps): the work of
  // its graph nodes, which a kernel that recomputes nothing does.
  ArithExpr own_ops = ArithExpr(0);
  // The bytes of the values it stores: with ir::kOpsPerStoredByte, the floor its memory traffic
  // sets under its work, below which operations beyond own_ops cost no time.
  ArithExpr stored_bytes = ArithExpr(0);
};

struct KernelSource {
  std::string source;  // a whole OpenCL C program
  // The kernels to run, in order; the last writes the cluster's outputs (but those of few
  // rows that a MapWrg/MapLcl kernel of their own, just before it, writes).
  std::vector<KernelStage> stages;
  // The types of the temporaries (tensors) the stages pass on.
  std::vector<ir::TypePtr> temporaries;
  // The size variables passed as `long` arguments after dfc_error, in order.
  std::vector<std::string> size_args;
  // Whether some stage can set dfc_error (a runtime index read); a kernel that cannot needs no
  // flag of its own and nothing read back.
  bool checks_indices = false;
};

struct KernelOptions {
  std::string name = "dfc_kernel";  // the outputs' kernel; stages before it add "_s<k>"
  // Lines for the header comment: the TF nodes the kernel computes ("MatMul (MatMul)").
  std::vector<std::string> nodes;
  // The device the code is for.
  rewrite::DeviceProfile profile = *rewrite::NamedProfile("cpu");
  // The rewrite steps that made the cluster's expression from its translation, for the header
  // comment (rewrite::Variant::Name(); empty or "default": none).
  std::string rules;
  // The work-group size of the MapGlb kernels (0: the driver's choice); -1: the profile's.
  // A tuning parameter (Lift's third stage).
  int work_group_size = -1;
};

// Generates the kernel for `lowered`, a cluster whose body is lowered IR for options.profile
// (rewrite::LowerForDevice; IR that rewrite::VerifyLowered refuses is refused with its error).
// An IR construct the generator does not handle yet is an error naming it.
absl::StatusOr<KernelSource> GenerateKernel(const ir::TranslatedCluster& lowered,
                                            const KernelOptions& options);

// The parameter names of kernel `name` in `source`, as Generate writes a kernel (one a line):
// "in<k>" (the cluster's parameter k), "tmp<k>" (temporary k), "out<k>" (output k),
// "dfc_error" and "size_<var>". Each stage takes only those it reads or writes, so a launch
// sets the arguments the source it runs declares.
absl::StatusOr<std::vector<std::string>> KernelParameters(absl::string_view source,
                                                          absl::string_view name);

// The C type a tensor of `dtype` is stored as in a buffer: "half" for float16 (read with
// vload_half), "uchar" for bool, otherwise the compute type.
std::string StorageType(DType dtype);

}  // namespace dfc::codegen

#endif  // DFC_CODEGEN_KERNEL_GEN_H_

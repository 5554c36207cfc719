// The functional IR, after Lift: expressions (Param, Literal, FunCall) and functions (Lambda,
// UserFun and the patterns). Every node is immutable and shared; a FunCall's type is inferred
// when it is made, so an ill-typed expression cannot exist. Sharing is meaningful: a value
// used twice is bound once with a let, `(λ(v) => ... v ... v ...) $ value`, never copied.
#ifndef DFC_IR_EXPR_H_
#define DFC_IR_EXPR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/check.h"
#include "graph/arith.h"
#include "ir/type.h"
#include "ir/value.h"

namespace dfc::ir {

struct Expr;
struct Param;
struct Fun;
using ExprPtr = std::shared_ptr<const Expr>;
using ParamPtr = std::shared_ptr<const Param>;
using FunPtr = std::shared_ptr<const Fun>;

// ---- Expressions -----------------------------------------------------------------------------

struct Expr {
  enum class Kind { kParam, kLiteral, kFunCall };
  const Kind kind;
  const TypePtr type;

 protected:
  Expr(Kind k, TypePtr t) : kind(k), type(std::move(t)) {}
};

// A named, typed placeholder bound by a Lambda or by the interpreter's environment. Identity
// is the object (two Params named x are different variables); `id` orders and prints them.
struct Param : Expr {
  const std::string name;
  const int64_t id;
  Param(std::string n, TypePtr t, int64_t i) : Expr(Kind::kParam, std::move(t)), name(n), id(i) {}
};

// A scalar constant.
struct Literal : Expr {
  const Scalar value;
  explicit Literal(Scalar v) : Expr(Kind::kLiteral, ScalarType(v.dtype)), value(v) {}
};

// f(args...): the type is f's result type for the argument types.
struct FunCall : Expr {
  const FunPtr f;
  const std::vector<ExprPtr> args;
  FunCall(FunPtr fn, std::vector<ExprPtr> a, TypePtr t)
      : Expr(Kind::kFunCall, std::move(t)), f(std::move(fn)), args(std::move(a)) {}
};

ParamPtr MakeParam(absl::string_view name, TypePtr type);
ExprPtr MakeLiteral(Scalar value);

// Applies f to args, inferring the type. A type error names the pattern and the types that
// disagree: `Zip(2): argument 1 has type [float]_10, expected an array of length 784`.
absl::StatusOr<ExprPtr> Call(FunPtr f, std::vector<ExprPtr> args);

// ---- Functions -------------------------------------------------------------------------------

struct Fun {
  enum class Kind {
    kLambda,
    kUserFun,
    // High-level patterns. In the type rules, [T]n is an array of n T.
    kMap,        // Map(f): [T]n -> [U]n, f: T -> U
    kReduce,     // Reduce(f): (A, [T]n) -> A, f: (A, T) -> A, a fold from the left; the
                 //   result is the accumulator itself, not a one-element array
    kZip,        // Zip(k): ([T1]n, ..., [Tk]n) -> [(T1, ..., Tk)]n
    kGet,        // Get(i): (T0, ..., Tk) -> Ti
    kTuple,      // Tuple(k): (T1, ..., Tk) -> (T1, ..., Tk)
    kSplit,      // Split(m): [T]n -> [[T]m]n/m, m must divide n
    kJoin,       // Join(): [[T]m]n -> [T]n*m
    kTranspose,  // Transpose(): [[T]m]n -> [[T]n]m
    kSlide,      // Slide(size, step): [T]n -> [[T]size](n-size+step)/step
    kPad,        // Pad(l, r, mode): [T]n -> [T]n+l+r; mode says what the new elements are
    kAsVector,   // AsVector(w): [S]n -> [S<w>]n/w for a scalar S
    kAsScalar,   // AsScalar(): [S<w>]n -> [S]n*w
    kId,         // Id(): T -> T
    // Index patterns, dfc's additions for data movement (all are views: no arithmetic).
    kReindex,    // Reindex(m, idx): [T]n -> [T]m, out[i] = in[idx(i)], idx an ArithExpr in i
    kConcat,     // Concat(k): ([T]n1, ..., [T]nk) -> [T]n1+...+nk
    kRepeat,     // Repeat(n): T -> [T]n, every element the argument
    kIota,       // Iota(n, S): () -> [S]n, the indices 0..n-1 as the integer dtype S
    kAt,         // At(): ([T]n, S) -> T, the element at a runtime integer index
    kSizeValue,  // SizeValue(n, S): () -> S, the value of a size expression (N*784) as the
                 //   integer dtype S: a count over a symbolic batch, a kernel argument
    // Lowered forms, for code generation: same type rules as Map / Reduce / Id.
    kMapGlb,       // MapGlb(d)(f): one element per global work-item along dimension d
    kMapWrg,       // MapWrg(d)(f): one element per work-group along dimension d
    kMapLcl,       // MapLcl(d)(f): one element per local work-item along dimension d
    kMapSeq,       // MapSeq(f): a sequential loop
    kReduceSeq,    // ReduceSeq(f): a sequential reduction loop
    kReduceLcl,    // ReduceLcl(d)(f): one fold split across the local work-items of dimension d
                   //   (item l folds elements l, l + L, ..., the partial results combined as a
                   //   tree in local memory); f a combiner (UserFun::combiner) on scalars
    kReduceLanes,  // ReduceLanes(f): (S, [S<w>]1) -> S, the lanes of one vector folded as a
                   //   tree of halves (w -> w/2 -> ... -> 1, f applied lane-wise), then with
                   //   the accumulator; f a combiner on S (a lowered form of Reduce)
    kToGlobal,     // ToGlobal(f): f, writing its result to global memory
    kToLocal,      // ToLocal(f): f, writing its result to local memory
    kToPrivate,    // ToPrivate(f): f, writing its result to private memory
    kTransposeW,   // TransposeW(): Transpose, written column by column: each row of its
                   //   argument (a column of the result) computed once and stored down the
                   //   result's rows (Lift's write-side transpose)
  };
  const Kind kind;

 protected:
  explicit Fun(Kind k) : kind(k) {}
};

// λ(params) => body. Bodies may refer to Params of enclosing Lambdas (closures).
struct Lambda : Fun {
  const std::vector<ParamPtr> params;
  const ExprPtr body;
  Lambda(std::vector<ParamPtr> p, ExprPtr b) : Fun(Kind::kLambda), params(std::move(p)), body(b) {}
};

// A scalar function written in OpenCL C, with a host twin that computes the same values for
// the interpreter. Applied to vectors of its scalar parameter types it works lane by lane.
struct UserFun : Fun {
  // Refuses an input only where the reference executor does (an integer division by zero).
  using HostFn = std::function<absl::StatusOr<Scalar>(std::span<const Scalar>)>;
  const std::string name;  // a C identifier, unique per body and types
  const std::vector<std::string> param_names;
  const std::string body;                  // OpenCL C statements, e.g. "return x + y;"
  const std::vector<TypePtr> param_types;  // scalars
  const TypePtr result_type;               // a scalar
  const HostFn host;
  // A Reduce step that may combine partial results in any order: f : (T, T) -> T, associative
  // and commutative (exactly for integers and bools, up to rounding for floating point), as
  // add, mul, max, min, and, or are. A Reduce by a combiner may be split across work-items.
  const bool combiner;
  // A dot product's floating-point multiply (x * y) or sum (acc + x): a sum of a product is
  // emitted as one fused multiply-add (OpenCL's fma, one rounding), which a CPU or GPU issues
  // at the rate of either alone. The C compiler cannot fuse them itself: each is a function
  // of its own, and OpenCL contracts a * b + c only within one expression.
  enum class Arithmetic { kOther, kMultiply, kAdd };
  const Arithmetic arithmetic;
  UserFun(std::string n, std::vector<std::string> pn, std::string b, std::vector<TypePtr> pt,
          TypePtr rt, HostFn h, bool c = false, Arithmetic a = Arithmetic::kOther)
      : Fun(Kind::kUserFun),
        name(std::move(n)),
        param_names(std::move(pn)),
        body(std::move(b)),
        param_types(std::move(pt)),
        result_type(std::move(rt)),
        host(std::move(h)),
        combiner(c),
        arithmetic(a) {}
};

// What Pad puts in the new elements.
enum class PadMode {
  kConstant,   // `value` (for an array element type, an array filled with it)
  kClamp,      // the nearest edge element
  kReflect,    // mirrored without repeating the edge: 2 1 | 0 1 2 | 1 0
  kSymmetric,  // mirrored with the edge repeated:    1 0 | 0 1 2 | 2 1
};

// A pattern (Fun::Kind from kMap on). One struct a kind, or a family of kinds with the same
// parameters, each immutable and made only by the factories below; the kinds without
// parameters (Join, Transpose, TransposeW, AsScalar, Id, At) are a plain Pattern. As<P>(f)
// is the checked way from a Fun to its struct.
struct Pattern : Fun {
  explicit Pattern(Kind k) : Fun(k) {}
};

// Map, MapGlb/MapWrg/MapLcl(dim), MapSeq, Reduce, ReduceSeq, ReduceLcl(dim), ReduceLanes,
// ToGlobal, ToLocal, ToPrivate: a pattern that applies a function.
struct FunPattern : Pattern {
  const FunPtr f;
  const int dim;  // MapGlb, MapWrg, MapLcl, ReduceLcl; 0 for the others
  FunPattern(Kind k, FunPtr fn, int d) : Pattern(k), f(std::move(fn)), dim(d) {}
  static bool Holds(Kind k);
};

// Zip(k), Tuple(k), Concat(k).
struct ArityPattern : Pattern {
  const int arity;
  ArityPattern(Kind k, int n) : Pattern(k), arity(n) {}
  static bool Holds(Kind k) { return k == Kind::kZip || k == Kind::kTuple || k == Kind::kConcat; }
};

struct GetPattern : Pattern {
  const int index;
  explicit GetPattern(int i) : Pattern(Kind::kGet), index(i) {}
  static bool Holds(Kind k) { return k == Kind::kGet; }
};

struct SplitPattern : Pattern {
  const ArithExpr chunk;
  explicit SplitPattern(ArithExpr m) : Pattern(Kind::kSplit), chunk(std::move(m)) {}
  static bool Holds(Kind k) { return k == Kind::kSplit; }
};

struct SlidePattern : Pattern {
  const ArithExpr size, step;
  SlidePattern(ArithExpr n, ArithExpr s)
      : Pattern(Kind::kSlide), size(std::move(n)), step(std::move(s)) {}
  static bool Holds(Kind k) { return k == Kind::kSlide; }
};

struct PadPattern : Pattern {
  const ArithExpr left, right;
  const PadMode mode;
  const Scalar value;  // with kConstant
  PadPattern(ArithExpr l, ArithExpr r, PadMode m, Scalar v)
      : Pattern(Kind::kPad), left(std::move(l)), right(std::move(r)), mode(m), value(v) {}
  static bool Holds(Kind k) { return k == Kind::kPad; }
};

struct AsVectorPattern : Pattern {
  const int width;
  explicit AsVectorPattern(int w) : Pattern(Kind::kAsVector), width(w) {}
  static bool Holds(Kind k) { return k == Kind::kAsVector; }
};

struct ReindexPattern : Pattern {
  const ArithExpr length;    // of the result
  const ArithExpr index_fn;  // an expression in IndexVar()
  ReindexPattern(ArithExpr n, ArithExpr idx)
      : Pattern(Kind::kReindex), length(std::move(n)), index_fn(std::move(idx)) {}
  static bool Holds(Kind k) { return k == Kind::kReindex; }
};

struct RepeatPattern : Pattern {
  const ArithExpr count;
  explicit RepeatPattern(ArithExpr n) : Pattern(Kind::kRepeat), count(std::move(n)) {}
  static bool Holds(Kind k) { return k == Kind::kRepeat; }
};

// Iota(count, dtype) and SizeValue(value, dtype): a size made a value of an integer dtype.
struct SizePattern : Pattern {
  const ArithExpr size;  // Iota's count, SizeValue's value
  const DType dtype;
  SizePattern(Kind k, ArithExpr n, DType d) : Pattern(k), size(std::move(n)), dtype(d) {}
  static bool Holds(Kind k) { return k == Kind::kIota || k == Kind::kSizeValue; }
};

// `f` as the pattern struct P, which must hold its kind (an internal error otherwise).
template <typename P>
const P& As(const Fun& f) {
  DFC_CHECK(P::Holds(f.kind) && "a pattern read as another kind's struct");
  return static_cast<const P&>(f);
}

// The variable `i` that Reindex index functions are written in.
ArithExpr IndexVar();

// Pattern factories.
FunPtr Map(FunPtr f);
FunPtr Reduce(FunPtr f);
FunPtr Zip(int arity);
FunPtr Get(int index);
FunPtr Tuple(int arity);
FunPtr Split(ArithExpr chunk);
FunPtr Join();
FunPtr Transpose();
FunPtr Slide(ArithExpr size, ArithExpr step);
FunPtr Pad(ArithExpr left, ArithExpr right, PadMode mode, Scalar value = {});
FunPtr AsVector(int width);
FunPtr AsScalar();
FunPtr Id();
FunPtr Reindex(ArithExpr length, ArithExpr index_fn);
FunPtr Concat(int arity);
FunPtr Repeat(ArithExpr count);
FunPtr Iota(ArithExpr count, DType dtype);
FunPtr At();
FunPtr SizeValue(ArithExpr value, DType dtype);
FunPtr MapGlb(int dim, FunPtr f);
FunPtr MapWrg(int dim, FunPtr f);
FunPtr MapLcl(int dim, FunPtr f);
FunPtr MapSeq(FunPtr f);
FunPtr ReduceSeq(FunPtr f);
FunPtr ReduceLcl(int dim, FunPtr f);
FunPtr ReduceLanes(FunPtr f);
FunPtr ToGlobal(FunPtr f);
FunPtr ToLocal(FunPtr f);
FunPtr ToPrivate(FunPtr f);
FunPtr TransposeW();

// The pattern `pattern` (Map(f), Reduce(f), To*(f)) applying `f` instead: the same kind and
// dimension (MapGlb(d) stays MapGlb(d)).
FunPtr WithFunction(const FunPattern& pattern, FunPtr f);

// The name a printer and an error use: "Map", "MapGlb(0)", "Split(784)", "λ", a UserFun's name.
std::string FunName(const Fun& f);
// True for Map, MapGlb, MapWrg, MapLcl, MapSeq (all share Map's type rule).
bool IsMap(Fun::Kind kind);
// True for Reduce, ReduceSeq, ReduceLcl, ReduceLanes.
bool IsReduce(Fun::Kind kind);

// ---- Building expressions --------------------------------------------------------------------

using BodyFn = std::function<absl::StatusOr<ExprPtr>(std::span<const ExprPtr> params)>;

// λ(p0, ..., pk) => body(params), with fresh Params of the given types and names.
absl::StatusOr<FunPtr> MakeLambda(std::vector<TypePtr> param_types, const BodyFn& body,
                                  std::vector<std::string> names = {});

// A UserFun: `name(p0, ...) { body }` with scalar parameter types and result.
FunPtr MakeUserFun(absl::string_view name, std::vector<std::string> param_names,
                   absl::string_view body, std::vector<DType> param_types, DType result,
                   UserFun::HostFn host,
                   UserFun::Arithmetic arithmetic = UserFun::Arithmetic::kOther);
// The same for a combiner (UserFun::combiner): two parameters of `dtype`, a result of `dtype`.
FunPtr MakeCombiner(absl::string_view name, absl::string_view body, DType dtype,
                    UserFun::HostFn host,
                    UserFun::Arithmetic arithmetic = UserFun::Arithmetic::kOther);

// Map(λ(x) => body(x)) $ array.
absl::StatusOr<ExprPtr> MapOver(const ExprPtr& array,
                                const std::function<absl::StatusOr<ExprPtr>(ExprPtr)>& body,
                                absl::string_view name = "x");
// Reduce(λ(acc, x) => body(acc, x)) $ (init, array).
absl::StatusOr<ExprPtr> ReduceOver(
    const ExprPtr& init, const ExprPtr& array,
    const std::function<absl::StatusOr<ExprPtr>(ExprPtr, ExprPtr)>& body);
// (λ(name) => body(name)) $ value: binds `value` once for every use in the body.
absl::StatusOr<ExprPtr> Let(const ExprPtr& value,
                            const std::function<absl::StatusOr<ExprPtr>(ExprPtr)>& body,
                            absl::string_view name = "v");

// ---- Structure -------------------------------------------------------------------------------

// Structural equality: same shapes, same functions, Params equal when they are the same
// variable or (inside Lambdas being compared) bound at the same position.
bool ExprEquals(const ExprPtr& a, const ExprPtr& b);
bool FunEquals(const FunPtr& a, const FunPtr& b);
// A hash consistent with ExprEquals (bound Params hash by position, free ones by identity).
size_t ExprHash(const ExprPtr& e);
size_t FunHash(const FunPtr& f);

}  // namespace dfc::ir

#endif  // DFC_IR_EXPR_H_

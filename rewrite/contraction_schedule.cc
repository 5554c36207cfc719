// The default schedule of a cluster's products (see contraction_schedule.h).
#include "rewrite/contraction_schedule.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "base/status.h"
#include "ir/analysis.h"
#include "ir/traverse.h"
#include "ir/work.h"
#include "rewrite/interchange.h"
#include "rewrite/lower_for_device.h"
#include "rewrite/lowering.h"
#include "rewrite/rule.h"
#include "rewrite/vectorize.h"
#include "rewrite/work_item.h"

namespace dfc::rewrite {
namespace {

// Whether `x` is memory as it lies: a parameter (a cluster's input, or a value a let stored), or
// a Join of such memory's rows (a filter's [1][1][C][M] read as [C][M]).
bool IsStored(const ir::ExprPtr& x) {
  if (x->kind == ir::Expr::Kind::kParam) return true;
  const ir::FunCall* join = CallOf(x, ir::Fun::Kind::kJoin);
  return join != nullptr && IsStored(join->args[0]);
}

bool IsStoredColumns(const ir::ExprPtr& x) {
  const ir::FunCall* transpose = CallOf(x, ir::Fun::Kind::kTranspose);
  return transpose != nullptr && IsStored(transpose->args[0]);
}

// The λ of `e` if `e` is a Map over a product's left rows, Map(λa => B) $ X, else nullptr.
const ir::Lambda* RowFunction(const ir::ExprPtr& e) {
  const ir::FunCall* rows = CallOf(e, ir::Fun::Kind::kMap);
  if (rows == nullptr) return nullptr;
  const ir::FunPtr& f = ir::As<ir::FunPattern>(*rows->f).f;
  return f->kind == ir::Fun::Kind::kLambda ? static_cast<const ir::Lambda*>(f.get()) : nullptr;
}

// The first expression of `body` (pre-order) for which `found` holds, or nullptr.
ir::ExprPtr FindIn(const ir::ExprPtr& body, const std::function<bool(const ir::ExprPtr&)>& found) {
  ir::ExprPtr first;
  ir::Walk(body, [&](const ir::ExprPtr& x) {
    if (first == nullptr && found(x)) first = x;
    return first == nullptr;
  });
  return first;
}

// The Map over the columns of a stored right matrix (Transpose of a parameter: a cluster's
// input, or a value a let stored) inside `e`, a Map over the left rows, or nullptr: `e` is then
// not a product.
ir::ExprPtr StoredColumnsWalk(const ir::ExprPtr& e) {
  const ir::Lambda* row = RowFunction(e);
  if (row == nullptr) return nullptr;
  return FindIn(row->body, [](const ir::ExprPtr& c) {
    const ir::FunCall* map = CallOf(c, ir::Fun::Kind::kMap);
    return map != nullptr && IsStoredColumns(map->args[0]);
  });
}

// The dot product inside `e`, a Map over the left rows, whose function walks the rows of a
// stored right matrix (a parameter it does not bind) and folds each: the Reduce of a product
// with a transposed right matrix (A·Bᵀ: each result the dot product of two stored rows), or
// nullptr.
ir::ExprPtr StoredRowsDot(const ir::ExprPtr& e) {
  const ir::Lambda* row = RowFunction(e);
  if (row == nullptr) return nullptr;
  ir::ExprPtr dot;
  FindIn(row->body, [&](const ir::ExprPtr& c) {
    const ir::FunCall* map = CallOf(c, ir::Fun::Kind::kMap);
    if (map == nullptr) return false;
    const ir::ExprPtr& matrix = map->args[0];
    if (matrix->kind != ir::Expr::Kind::kParam || absl::c_linear_search(row->params, matrix) ||
        !matrix->type->is_array() || !matrix->type->element->is_array()) {
      return false;
    }
    const ir::FunPtr& g = ir::As<ir::FunPattern>(*map->f).f;
    if (g->kind != ir::Fun::Kind::kLambda) return false;
    dot = FindIn(static_cast<const ir::Lambda&>(*g).body,
                 [](const ir::ExprPtr& x) { return ReduceCall(x) != nullptr; });
    return dot != nullptr;
  });
  return dot;
}

// How many rows a work-item's block takes: one vector accumulator a row in half the
// registers (16 rows of float16 on a CPU with AVX-512, 8 of float8 with AVX2), or at most
// kFewRowsBlock where the product's rows at the smallest batch (every size variable 1) would not
// fill that, since a block computes its padded rows too. Measured on the 784-256-10 MLP (float16
// columns, AVX-512): blocks of 16 rows took 0.052 ms at batch 1, 0.287 at 64 and 19.7 at 8192;
// blocks of 8, 0.036, 0.282 and 21.0; of 4, 0.027, 0.397 and 28.7.
constexpr int kFewRowsBlock = 8;
// The fewest columns a block of an unvectorised walk takes (BlockUnvectorised): fewer leave the
// device compiler's vector loop mostly remainder.
constexpr int64_t kMinColumnBlock = 16;
int BlockOfRows(int registers, const ir::ExprPtr& rows) {
  const int full = registers / 2;
  const ArithExpr& n = rows->type->length;
  SizeBindings smallest;
  for (const std::string& v : n.Variables()) smallest[v] = 1;
  const absl::StatusOr<int64_t> least = n.Evaluate(smallest);
  return least.ok() && *least >= full ? full : std::min(full, kFewRowsBlock);
}

// 2-D blocks of a product: rows by vectors of columns. A step of r rows by c vectors makes r·c
// FMAs from r + c loads (each row's element broadcast, each vector of columns loaded once), and
// holds r·c accumulators, c vectors and a broadcast in registers: the blocks that fit the
// device's vector registers, fewest loads an FMA first (then the larger). On the 2-core PoCL CPU
// device (AVX-512, float16 columns; kernels written by hand, best of 8 launches, four rounds,
// 2026-11-29) a 1024³ GEMM took 9.1–9.5 ms in blocks of 4 rows by 4 vectors, 10.6–11.5 by 8 by
// 2, 14–15 by 12 by 2, and 12–20 ms in blocks of 8 rows of one vector; with AVX2's 16 registers
// 4 by 4 spills, and 6 by 2 (OpenBLAS's Haswell block) or 4 by 3 fit.
struct Block2D {
  int rows;
  int column_vectors;
};
std::vector<Block2D> RegisterBlocks(int registers) {
  std::vector<Block2D> blocks;
  for (int c = 2; c <= 4; ++c) {
    for (int r = 2; r <= 8; ++r) {
      if (r * c + c + 1 <= registers) blocks.push_back({r, c});
    }
  }
  std::sort(blocks.begin(), blocks.end(), [](const Block2D& a, const Block2D& b) {
    const int a_cost = (a.rows + a.column_vectors) * b.rows * b.column_vectors;
    const int b_cost = (b.rows + b.column_vectors) * a.rows * a.column_vectors;
    if (a_cost != b_cost) return a_cost < b_cost;
    return a.rows * a.column_vectors > b.rows * b.column_vectors;
  });
  return blocks;
}

// Whether `e` computes (a UserFun or a Reduce anywhere in it, but in a let's value, which is
// stored once and read): a convolution's output, or a batch norm of a stored one. The blocked
// fold walks the rows' elements step by step, down the block's rows: rows it reads as a view
// would be computed again for every step.
bool Computes(const ir::ExprPtr& e) {
  bool computes = false;
  absl::flat_hash_set<const ir::Expr*> stored;
  ir::Walk(e, [&](const ir::ExprPtr& x) {
    if (stored.contains(x.get())) return false;
    if (const ir::FunCall* let = CallOf(x, ir::Fun::Kind::kLambda)) {
      for (const ir::ExprPtr& arg : let->args) stored.insert(arg.get());
    }
    computes = computes || ReduceCall(x) != nullptr || CallOf(x, ir::Fun::Kind::kUserFun);
    return !computes;
  });
  return computes;
}

// `rule` applied at the root of `e`, or nullopt where it declines.
absl::StatusOr<std::optional<ir::ExprPtr>> AtRoot(const Rule& rule, const ir::ExprPtr& e) {
  DFC_ASSIGN_OR_RETURN(auto applied, ApplyAtRoot(rule, e));
  if (std::holds_alternative<Decline>(applied)) return std::nullopt;
  return std::get<ir::ExprPtr>(std::move(applied));
}

// `e` with `rule` applied at its subexpression `at`, or nullopt where it declines there.
absl::StatusOr<std::optional<ir::ExprPtr>> AtPlace(const Rule& rule, const ir::ExprPtr& e,
                                                   const ir::ExprPtr& at) {
  DFC_ASSIGN_OR_RETURN(std::optional<ir::ExprPtr> rewritten, AtRoot(rule, at));
  if (!rewritten) return std::nullopt;
  return ir::ReplaceWhere(
      e, [&](const ir::ExprPtr& x) { return x.get() == at.get(); }, *rewritten);
}

// The parameters `e` reads that no λ inside it binds.
absl::flat_hash_set<const ir::Param*> FreeParams(const ir::ExprPtr& e) {
  class Finder : public ir::ScopedExprVisitor {
   public:
    void VisitParam(const ir::Param& p) override {
      if (!absl::c_linear_search(bound(), &p)) free.insert(&p);
    }
    absl::flat_hash_set<const ir::Param*> free;
  };
  Finder finder;
  finder.Visit(e);
  return std::move(finder.free);
}

// Blocks the products evaluated once per kernel (not those inside a Map's function, which a
// work-item computes for one element). A blocked product computes its rows r at a time, so a
// kernel must store it by its rows: one that only a view of it (a Transpose) or the rows of an
// elementwise Map read is bound by a let, a kernel of its own (toGlobal), unless it is already
// a value a kernel stores.
class ProductBlocker : public TopLevelMutator {
 public:
  ProductBlocker(int widest, int registers, bool block_rows,
                 absl::flat_hash_set<const ir::Expr*> stored,
                 absl::flat_hash_set<const ir::Param*> outer)
      : widest_(widest),
        registers_(registers),
        block_rows_(block_rows),
        stored_(std::move(stored)),
        outer_(std::move(outer)) {}

  const std::vector<std::string>& steps() const { return steps_; }

  // `body` mutated, with the products that read only the cluster's parameters bound together by
  // one let at its top: one kernel stores them all (an LSTM cell's four gates, a launch where
  // each would take its own).
  absl::StatusOr<ir::ExprPtr> Schedule(const ir::ExprPtr& body) {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr scheduled, Mutate(body));
    if (hoisted_.empty()) return scheduled;
    std::vector<ir::ParamPtr> params;
    std::vector<ir::ExprPtr> values;
    for (auto& [p, value] : hoisted_) {
      params.push_back(p);
      values.push_back(value);
    }
    return ir::Call(std::make_shared<ir::Lambda>(std::move(params), std::move(scheduled)),
                    std::move(values));
  }

 protected:
  absl::StatusOr<ir::ExprPtr> MutateCall(const ir::ExprPtr& e, const ir::FunCall& call) override {
    // Its operands first: a layer's product reads the one before it.
    DFC_ASSIGN_OR_RETURN(const ir::ExprPtr inner, TopLevelMutator::MutateCall(e, call));
    if (const ir::ExprPtr columns = StoredColumnsWalk(inner)) {
      return Block(inner, columns, stored_.contains(e.get()));
    }
    if (const ir::ExprPtr dot = StoredRowsDot(inner)) {
      return BlockDots(inner, dot, stored_.contains(e.get()));
    }
    return inner;
  }

 private:
  // The product `e` (a Map over left rows whose function walks `columns`) blocked, and bound
  // by a let unless a kernel stores it already (`stored`); `e` itself where no width applies.
  absl::StatusOr<ir::ExprPtr> Block(const ir::ExprPtr& e, const ir::ExprPtr& columns, bool stored) {
    for (int width : {16, 8, 4}) {
      if (width > widest_) continue;
      const Rule columns_rule = VectorizeColumns(width);
      DFC_ASSIGN_OR_RETURN(std::optional<ir::ExprPtr> vectorised, AtRoot(columns_rule, columns));
      if (!vectorised) continue;
      steps_.push_back(columns_rule.name);
      // A block reads its left rows element by element as its fold steps: rows that compute
      // are stored first (a let) where computing them where they are read costs more
      // operations (ir::GeneratedOps, the generated code's) than a store and a load of them.
      const ir::FunCall& map = static_cast<const ir::FunCall&>(*e);
      const ir::ExprPtr& left = map.args[0];
      if (!Computes(left)) {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr rows, BlockedRows(e, columns, *vectorised));
        return Stored(rows, stored, true);
      }
      const size_t steps = steps_.size();
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr fused, BlockedRows(e, columns, *vectorised));
      const std::vector<std::string> fused_steps(steps_.begin() + steps, steps_.end());
      steps_.resize(steps);
      const ir::ParamPtr rows_param = ir::MakeParam("left", left->type);
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr product, ir::Call(map.f, {rows_param}));
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr over_stored, BlockedRows(product, columns, *vectorised));
      if (!RowsWorthStoring(fused, over_stored, left)) {
        steps_.resize(steps);
        steps_.insert(steps_.end(), fused_steps.begin(), fused_steps.end());
        return Stored(fused, stored, true);
      }
      DFC_ASSIGN_OR_RETURN(ir::ExprPtr kept, Stored(over_stored, stored, false));
      return ir::Call(std::make_shared<ir::Lambda>(std::vector{rows_param}, kept), {left});
    }
    return BlockUnvectorised(e, columns);
  }

  // The product `e` whose columns no vector width divides (a dense layer of 1001 classes): its
  // walk in blocks of the most columns that divide them and fit a work-item's accumulators
  // (blockColumns), so that each step of a fold reads a row of the block's columns in order, a
  // loop the device compiler vectorises, where column by column it strides across the matrix.
  absl::StatusOr<ir::ExprPtr> BlockUnvectorised(const ir::ExprPtr& e, const ir::ExprPtr& columns) {
    const std::optional<int64_t> n = columns->type->length.AsConstant();
    if (!n) return e;
    for (int64_t c = std::min<int64_t>(*n / 2, kMaxAccumulatorScalars); c >= kMinColumnBlock; --c) {
      if (*n % c != 0) continue;
      const Rule rule = BlockColumns(static_cast<int>(c));
      DFC_ASSIGN_OR_RETURN(std::optional<ir::ExprPtr> blocked, AtRoot(rule, columns));
      if (!blocked) return e;
      steps_.push_back(rule.name);
      return ir::ReplaceWhere(
          e, [&](const ir::ExprPtr& x) { return x.get() == columns.get(); }, *blocked);
    }
    // Too few columns for two such blocks (a pose network's 19 heatmaps): all of them fold
    // together, one block.
    if (*n < kMinColumnBlock || *n > kMaxAccumulatorScalars) return e;
    const Rule rule = MapReduceInterchange();
    DFC_ASSIGN_OR_RETURN(std::optional<ir::ExprPtr> folded, AtRoot(rule, columns));
    if (!folded) return e;
    steps_.push_back(rule.name);
    return ir::ReplaceWhere(
        e, [&](const ir::ExprPtr& x) { return x.get() == columns.get(); }, *folded);
  }

  // Whether the left rows `left` are worth a kernel of their own: the blocked product over
  // them inline (`fused`) costs more operations than over them stored (`over_stored`), plus
  // computing them once and moving their bytes out and back (ir::kOpsPerStoredByte).
  static bool RowsWorthStoring(const ir::ExprPtr& fused, const ir::ExprPtr& over_stored,
                               const ir::ExprPtr& left) {
    return ir::GeneratedOps(fused) >
           ir::GeneratedOps(over_stored) + ir::GeneratedOps(left) + ir::StoreOps(left->type);
  }

  // The product `e` whose function walks the rows of a stored matrix, each result a dot
  // product of two stored rows (`dot`): each dot product folded in vectors (vectorizeReduce(v),
  // lane l summing elements l, l + v, ...: a reassociation, as every vectorised BLAS's), then
  // kDotBlockRows left rows at a time, each vector of a right row read once for all of them;
  // stored as Blocked stores. `e` itself where no width applies. On the 2-core PoCL CPU device,
  // deep_mnist's dy·Wᵀ ([64,1024] by [3136,1024]ᵀ, `dfc bench --variants`) took 65.7 ms by the
  // default strategy, 20.0 vectorised, 5.3–5.4 in blocks of 2 or 4 rows, 10.9 in blocks of 16.
  absl::StatusOr<ir::ExprPtr> BlockDots(const ir::ExprPtr& e, const ir::ExprPtr& dot, bool stored) {
    constexpr int kDotBlockRows = 4;
    for (int width : {16, 8, 4}) {
      if (width > widest_) continue;
      const Rule reduce_rule = VectorizeReduce(width);
      DFC_ASSIGN_OR_RETURN(std::optional<ir::ExprPtr> vectorised, AtPlace(reduce_rule, e, dot));
      if (!vectorised) continue;
      ir::ExprPtr rows = *vectorised;
      steps_.push_back(reduce_rule.name);
      if (block_rows_) {
        const Rule rows_rule = BlockRows(kDotBlockRows);
        DFC_ASSIGN_OR_RETURN(std::optional<ir::ExprPtr> blocked, AtRoot(rows_rule, rows));
        if (blocked) {
          steps_.push_back(rows_rule.name);
          rows = *blocked;
        }
      }
      return Stored(rows, stored, true);
    }
    return e;
  }

  // `product` with its walk `columns` replaced by `vectorised` and its rows blocked.
  absl::StatusOr<ir::ExprPtr> BlockedRows(const ir::ExprPtr& product, const ir::ExprPtr& columns,
                                          const ir::ExprPtr& vectorised) {
    DFC_ASSIGN_OR_RETURN(
        ir::ExprPtr rows,
        ir::ReplaceWhere(
            product, [&](const ir::ExprPtr& x) { return x.get() == columns.get(); }, vectorised));
    if (block_rows_) {
      DFC_ASSIGN_OR_RETURN(std::optional<ir::ExprPtr> blocked, BlockBoth(rows, vectorised));
      if (!blocked) {
        const Rule rows_rule = BlockRows(BlockOfRows(registers_, product));
        DFC_ASSIGN_OR_RETURN(blocked, AtRoot(rows_rule, rows));
        if (blocked) steps_.push_back(rows_rule.name);
      }
      if (blocked) rows = *blocked;
    }
    return rows;
  }

  // `rows`, a blocked product: as it is where a kernel stores it already (`stored`), else bound
  // by a let, the one at the top of the body where it reads only the cluster's parameters and
  // may (`hoistable`).
  absl::StatusOr<ir::ExprPtr> Stored(const ir::ExprPtr& rows, bool stored, bool hoistable) {
    if (stored) return rows;
    const absl::flat_hash_set<const ir::Param*> reads = FreeParams(rows);
    if (hoistable &&
        absl::c_all_of(reads, [&](const ir::Param* q) { return outer_.contains(q); })) {
      const ir::ParamPtr p = ir::MakeParam("product", rows->type);
      hoisted_.emplace_back(p, rows);
      return p;
    }
    return ir::Let(
        rows, [](ir::ExprPtr p) { return p; }, "product");
  }

  // `rows` (a product whose walk over columns is `vectorised`) in the first of RegisterBlocks
  // both rules take, or nullopt where they take none.
  absl::StatusOr<std::optional<ir::ExprPtr>> BlockBoth(const ir::ExprPtr& rows,
                                                       const ir::ExprPtr& vectorised) {
    // vectorised is AsScalar $ Map(λv => F(v)) $ V, V the vectors of columns, which blockRows
    // keeps as the array of the block's walk.
    const ir::FunCall* walk =
        CallOf(static_cast<const ir::FunCall&>(*vectorised).args[0], ir::Fun::Kind::kMap);
    if (walk == nullptr) return std::nullopt;
    const ir::Expr* vectors = walk->args[0].get();
    const ir::ExprPtr column_walk = FindIn(rows, [&](const ir::ExprPtr& x) {
      const ir::FunCall* map = CallOf(x, ir::Fun::Kind::kMap);
      return map != nullptr && map->args[0].get() == vectors;
    });
    if (column_walk == nullptr) return std::nullopt;
    for (const Block2D& block : RegisterBlocks(registers_)) {
      // The walk over vectors of columns first, in blocks of c vectors folding together; then
      // the rows, whose blocks share each block of c vectors: a step of the blocked fold reads
      // each row's element once for its c vectors.
      const Rule columns_rule = BlockColumns(block.column_vectors);
      DFC_ASSIGN_OR_RETURN(std::optional<ir::ExprPtr> by_groups,
                           AtPlace(columns_rule, rows, column_walk));
      if (!by_groups) continue;
      const Rule rows_rule = BlockRows(block.rows);
      DFC_ASSIGN_OR_RETURN(std::optional<ir::ExprPtr> both, AtRoot(rows_rule, *by_groups));
      if (!both) continue;
      steps_.push_back(columns_rule.name);
      steps_.push_back(rows_rule.name);
      return *both;
    }
    return std::nullopt;
  }

  int widest_;
  int registers_;
  bool block_rows_;
  absl::flat_hash_set<const ir::Expr*> stored_;
  absl::flat_hash_set<const ir::Param*> outer_;  // the cluster's parameters
  std::vector<std::string> steps_;
  std::vector<std::pair<ir::ParamPtr, ir::ExprPtr>> hoisted_;
};

}  // namespace

absl::StatusOr<ContractionSchedule> ScheduleContractions(const ir::ExprPtr& body,
                                                         const DeviceProfile& profile) {
  ContractionSchedule schedule{.body = body};
  if (profile.is_gpu) return schedule;
  const int widest = std::max(4, profile.preferred_vector_width);
  // Blocked rows where the lowering takes them, else vectorised columns alone.
  for (bool block_rows : {true, false}) {
    ProductBlocker blocker(widest, profile.vector_registers, block_rows, StoredValues(body),
                           FreeParams(body));
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr scheduled, blocker.Schedule(body));
    if (blocker.steps().empty()) return schedule;
    if (!LowerForDevice(scheduled, profile).ok()) continue;
    schedule.body = std::move(scheduled);
    schedule.steps = blocker.steps();
    return schedule;
  }
  return schedule;
}

}  // namespace dfc::rewrite

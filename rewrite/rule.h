// Rewrite rules, as Lift's Rule(desc, partial function): each is a named law with a match that
// looks at the root of an expression and either binds what its rewrite needs (returning the
// rewrite, a closure over the bound parts) or declines with the reason, as MLIR's
// notifyMatchFailure does. The driver applies rules and checks that every rewrite kept the
// expression's type: a rule that changes a type is a bug in the rule, reported as Internal.
//
// Families live one to a file (interchange.h, vectorize.h, data_layout.h, lowering.h), each with
// its test.
#ifndef DFC_REWRITE_RULE_H_
#define DFC_REWRITE_RULE_H_

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/analysis.h"
#include "ir/expr.h"

namespace dfc::rewrite {

// Why a rule does not apply at an expression ("the Map's input is not a Map").
struct Decline {
  std::string reason;
};

// A rule's rewrite of the expression it matched.
using Rewrite = std::function<absl::StatusOr<ir::ExprPtr>()>;
using Match = std::variant<Rewrite, Decline>;

struct Rule {
  std::string name;  // "storeTransposed"
  std::string law;   // "body[Transpose $ w] => (λ(wt) => body[wt]) $ (Transpose $ w)"
  std::function<Match(const ir::ExprPtr& e)> match;
};

// The rewrite of `e` at its root, or the rule's reason to decline.
absl::StatusOr<std::variant<ir::ExprPtr, Decline>> ApplyAtRoot(const Rule& rule,
                                                               const ir::ExprPtr& e);

// Rewrites the first place in `e` where `rule` matches, searching outermost first: the
// expression, its arguments, then the bodies of the functions it applies (a Map's function, a
// let's body). Returns nullptr if the rule matches nowhere.
absl::StatusOr<ir::ExprPtr> ApplyOnce(const Rule& rule, const ir::ExprPtr& e);

// Applies `rule` until it matches nowhere, at most `limit` times; `count` (if given) is how
// many rewrites were made. Hitting the limit is an error naming the rule (a rule that undoes
// itself, or grows the expression without end).
absl::StatusOr<ir::ExprPtr> ApplyEverywhere(const Rule& rule, const ir::ExprPtr& e,
                                            int* count = nullptr, int limit = 1000);

// Every single rewrite of `e` by `rule`: one result for each place where it matches, in the
// order ApplyOnce searches, at most `limit` of them. What an explorer branches on.
absl::StatusOr<std::vector<ir::ExprPtr>> ApplyAtEach(const Rule& rule, const ir::ExprPtr& e,
                                                     int limit = 64);

// Declines unless `init` is a literal that `combiner` leaves unchanged when combined with itself
// (0 for a sum, -inf for a max): then a fold may be split into parts that each start at init.
std::optional<Decline> CheckIdempotentInit(const ir::Fun& combiner, const ir::ExprPtr& init);

// Blocks of `rows` rows: Split(rows) $ x, where x's length is no known multiple of `rows` first
// padded with its last row (Pad(0, ⌈n/rows⌉·rows - n, clamp)); and the inverse's last step,
// the first n rows of the blocks' rows joined (Reindex(n, i) $ joined, or `joined` itself
// where nothing was padded).
absl::StatusOr<ir::ExprPtr> SplitIntoBlocks(const ir::ExprPtr& x, int rows);
absl::StatusOr<ir::ExprPtr> FirstRows(const ir::ExprPtr& joined, const ArithExpr& n);

// Pattern helpers for matches: `e` as a call of a function of `kind`, or nullptr.
const ir::FunCall* CallOf(const ir::ExprPtr& e, ir::Fun::Kind kind);
// The same for any Map kind (Map, MapGlb, MapWrg, MapLcl, MapSeq) and any Reduce kind.
const ir::FunCall* MapCall(const ir::ExprPtr& e);
const ir::FunCall* ReduceCall(const ir::ExprPtr& e);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_RULE_H_

// Pieces shared by the work counters (work.cc, work_generated.cc): LazyCost, the cost of a value
// as the code generator builds it, and its algebra. Private to those two files.
#ifndef DFC_IR_WORK_INTERNAL_H_
#define DFC_IR_WORK_INTERNAL_H_

#include <functional>
#include <vector>

#include "ir/work.h"

namespace dfc::ir {

struct LazyCost {
  enum class Shape { kScalar, kTuple, kArray };
  Shape shape = Shape::kScalar;
  double make = 0;   // paid once, when the value is made (an eager fold, a private array)
  double force = 0;  // scalars and vectors: paid each time the value is forced
  int lanes = 1;     // scalars and vectors: a vector's width
  std::vector<LazyCostPtr> fields;  // tuples (their fields' `make` is the tuple's)
  double length = 0;                // arrays
  LazyCostPtr element;              // arrays: element(i), its `make` paid per element obtained
  LazyCostPtr rows;                 // arrays joined from rows: the rows a fold walks
  LazyCostPtr written;              // arrays a writer stores otherwise (TransposeW, AsScalar)
};

namespace work_internal {

using Cost = LazyCostPtr;

// A LazyCost held by pointer.
Cost Make(LazyCost c);

// `c` with `extra` more paid when it is made.
Cost Plus(const Cost& c, double extra);

// `c` with nothing paid when it is made (made already, by whoever holds it).
Cost Made(const Cost& c);

// What storing the value costs: made, and each of its scalars forced once.
double Total(const LazyCost& c);

// The cost of obtaining each element of `array` once, as a fold walks it; `each` is what one
// element costs once obtained.
double Walk(const LazyCost& array, const std::function<double(const Cost&)>& each);

}  // namespace work_internal
}  // namespace dfc::ir

#endif  // DFC_IR_WORK_INTERNAL_H_

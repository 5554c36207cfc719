// Prints IR in Lift's notation: `Map(λ(x) => neg(x)) o Transpose() $ A`. Calls of one argument
// chain with `o`; lets print as `(λ(v) => body) $ value`; UserFuns print as calls.
#ifndef DFC_IR_PRINTER_H_
#define DFC_IR_PRINTER_H_

#include <string>

#include "ir/expr.h"

namespace dfc::ir {

std::string ToString(const ExprPtr& expr);
std::string ToString(const FunPtr& fun);

}  // namespace dfc::ir

#endif  // DFC_IR_PRINTER_H_

// OPS.md's "tail" table: the rest of what TensorFlow's test cases use. OPS.md lists its ops
// without families; the families here group them by what they compute, and OPS.md's rule
// places them: elementwise, gather/scatter, segment and bitwise ops on the device, dense
// linear algebra and data-dependent selections on the host.
#include <vector>

#include "graph/ops_internal.h"

namespace dfc {
namespace {

using K = AttrKind;

// Bitcast, copies, checks and bitwise ops.
void AddBitsFamilies(std::vector<OpDef>& t) { (void)t; }

// Scatters and gathers by index, segment reductions, partitions.
void AddIndexFamilies(std::vector<OpDef>& t) { (void)t; }

// Matrix diagonals and bands, Einsum, Cross, and dense linear algebra.
void AddMatrixFamilies(std::vector<OpDef>& t) { (void)t; }

// Special functions, elementwise math, quantisation, sorting and data-dependent selections.
void AddMathFamilies(std::vector<OpDef>& t) { (void)t; }

// Image ops, random sampling and the fused RNN cells.
void AddImageRandomRnnFamilies(std::vector<OpDef>& t) { (void)t; }

}  // namespace

void AddTailTable(std::vector<OpDef>& t) {
  AddBitsFamilies(t);
  AddIndexFamilies(t);
  AddMatrixFamilies(t);
  AddMathFamilies(t);
  AddImageRandomRnnFamilies(t);
}

}  // namespace dfc

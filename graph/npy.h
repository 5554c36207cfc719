// NumPy .npy files: the format TensorFlow's conformance cases store inputs and expected
// outputs in, and the one dfc writes results in so that NumPy can read them back.
//
// Reading accepts format versions 1.0, 2.0 and 3.0, the dtypes dfc computes with in either
// byte order ('<f4', '>i8', '|b1', '?', '=f2'...) and Fortran-ordered arrays (converted to
// C order). Everything else, and every malformed or truncated file, is an error that names
// the file; sizes are checked before anything is allocated.
//
// Writing produces exactly what numpy.save writes for the same array: version 1.0 (2.0 when
// the header needs more than 65535 bytes), a little-endian descr, the header padded so that
// the data starts at a multiple of 64 bytes.
#ifndef DFC_GRAPH_NPY_H_
#define DFC_GRAPH_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"

namespace dfc {

// Reads the .npy file at `path`. The data section is read straight into the tensor.
absl::StatusOr<Tensor> ReadNpy(const std::string& path);

// Parses the bytes of a whole .npy file; `source_name` (a path, usually) starts every error.
absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes, absl::string_view source_name);

// Writes `tensor` to `path` as numpy.save would. String tensors are an error; bfloat16 ones
// are written as numpy.save writes ml_dtypes' bfloat16, 2-byte voids ('<V2'), which reading
// does not take back.
absl::Status WriteNpy(const Tensor& tensor, const std::string& path);

// The bytes numpy.save writes for `tensor`. The tensor's dtype must be one dfc computes with
// (IsSupported) or bfloat16: WriteNpy checks that, this function treats a string tensor as a
// dfc bug.
std::string SerializeNpy(const Tensor& tensor);

}  // namespace dfc

#endif  // DFC_GRAPH_NPY_H_

// Pieces shared by the .npy reader (npy.cc) and writer (npy_write.cc): the magic, the host's
// byte order, I/O errors and byte swapping. Private to those two files.
#ifndef DFC_GRAPH_NPY_INTERNAL_H_
#define DFC_GRAPH_NPY_INTERNAL_H_

#include <bit>
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace dfc::npy_internal {

// The bytes every .npy file starts with.
inline constexpr absl::string_view kMagic("\x93NUMPY", 6);

// Whether this host's byte order is little-endian, the order dfc writes.
inline constexpr bool kLittleEndianHost = std::endian::native == std::endian::little;

// An I/O failure; iostreams do not always leave errno set, so a failure with none is EIO.
absl::Status IoError(int error_number, absl::string_view what);

// Reverses the bytes of each of `num_elements` elements of `element_size` bytes at `data`.
void ByteSwapElements(unsigned char* data, size_t element_size, int64_t num_elements);

}  // namespace dfc::npy_internal

#endif  // DFC_GRAPH_NPY_INTERNAL_H_

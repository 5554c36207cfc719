// Pieces shared by the image reference kernels (image.cc, image_color.cc): the checks of a scalar
// input and of a colour image. Private to those two files.
#ifndef DFC_RUNTIME_REFERENCE_IMAGE_INTERNAL_H_
#define DFC_RUNTIME_REFERENCE_IMAGE_INTERNAL_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/reference/kernel.h"

namespace dfc::reference::image {

// Fails unless input `i` is a scalar; `what` names it.
absl::Status CheckScalar(const KernelContext& ctx, int i, absl::string_view what);

// Fails unless input 0 is a float image whose last dimension holds `channels` channels.
absl::Status CheckColorImage(const KernelContext& ctx, int min_rank, int channels);

}  // namespace dfc::reference::image

#endif  // DFC_RUNTIME_REFERENCE_IMAGE_INTERNAL_H_

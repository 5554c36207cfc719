// Window sizes and attributes as TensorFlow's GetWindowedOutputSizeVerbose and its
// convolution and pooling shape functions define them.
#include "graph/op_semantics/window.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dfc {

absl::StatusOr<WindowSize> ComputeWindow(const WindowDim& dim, Padding padding) {
  if (dim.input < 0 || dim.window <= 0 || dim.stride <= 0 || dim.dilation <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a window needs a non-negative input and positive window, stride and dilation, got input ",
        dim.input, ", window ", dim.window, ", stride ", dim.stride, ", dilation ", dim.dilation));
  }
  const int64_t effective = (dim.window - 1) * dim.dilation + 1;
  WindowSize size;
  switch (padding) {
    case Padding::kValid:
      if (dim.input < effective) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the window (", dim.window, " with dilation ", dim.dilation, ", spanning ", effective,
            ") is larger than the input (", dim.input, ") under VALID padding"));
      }
      size.output = (dim.input - effective + dim.stride) / dim.stride;
      break;
    case Padding::kSame: {
      size.output = (dim.input + dim.stride - 1) / dim.stride;
      const int64_t total =
          std::max<int64_t>((size.output - 1) * dim.stride + effective - dim.input, 0);
      size.pad_before = total / 2;
      size.pad_after = total - size.pad_before;
      break;
    }
    case Padding::kExplicit: {
      if (dim.explicit_before < 0 || dim.explicit_after < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("explicit paddings must be non-negative, got ", dim.explicit_before,
                         " and ", dim.explicit_after));
      }
      const int64_t padded = dim.input + dim.explicit_before + dim.explicit_after;
      if (padded < effective) {
        return absl::InvalidArgumentError(
            absl::StrCat("the window (", dim.window, " with dilation ", dim.dilation, ", spanning ",
                         effective, ") is larger than the explicitly padded input (", padded, ")"));
      }
      size.output = (padded - effective + dim.stride) / dim.stride;
      size.pad_before = dim.explicit_before;
      size.pad_after = dim.explicit_after;
      break;
    }
  }
  return size;
}

WindowDim WindowAttrs::Dim(int i, int64_t input, int64_t window) const {
  const int d = spatial_dim(i);
  WindowDim dim{.input = input, .window = window, .stride = strides[d], .dilation = dilations[d]};
  if (padding == Padding::kExplicit) {
    dim.explicit_before = explicit_paddings[2 * d];
    dim.explicit_after = explicit_paddings[2 * d + 1];
  }
  return dim;
}

std::string DataFormatName(DataFormat format, int spatial_rank) {
  const std::string spatial = spatial_rank == 3 ? "DHW" : spatial_rank == 2 ? "HW" : "W";
  return format == DataFormat::kChannelsLast ? absl::StrCat("N", spatial, "C")
                                             : absl::StrCat("NC", spatial);
}

namespace {

// A list attribute of rank + 2 positive entries that are 1 on batch and channels; `fallback`
// (all ones) when absent and `required` is false.
absl::StatusOr<std::vector<int64_t>> ReadPerDimension(const Node& node, absl::string_view key,
                                                      const WindowAttrs& attrs, bool required) {
  const int n = attrs.spatial_rank() + 2;
  if (!node.attrs.contains(key)) {
    if (required) return node.Error(absl::StrCat("missing attribute \"", key, "\""));
    return std::vector<int64_t>(n, 1);
  }
  absl::StatusOr<AttrList> list = node.GetList(key);
  if (!list.ok()) return list.status();
  const std::vector<int64_t>& v = list->i;
  const auto text = [&] { return absl::StrCat("[", absl::StrJoin(v, ","), "]"); };
  if (static_cast<int>(v.size()) != n) {
    return node.Error(absl::StrCat("attribute \"", key, "\" is ", text(), ", expected ", n,
                                   " entries (one per dimension of ",
                                   DataFormatName(attrs.format, attrs.spatial_rank()), ")"));
  }
  for (int64_t x : v) {
    if (x <= 0) {
      return node.Error(
          absl::StrCat("attribute \"", key, "\" is ", text(), ", expected positive entries"));
    }
  }
  if (v[attrs.batch_dim()] != 1 || v[attrs.channel_dim()] != 1) {
    return node.Error(absl::StrCat(
        "attribute \"", key, "\" is ", text(), ": windows over the batch or channel dimension of ",
        DataFormatName(attrs.format, attrs.spatial_rank()),
        " are not supported (TensorFlow's CPU kernels refuse them too)"));
  }
  return v;
}

}  // namespace

absl::StatusOr<WindowAttrs> ReadWindowAttrs(const Node& node, const WindowOpKind& kind) {
  WindowAttrs attrs;
  const std::string last = DataFormatName(DataFormat::kChannelsLast, kind.spatial_rank);
  const std::string first = DataFormatName(DataFormat::kChannelsFirst, kind.spatial_rank);
  absl::StatusOr<std::string> format = node.GetString("data_format", last);
  if (!format.ok()) return format.status();
  if (*format == last) {
    attrs.format = DataFormat::kChannelsLast;
  } else if (*format == first && kind.allows_channels_first) {
    attrs.format = DataFormat::kChannelsFirst;
  } else {
    return node.Error(absl::StrCat("data_format \"", *format, "\" is not supported, expected \"",
                                   last, "\"", kind.allows_channels_first ? " or \"" : "",
                                   kind.allows_channels_first ? first + "\"" : ""));
  }

  // Sized by spatial_rank(), which reads strides' length: give it the right length first.
  attrs.strides.assign(kind.spatial_rank + 2, 1);
  absl::StatusOr<std::vector<int64_t>> strides = ReadPerDimension(node, "strides", attrs, true);
  if (!strides.ok()) return strides.status();
  attrs.strides = *std::move(strides);
  absl::StatusOr<std::vector<int64_t>> dilations =
      ReadPerDimension(node, kind.dilations_attr, attrs, /*required=*/false);
  if (!dilations.ok()) return dilations.status();
  if (!kind.has_dilations && node.attrs.contains(kind.dilations_attr)) {
    return node.Error(absl::StrCat("this op has no \"", kind.dilations_attr, "\" attribute"));
  }
  attrs.dilations = *std::move(dilations);
  if (kind.has_ksize) {
    absl::StatusOr<std::vector<int64_t>> ksize =
        ReadPerDimension(node, kind.ksize_attr, attrs, true);
    if (!ksize.ok()) return ksize.status();
    attrs.ksize = *std::move(ksize);
  }

  absl::StatusOr<std::string> padding = node.GetString("padding");
  if (!padding.ok()) return padding.status();
  if (*padding == "VALID") {
    attrs.padding = Padding::kValid;
  } else if (*padding == "SAME") {
    attrs.padding = Padding::kSame;
  } else if (*padding == "EXPLICIT" && kind.allows_explicit) {
    attrs.padding = Padding::kExplicit;
  } else {
    return node.Error(absl::StrCat(
        "padding \"", *padding, "\" is not supported, expected ",
        kind.allows_explicit ? "\"VALID\", \"SAME\" or \"EXPLICIT\"" : "\"VALID\" or \"SAME\""));
  }
  if (attrs.padding == Padding::kExplicit) {
    absl::StatusOr<AttrList> list = node.GetList("explicit_paddings");
    if (!list.ok()) return list.status();
    const std::vector<int64_t>& p = list->i;
    const int n = kind.spatial_rank + 2;
    const auto text = [&] { return absl::StrCat("[", absl::StrJoin(p, ","), "]"); };
    if (static_cast<int>(p.size()) != 2 * n) {
      return node.Error(absl::StrCat("explicit_paddings is ", text(), ", expected ", 2 * n,
                                     " entries (before and after each dimension)"));
    }
    for (int64_t x : p) {
      if (x < 0) {
        return node.Error(
            absl::StrCat("explicit_paddings is ", text(), ", expected non-negative entries"));
      }
    }
    for (int d : {attrs.batch_dim(), attrs.channel_dim()}) {
      if (p[2 * d] != 0 || p[2 * d + 1] != 0) {
        return node.Error(absl::StrCat("explicit_paddings is ", text(),
                                       ": padding the batch or channel dimension is not allowed"));
      }
    }
    attrs.explicit_paddings = p;
  }
  return attrs;
}

}  // namespace dfc

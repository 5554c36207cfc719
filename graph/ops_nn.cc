// OPS.md's "nn" table: convolutional networks, their gradients and optimizers.
#include <vector>

#include "graph/ops_internal.h"

namespace dfc {
namespace {

using K = AttrKind;

}  // namespace

void AddNnTable(std::vector<OpDef>& t) {
  const AttrSpec kT{"T", K::kType};
  const AttrSpec kStrides{"strides", K::kList};
  const AttrSpec kPadding{"padding", K::kString};
  const AttrSpec kExplicit{"explicit_paddings", K::kList};
  const AttrSpec kFormat{"data_format", K::kString};
  const AttrSpec kDilations{"dilations", K::kList};
  const AttrSpec kKsize{"ksize", K::kList};

  constexpr absl::string_view kConvolution =
      "convolution (NHWC, and NCHW where the attribute says so; strides, dilations, "
      "SAME/VALID/EXPLICIT padding)";
  AddAll(t, "Conv2D Conv2DBackpropInput Conv2DBackpropFilter",
         {.family = kConvolution,
          .placement = Placement::kDevice,
          .attrs = {kT,
                    kStrides,
                    {"use_cudnn_on_gpu", K::kBool},
                    kPadding,
                    kExplicit,
                    kFormat,
                    kDilations}});
  AddAll(t,
         "DepthwiseConv2dNative DepthwiseConv2dNativeBackpropInput "
         "DepthwiseConv2dNativeBackpropFilter",
         {.family = kConvolution,
          .placement = Placement::kDevice,
          .attrs = {kT, kStrides, kPadding, kExplicit, kFormat, kDilations}});
  AddAll(t, "Conv3D Conv3DBackpropInputV2 Conv3DBackpropFilterV2",
         {.family = kConvolution,
          .placement = Placement::kDevice,
          .attrs = {kT, kStrides, kPadding, kFormat, kDilations, {"Tshape", K::kType}}});
  AddAll(t, "ExtractImagePatches",
         {.family = kConvolution,
          .placement = Placement::kDevice,
          .attrs = {kT, {"ksizes", K::kList}, kStrides, {"rates", K::kList}, kPadding}});

  constexpr absl::string_view kPooling = "pooling";
  AddAll(t, "MaxPool MaxPoolGrad",
         {.family = kPooling,
          .placement = Placement::kDevice,
          .attrs = {kT, kKsize, kStrides, kPadding, kExplicit, kFormat}});
  AddAll(t, "AvgPool MaxPool3D AvgPool3D AvgPoolGrad",
         {.family = kPooling,
          .placement = Placement::kDevice,
          .attrs = {kT, kKsize, kStrides, kPadding, kFormat}});
  AddAll(t, "MaxPoolV2 MaxPoolGradV2",
         {.family = kPooling, .placement = Placement::kDevice, .attrs = {kT, kPadding, kFormat}});
  AddAll(t, "MaxPoolWithArgmax",
         {.family = kPooling,
          .placement = Placement::kDevice,
          .attrs = {kT,
                    {"Targmax", K::kType},
                    kKsize,
                    kStrides,
                    kPadding,
                    {"include_batch_in_index", K::kBool}},
          .num_outputs = 2});

  constexpr absl::string_view kNormalisation = "normalisation";
  const AttrSpec kEpsilon{"epsilon", K::kFloat};
  const AttrSpec kTraining{"is_training", K::kBool};
  AddAll(t, "FusedBatchNorm",
         {.family = kNormalisation,
          .placement = Placement::kDevice,
          .attrs = {kT, kEpsilon, {"exponential_avg_factor", K::kFloat}, kFormat, kTraining},
          .num_outputs = 5});
  AddAll(t, "FusedBatchNormV2",
         {.family = kNormalisation,
          .placement = Placement::kDevice,
          .attrs = {kT,
                    {"U", K::kType},
                    kEpsilon,
                    {"exponential_avg_factor", K::kFloat},
                    kFormat,
                    kTraining},
          .num_outputs = 5});
  AddAll(t, "FusedBatchNormV3",
         {.family = kNormalisation,
          .placement = Placement::kDevice,
          .attrs = {kT,
                    {"U", K::kType},
                    kEpsilon,
                    {"exponential_avg_factor", K::kFloat},
                    kFormat,
                    kTraining},
          .num_outputs = 6});
  AddAll(t, "FusedBatchNormGrad",
         {.family = kNormalisation,
          .placement = Placement::kDevice,
          .attrs = {kT, kEpsilon, kFormat, kTraining},
          .num_outputs = 5});
  AddAll(t, "FusedBatchNormGradV2 FusedBatchNormGradV3",
         {.family = kNormalisation,
          .placement = Placement::kDevice,
          .attrs = {kT, {"U", K::kType}, kEpsilon, kFormat, kTraining},
          .num_outputs = 5});
  AddAll(t, "LRN LRNGrad",
         {.family = kNormalisation,
          .placement = Placement::kDevice,
          .attrs = {kT,
                    {"depth_radius", K::kInt},
                    {"bias", K::kFloat},
                    {"alpha", K::kFloat},
                    {"beta", K::kFloat}}});

  constexpr absl::string_view kResizing = "resizing and space/batch/depth";
  const AttrSpec kAlignCorners{"align_corners", K::kBool};
  AddAll(t, "ResizeBilinear ResizeNearestNeighbor ResizeBicubic",
         {.family = kResizing,
          .placement = Placement::kDevice,
          .attrs = {kT, kAlignCorners, {"half_pixel_centers", K::kBool}}});
  AddAll(t, "ResizeArea",
         {.family = kResizing, .placement = Placement::kDevice, .attrs = {kT, kAlignCorners}});
  AddAll(t, "SpaceToBatchND",
         {.family = kResizing,
          .placement = Placement::kDevice,
          .attrs = {kT, {"Tblock_shape", K::kType}, {"Tpaddings", K::kType}}});
  AddAll(t, "BatchToSpaceND",
         {.family = kResizing,
          .placement = Placement::kDevice,
          .attrs = {kT, {"Tblock_shape", K::kType}, {"Tcrops", K::kType}}});
  AddAll(t, "SpaceToBatch",
         {.family = kResizing,
          .placement = Placement::kDevice,
          .attrs = {kT, {"Tpaddings", K::kType}, {"block_size", K::kInt}}});
  AddAll(t, "BatchToSpace",
         {.family = kResizing,
          .placement = Placement::kDevice,
          .attrs = {kT, {"block_size", K::kInt}, {"Tidx", K::kType}}});
  AddAll(t, "DepthToSpace SpaceToDepth",
         {.family = kResizing,
          .placement = Placement::kDevice,
          .attrs = {kT, {"block_size", K::kInt}, kFormat}});

  constexpr absl::string_view kActivationGradients = "activation gradients";
  AddAll(t,
         "ReluGrad Relu6Grad SigmoidGrad TanhGrad EluGrad SeluGrad SoftplusGrad SoftsignGrad "
         "RsqrtGrad SqrtGrad ReciprocalGrad InvGrad",
         {.family = kActivationGradients, .placement = Placement::kDevice, .attrs = {kT}});
  AddAll(t, "LeakyReluGrad",
         {.family = kActivationGradients,
          .placement = Placement::kDevice,
          .attrs = {kT, {"alpha", K::kFloat}}});

  constexpr absl::string_view kPlumbing = "gradient plumbing";
  AddAll(t, "InvertPermutation",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {kT},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "ConcatOffset",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {{"N", K::kInt}, {"shape_type", K::kType}},
          .num_outputs_attr = "N"});

  constexpr absl::string_view kRandom =
      "random (TensorFlow's own Philox streams where the graph sets a seed, so the cases' values "
      "match)";
  AddAll(t, "RandomUniform RandomStandardNormal TruncatedNormal",
         {.family = kRandom,
          .placement = Placement::kHost,
          .attrs = {kT, {"dtype", K::kType}, {"seed", K::kInt}, {"seed2", K::kInt}},
          .stateful = true});
  AddAll(t, "RandomUniformInt",
         {.family = kRandom,
          .placement = Placement::kHost,
          .attrs = {kT, {"Tout", K::kType}, {"seed", K::kInt}, {"seed2", K::kInt}},
          .stateful = true});

  // The optimizers update var and their slots (num_ref_inputs leading variables); they run on
  // the host for now, and their results reach the variables wherever those live.
  constexpr absl::string_view kOptimizers =
      "optimizers (variable updates, on the device like ApplyGradientDescent)";
  const AttrSpec kLocking{"use_locking", K::kBool};
  const AttrSpec kNesterov{"use_nesterov", K::kBool};
  const AttrSpec kLinearByLr{"multiply_linear_by_lr", K::kBool};
  auto optimizer = [&](absl::string_view names, int num_ref_inputs, std::vector<AttrSpec> attrs) {
    AddAll(t, names,
           {.family = kOptimizers,
            .placement = Placement::kHost,
            .attrs = std::move(attrs),
            .stateful = true,
            .num_ref_inputs = num_ref_inputs});
  };
  optimizer("ApplyMomentum", 2, {kT, kLocking, kNesterov});
  optimizer("ApplyAdam", 3, {kT, kLocking, kNesterov});
  optimizer("ApplyRMSProp", 3, {kT, kLocking});
  optimizer("ApplyCenteredRMSProp", 4, {kT, kLocking});
  optimizer("ApplyAdagrad", 2, {kT, kLocking, {"update_slots", K::kBool}});
  optimizer("ApplyAdadelta ApplyAdaMax", 3, {kT, kLocking});
  optimizer("ApplyFtrl ApplyFtrlV2", 3, {kT, kLocking, kLinearByLr});
  optimizer("ApplyProximalGradientDescent", 1, {kT, kLocking});
  optimizer("ApplyProximalAdagrad ApplyPowerSign ApplyAddSign", 2, {kT, kLocking});
}

}  // namespace dfc

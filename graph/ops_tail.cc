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
void AddBitsFamilies(std::vector<OpDef>& t) {
  // On the host for now (runtime/reference/bitcast.cc); an equal-width Bitcast is an
  // elementwise reinterpretation a device kernel could do later. Bitcast takes bfloat16, which
  // dfc only stores, so it checks its dtypes itself (any_dtype).
  constexpr absl::string_view kBits = "bitcasts, copies and numeric checks";
  AddAll(t, "Bitcast",
         {.family = kBits,
          .placement = Placement::kHost,
          .attrs = {{"T", K::kType}, {"type", K::kType}},
          .any_dtype = true,
          .host_shape = HostShapeRule::kBitcast,
          .output_dtype = {.attr = "type"}});
  AddAll(t, "DeepCopy",
         {.family = kBits,
          .placement = Placement::kHost,
          .attrs = {{"T", K::kType}},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "Empty",
         {.family = kBits,
          .placement = Placement::kHost,
          .attrs = {{"dtype", K::kType}, {"init", K::kBool}}});
  AddAll(t, "CheckNumerics",
         {.family = kBits,
          .placement = Placement::kHost,
          .attrs = {{"T", K::kType}, {"message", K::kString}},
          .host_shape = HostShapeRule::kLikeInput0});

  // Bitwise ops, on the device as OPS.md's rule says: the elementwise ones on the integer
  // dtypes (the binary ones broadcasting like Add), and CompareAndBitpack, which folds each 8
  // elements of the last dimension into one uint8 (runtime/reference/bitwise.cc).
  constexpr absl::string_view kBitwise = "bitwise ops";
  AddAll(t,
         "BitwiseAnd BitwiseOr BitwiseXor LeftShift RightShift Invert PopulationCount "
         "CompareAndBitpack",
         {.family = kBitwise, .placement = Placement::kDevice, .attrs = {{"T", K::kType}}});
}

// Scatters and gathers by index, segment reductions, partitions.
void AddIndexFamilies(std::vector<OpDef>& t) {
  // Every op has an exact reference kernel (runtime/reference/scatter.cc and segment.cc); the
  // ones placed on the device translate to masked folds (ir/from_tf/scatter.cc).
  const AttrSpec kT{"T", K::kType};
  const AttrSpec kTindices{"Tindices", K::kType};
  const AttrSpec kLocking{"use_locking", K::kBool};
  constexpr absl::string_view kScatter = "scatters and gathers by index";
  AddAll(t, "ScatterNd",
         {.family = kScatter, .placement = Placement::kDevice, .attrs = {kT, kTindices}});
  AddAll(t,
         "ScatterNdNonAliasingAdd TensorScatterUpdate TensorScatterAdd TensorScatterSub "
         "TensorScatterMax TensorScatterMin",
         {.family = kScatter,
          .placement = Placement::kDevice,
          .attrs = {kT, kTindices},
          .host_shape = HostShapeRule::kLikeInput0});
  // These write their first input, a variable, as AssignAdd does, and output its new value; the
  // device executor applies the write where the variable lives (runtime/variable_writes.cc).
  AddAll(t,
         "ScatterNdAdd ScatterNdSub ScatterNdUpdate ScatterAdd ScatterSub ScatterMul ScatterDiv "
         "ScatterMax ScatterMin ScatterUpdate",
         {.family = kScatter,
          .placement = Placement::kHost,
          .attrs = {kT, kTindices, kLocking},
          .stateful = true,
          .num_ref_inputs = 1});
  AddAll(t, "GatherNd",
         {.family = kScatter,
          .placement = Placement::kDevice,
          .attrs = {{"Tparams", K::kType}, kTindices},
          .host_shape = HostShapeRule::kGatherNd});
  AddAll(t, "SparseToDense",
         {.family = kScatter,
          .placement = Placement::kHost,
          .attrs = {kT, kTindices, {"validate_indices", K::kBool}}});

  constexpr absl::string_view kSegment = "segment reductions and partitions";
  // The sorted forms' output size is the last id plus one, known when they run: the host
  // computes them. The unsorted forms, whose size is an input, run on the device.
  AddAll(t, "SegmentSum SegmentMax SegmentMin SegmentMean SegmentProd",
         {.family = kSegment,
          .placement = Placement::kHost,
          .attrs = {kT, kTindices},
          .host_shape = HostShapeRule::kSortedSegment});
  AddAll(t, "UnsortedSegmentSum UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd",
         {.family = kSegment,
          .placement = Placement::kDevice,
          .attrs = {kT, kTindices, {"Tnumsegments", K::kType}}});
  // Its outputs' sizes depend on the partitions' values: the host computes them.
  AddAll(t, "DynamicPartition",
         {.family = kSegment,
          .placement = Placement::kHost,
          .attrs = {kT, {"num_partitions", K::kInt}},
          .num_outputs_attr = "num_partitions",
          .host_shape = HostShapeRule::kDynamicPartition});
  AddAll(t, "ParallelConcat",
         {.family = kSegment,
          .placement = Placement::kHost,
          .attrs = {kT, {"N", K::kInt}, {"shape", K::kShape}},
          .host_shape = HostShapeRule::kParallelConcat});
}

// Matrix diagonals and bands, Einsum, Cross, and dense linear algebra.
void AddMatrixFamilies(std::vector<OpDef>& t) {
  const AttrSpec kT{"T", K::kType};
  // Diagonals and bands only move elements (runtime/reference/matrix.cc); on the host for now,
  // where graphs use them on constants (eye, set_diag) that fold. A device translation would be
  // a gather.
  constexpr absl::string_view kDiagonals = "matrix diagonals and bands";
  OpDef diagonal{.family = kDiagonals,
                 .placement = Placement::kHost,
                 .attrs = {kT},
                 .host_shape = HostShapeRule::kMatrixDiag};
  AddAll(t, "MatrixDiag", diagonal);
  diagonal.host_shape = HostShapeRule::kUnknown;
  AddAll(t, "MatrixDiagV2", diagonal);
  diagonal.host_shape = HostShapeRule::kMatrixDiagPart;
  AddAll(t, "MatrixDiagPart", diagonal);
  diagonal.host_shape = HostShapeRule::kUnknown;
  AddAll(t, "MatrixDiagPartV2 Diag DiagPart", diagonal);
  AddAll(t, "MatrixSetDiag MatrixSetDiagV2",
         {.family = kDiagonals,
          .placement = Placement::kHost,
          .attrs = {kT},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(
      t, "MatrixDiagV3 MatrixDiagPartV3",
      {.family = kDiagonals, .placement = Placement::kHost, .attrs = {kT, {"align", K::kString}}});
  AddAll(t, "MatrixSetDiagV3",
         {.family = kDiagonals,
          .placement = Placement::kHost,
          .attrs = {kT, {"align", K::kString}},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "MatrixBandPart",
         {.family = kDiagonals,
          .placement = Placement::kHost,
          .attrs = {kT, {"Tindex", K::kType}},
          .host_shape = HostShapeRule::kLikeInput0});

  constexpr absl::string_view kProducts = "Einsum and Cross";
  AddAll(t, "Einsum",
         {.family = kProducts,
          .placement = Placement::kHost,
          .attrs = {kT, {"equation", K::kString}, {"N", K::kInt}}});
  AddAll(t, "Cross", {.family = kProducts, .placement = Placement::kHost, .attrs = {kT}});

  // OPS.md lets dense linear algebra run on the host (runtime/reference/linalg.cc).
  constexpr absl::string_view kLinalg = "dense linear algebra";
  const AttrSpec kAdjoint{"adjoint", K::kBool};
  AddAll(t, "MatrixDeterminant", {.family = kLinalg, .placement = Placement::kHost, .attrs = {kT}});
  AddAll(t, "Cholesky MatrixExponential",
         {.family = kLinalg,
          .placement = Placement::kHost,
          .attrs = {kT},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "LogMatrixDeterminant",
         {.family = kLinalg, .placement = Placement::kHost, .attrs = {kT}, .num_outputs = 2});
  AddAll(t, "MatrixInverse",
         {.family = kLinalg,
          .placement = Placement::kHost,
          .attrs = {kT, kAdjoint},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "MatrixSolve",
         {.family = kLinalg, .placement = Placement::kHost, .attrs = {kT, kAdjoint}});
  AddAll(t, "MatrixTriangularSolve",
         {.family = kLinalg,
          .placement = Placement::kHost,
          .attrs = {kT, kAdjoint, {"lower", K::kBool}}});
  AddAll(t, "Lu",
         {.family = kLinalg,
          .placement = Placement::kHost,
          .attrs = {kT, {"output_idx_type", K::kType}},
          .num_outputs = 2});
  AddAll(t, "Qr",
         {.family = kLinalg,
          .placement = Placement::kHost,
          .attrs = {kT, {"full_matrices", K::kBool}},
          .num_outputs = 2});
  AddAll(t, "Svd",
         {.family = kLinalg,
          .placement = Placement::kHost,
          .attrs = {kT, {"compute_uv", K::kBool}, {"full_matrices", K::kBool}},
          .num_outputs = 3,
          .host_shape = HostShapeRule::kSvd});
  AddAll(t, "SelfAdjointEigV2",
         {.family = kLinalg,
          .placement = Placement::kHost,
          .attrs = {kT, {"compute_v", K::kBool}},
          .num_outputs = 2});
}

// Special functions, elementwise math, quantisation, sorting and data-dependent selections.
// The elementwise ones run on the device (ir/from_tf/special_math.cc); EuclideanNorm, sorting
// and the selections on the host (runtime/reference/special_math.cc and selection.cc).
void AddMathFamilies(std::vector<OpDef>& t) {
  const AttrSpec kT{"T", K::kType};
  const AttrSpec kOutIdx{"out_idx", K::kType};

  constexpr absl::string_view kSpecial =
      "special functions (log-gamma, digamma, incomplete gamma and beta, zeta, polygamma)";
  AddAll(t, "Lgamma Digamma",
         {.family = kSpecial,
          .placement = Placement::kDevice,
          .attrs = {kT},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "Igamma Igammac Betainc Polygamma Zeta",
         {.family = kSpecial,
          .placement = Placement::kDevice,
          .attrs = {kT},
          .host_shape = HostShapeRule::kBroadcast});

  constexpr absl::string_view kMath = "guarded and clipped elementwise math, norms";
  AddAll(t, "Xdivy Xlogy Xlog1py",
         {.family = kMath,
          .placement = Placement::kDevice,
          .attrs = {kT},
          .host_shape = HostShapeRule::kBroadcast});
  AddAll(t, "ClipByValue",
         {.family = kMath,
          .placement = Placement::kDevice,
          .attrs = {kT},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "ApproximateEqual",
         {.family = kMath,
          .placement = Placement::kDevice,
          .attrs = {kT, {"tolerance", K::kFloat}},
          .host_shape = HostShapeRule::kBroadcast,
          .output_dtype = {.fixed = DType::kBool}});
  AddAll(t, "EuclideanNorm",
         {.family = kMath,
          .placement = Placement::kHost,
          .attrs = {kT, {"Tidx", K::kType}, {"keep_dims", K::kBool}}});

  constexpr absl::string_view kQuant = "fake quantisation and bucketing";
  const AttrSpec kNumBits{"num_bits", K::kInt};
  const AttrSpec kNarrow{"narrow_range", K::kBool};
  AddAll(t, "FakeQuantWithMinMaxArgs",
         {.family = kQuant,
          .placement = Placement::kDevice,
          .attrs = {{"min", K::kFloat}, {"max", K::kFloat}, kNumBits, kNarrow},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "FakeQuantWithMinMaxVars FakeQuantWithMinMaxVarsPerChannel",
         {.family = kQuant,
          .placement = Placement::kDevice,
          .attrs = {kNumBits, kNarrow},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "Bucketize",
         {.family = kQuant,
          .placement = Placement::kDevice,
          .attrs = {kT, {"boundaries", K::kList}},
          .host_shape = HostShapeRule::kLikeInput0,
          .output_dtype = {.fixed = DType::kInt32}});

  constexpr absl::string_view kSelection =
      "sorting and data-dependent selections (top-k, unique, where, set difference)";
  AddAll(t, "TopK",
         {.family = kSelection,
          .placement = Placement::kHost,
          .attrs = {kT, {"k", K::kInt}, {"sorted", K::kBool}, {"index_type", K::kType}},
          .num_outputs = 2,
          .host_shape = HostShapeRule::kTopK});
  AddAll(t, "TopKV2",
         {.family = kSelection,
          .placement = Placement::kHost,
          .attrs = {kT, {"sorted", K::kBool}, {"Tk", K::kType}, {"index_type", K::kType}},
          .num_outputs = 2,
          .host_shape = HostShapeRule::kTopK});
  AddAll(
      t, "NthElement",
      {.family = kSelection, .placement = Placement::kHost, .attrs = {kT, {"reverse", K::kBool}}});
  OpDef selection{.family = kSelection,
                  .placement = Placement::kHost,
                  .attrs = {kT, kOutIdx},
                  .num_outputs = 2,
                  .host_shape = HostShapeRule::kUnique};
  AddAll(t, "Unique", selection);
  selection.host_shape = HostShapeRule::kListDiff;
  AddAll(t, "ListDiff", selection);
  selection.num_outputs = 3;
  selection.host_shape = HostShapeRule::kUnique;
  AddAll(t, "UniqueWithCounts", selection);
  AddAll(t, "Where",
         {.family = kSelection,
          .placement = Placement::kHost,
          .attrs = {kT},
          .host_shape = HostShapeRule::kWhere});

  constexpr absl::string_view kMoves = "rolls, sequence reversal, histograms and ranges";
  AddAll(t, "Roll",
         {.family = kMoves,
          .placement = Placement::kDevice,
          .attrs = {kT, {"Tshift", K::kType}, {"Taxis", K::kType}},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "ReverseSequence",
         {.family = kMoves,
          .placement = Placement::kDevice,
          .attrs = {kT, {"Tlen", K::kType}, {"seq_dim", K::kInt}, {"batch_dim", K::kInt}},
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "HistogramFixedWidth",
         {.family = kMoves, .placement = Placement::kHost, .attrs = {kT, {"dtype", K::kType}}});
  AddAll(t, "LinSpace",
         {.family = kMoves, .placement = Placement::kHost, .attrs = {kT, {"Tidx", K::kType}}});
}

// Image ops, random sampling and the fused RNN cells.
void AddImageRandomRnnFamilies(std::vector<OpDef>& t) {
  const AttrSpec kT{"T", K::kType};
  constexpr absl::string_view kRnn = "fused RNN cells (TensorFlow's LSTM and GRU block ops)";
  const std::vector<AttrSpec> lstm_attrs = {
      kT, {"forget_bias", K::kFloat}, {"cell_clip", K::kFloat}, {"use_peephole", K::kBool}};
  OpDef rnn{.family = kRnn,
            .placement = Placement::kHost,
            .attrs = lstm_attrs,
            .num_outputs = 7,
            .host_shape = HostShapeRule::kRnnCell};
  AddAll(t, "LSTMBlockCell", rnn);
  rnn.host_shape = HostShapeRule::kBlockLstm;
  AddAll(t, "BlockLSTM", rnn);
  rnn.attrs = {kT};
  rnn.num_outputs = 4;
  rnn.host_shape = HostShapeRule::kRnnCell;
  AddAll(t, "GRUBlockCell", rnn);

  // Data-dependent selections and per-pixel geometry: on the host.
  constexpr absl::string_view kImage = "image ops (non-max suppression, crops, colour, boxes)";
  const AttrSpec kThreshold{"T_threshold", K::kType};
  const AttrSpec kPad{"pad_to_max_output_size", K::kBool};
  OpDef suppression{.family = kImage,
                    .placement = Placement::kHost,
                    .attrs = {{"iou_threshold", K::kFloat}},
                    .host_shape = HostShapeRule::kNonMaxSuppression};
  AddAll(t, "NonMaxSuppression", suppression);
  suppression.attrs = {kT, kThreshold};
  AddAll(t, "NonMaxSuppressionV2 NonMaxSuppressionV3", suppression);
  suppression.attrs = {kT, kThreshold, kPad};
  suppression.num_outputs = 2;
  AddAll(t, "NonMaxSuppressionV4", suppression);
  suppression.attrs = {kT, kPad};
  suppression.num_outputs = 3;
  AddAll(t, "NonMaxSuppressionV5", suppression);
  AddAll(t, "CropAndResize",
         {.family = kImage,
          .placement = Placement::kHost,
          .attrs = {kT, {"method", K::kString}, {"extrapolation_value", K::kFloat}}});
  AddAll(t, "RGBToHSV HSVToRGB AdjustHue AdjustSaturation AdjustContrastv2 DrawBoundingBoxesV2",
         {.family = kImage,
          .placement = Placement::kHost,
          .attrs = {kT},
          .host_shape = HostShapeRule::kLikeInput0});
  // Stateful draws from the node's Philox stream; the stateless ops are pure functions of their
  // seed input.
  constexpr absl::string_view kRandom =
      "random sampling (TensorFlow's own Philox streams, so seeded cases match)";
  const AttrSpec kSeed{"seed", K::kInt};
  const AttrSpec kSeed2{"seed2", K::kInt};
  AddAll(t, "RandomShuffle",
         {.family = kRandom,
          .placement = Placement::kHost,
          .attrs = {kT, kSeed, kSeed2},
          .stateful = true,
          .host_shape = HostShapeRule::kLikeInput0});
  AddAll(t, "RandomPoissonV2",
         {.family = kRandom,
          .placement = Placement::kHost,
          .attrs = {{"S", K::kType}, {"R", K::kType}, {"dtype", K::kType}, kSeed, kSeed2},
          .stateful = true});
  AddAll(t, "RandomGamma",
         {.family = kRandom,
          .placement = Placement::kHost,
          .attrs = {{"S", K::kType}, kT, kSeed, kSeed2},
          .stateful = true});
  AddAll(t, "Multinomial",
         {.family = kRandom,
          .placement = Placement::kHost,
          .attrs = {kT, {"output_dtype", K::kType}, kSeed, kSeed2},
          .stateful = true});
  AddAll(t, "StatelessRandomUniform StatelessRandomNormal StatelessTruncatedNormal",
         {.family = kRandom,
          .placement = Placement::kHost,
          .attrs = {kT, {"dtype", K::kType}, {"Tseed", K::kType}}});
  AddAll(t, "Dilation2D",
         {.family = kImage,
          .placement = Placement::kHost,
          .attrs = {kT, {"strides", K::kList}, {"rates", K::kList}, {"padding", K::kString}}});
}

}  // namespace

void AddTailTable(std::vector<OpDef>& t) {
  AddBitsFamilies(t);
  AddIndexFamilies(t);
  AddMatrixFamilies(t);
  AddMathFamilies(t);
  AddImageRandomRnnFamilies(t);
}

}  // namespace dfc

#!/usr/bin/python3
"""The PyTorch twins of the workloads bench/cnn_bench.cc and bench/peer_bench.cc time.

What a user would run instead of dfc: PyTorch from Debian (python3-torch, its BLAS OpenBLAS
through libopenblas0-pthread, its convolutions oneDNN's) on the CPU, or a CUDA build of PyTorch
on a GPU (--device cuda); the model an nn.Module in eval mode, its forward under
torch.no_grad(), on the same number of threads as dfc's device.

Each twin has the ops of its TensorFlow graph with the same shapes and dtype (float32), in
PyTorch's own layout (NCHW); the weights are PyTorch's random initialisation (seeded), since
the time does not depend on them. TensorFlow's SAME padding of a stride-2 3x3 convolution on an
even input pads one row after; PyTorch's padding=1 pads one before and one after: the same
output shape and work. The families:

- cnn_bench's (tests/zoo.cc's graphs): `cnn_lenet`, `cnn_mobilenet_v1_025_128`,
  `cnn_resnet_cifar10` at batch 1, 16 and 64, `cnn_openpose_mnv2_small` at 1, `rnn_keras_lstm`
  at 1 and 64, and the training step `train_deep_mnist` at 64;
- peer_bench's (tests/workloads.cc's): the subgraphs `subgraph_seed` and `subgraph_relu`
  (models/), the frozen MLPs `mlp_dl4j`, `mlp_lvfengkun`, `mlp_cppflow` and the MNIST softmax
  regression's training step `train_mnist_softmax` (../shared/models) at batch 1, 16, 64 and
  8192, and `gemm_1024`, one [B,1024] x [1024,1024] torch.mm, at 1, 16, 64, 1024 and 8192.

Writes Google Benchmark's JSON (`--benchmark_out_format=json`), the benchmarks named as
cnn_bench and peer_bench name their own with the variant `pytorch`
(`cnn_lenet/pytorch/batch:16`), so that dfc_bench_report (bench/report) reads both: each time
the median of the calls timed after a warm-up, with counters `batch` and, where the work is
counted, `GFLOP/s`: over the convolutions' flops (`conv_GFLOP`, counted here from the modules'
output shapes, independently of dfc's count from the graph) for cnn_bench's families, over
workloads.cc's count (`GFLOP`: the contraction's) for the subgraphs and the GEMM. The MLPs and
train_mnist_softmax count none, as peer_bench counts none for them. On a GPU each timed call
is end to end: the device synchronised before the clock is read at its start and its end.

The JSON's context records what ran: the BLAS library the process loaded with OpenBLAS's own
name for the kernels it picked (`openblas_get_corename`, `openblas_get_config`), PyTorch's build
and threads (`torch.__config__`), and the implementations oneDNN chose for the convolutions,
from its verbose log of one forward of each CNN twin in a child process. OpenBLAS picks its
kernels from OPENBLAS_CORETYPE where that is set: bench/peer runs this script with it unset.

  /usr/bin/python3 bench/torch_peer.py --threads 2 --out bench/results/torch_peer.json \
      --context-from bench/results/cnn_bench.json

With --export-onnx DIR it times nothing: it exports every forward twin that --filter selects
(with the variant `onnxruntime`) with torch.onnx.export at each of its batches, beside the
inputs it fed and the output PyTorch computed, for bench/ort_peer.js (DIR/manifest.json).

It needs Debian's python3 (/usr/bin/python3, where python3-torch installs), not another python3
on PATH; bench/run installs python3-torch and libopenblas0-pthread when they are missing.
"""

import argparse
import ctypes
import datetime
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import warnings


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2, help="intra-op threads (default 2)")
    parser.add_argument("--out", help="the JSON file to write (required unless --export-onnx)")
    parser.add_argument("--context-from", help="a Google Benchmark JSON file of the same run "
                        "(cnn_bench's), whose machine context is copied")
    parser.add_argument("--batches", default="1,16,64,1024,8192",
                        help="comma-separated: a family runs at those of its own batches that "
                        "are listed here (default 1,16,64,1024,8192, every family's)")
    parser.add_argument("--min-time", type=float, default=1.0,
                        help="seconds of timed calls per model and batch (default 1)")
    parser.add_argument("--min-runs", type=int, default=5, help="timed calls at least")
    parser.add_argument("--filter", default=".",
                        help="a regex over benchmark names, as --benchmark_filter (default .)")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="where the models and inputs are: cpu (default) or cuda (a GPU)")
    parser.add_argument("--export-onnx", metavar="DIR",
                        help="time nothing: export the forward twins to ONNX into DIR, with "
                        "their inputs and outputs and DIR/manifest.json, for bench/ort_peer.js")
    # The child process that lists oneDNN's convolution kernels (onednn_kernels).
    parser.add_argument("--onednn-probe", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.export_onnx and args.device != "cpu":
        parser.error("--export-onnx: the ONNX Runtime peer runs on the CPU; leave --device cpu")
    if not args.export_onnx and not args.onednn_probe and not args.out:
        parser.error("--out is required")
    return args


ARGS = parse_args()
# Before torch loads: OpenMP and OpenBLAS size their thread pools when they start.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = str(ARGS.threads)

try:
    import torch
    from torch import nn
except ImportError as error:
    sys.exit(f"torch_peer.py: {error}: run it with Debian's /usr/bin/python3 with python3-torch "
             "installed (bench/run installs it: apt-get install python3-torch "
             "libopenblas0-pthread)")

DEVICE = torch.device(ARGS.device)
if DEVICE.type == "cuda" and not torch.cuda.is_available():
    sys.exit(f"torch_peer.py: --device {ARGS.device}: this PyTorch ({torch.__version__}) sees no "
             "CUDA device (Debian's python3-torch is built for the CPU only)")
# cnn_bench's CNNs and the Keras LSTM; peer_bench's subgraphs, MLPs and training step; its GEMM.
ZOO_BATCHES = (1, 16, 64)
PEER_BATCHES = (1, 16, 64, 8192)
GEMM_BATCHES = (1, 16, 64, 1024, 8192)


def uniform(shape, low=0.0, high=1.0):
    """A float32 tensor on the device of values uniform in [low, high): what tests/test_util's
    UniformFloats feeds the graphs, though not the same values."""
    return torch.rand(*shape, device=DEVICE) * (high - low) + low


class LeNet(nn.Module):
    """lenet_frozen.pb: input [N,28,28,1], fetch Lenet/fc9_1/BiasAdd (the logits, before the
    graph's last Relu)."""

    image = (1, 28, 28)
    batches = ZOO_BATCHES
    output = (10,)

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(),  # conv1_1: SAME, 28x28x6
            nn.MaxPool2d(2),  # pool2_1: 14x14
            nn.Conv2d(6, 16, 5), nn.ReLU(),  # conv3_1: VALID, 10x10x16
            nn.MaxPool2d(2),  # pool4_1: 5x5
            nn.Conv2d(16, 120, 5), nn.ReLU(),  # conv5_1: VALID, 1x1x120
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),  # flat6_1
            nn.Linear(120, 84), nn.ReLU(),  # fc7_1
            nn.Linear(84, 10),  # fc9_1/BiasAdd
        )

    def forward(self, x):
        return self.classifier(self.features(x))


class MobileNetV1(nn.Module):
    """mobilenet_v1_025_128.pb (depth multiplier 0.25, 128x128): input [N,128,128,3], fetch
    MobilenetV1/Logits/SpatialSqueeze (the 1001 logits)."""

    image = (3, 128, 128)
    batches = ZOO_BATCHES
    output = (1001,)
    # Conv2d_1 to Conv2d_13: each a 3x3 depthwise convolution (its stride here) and a 1x1 one to
    # this many channels.
    blocks = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1),
              (128, 1), (128, 1), (128, 1), (256, 2), (256, 1)]

    def __init__(self):
        super().__init__()
        layers = [self.conv(3, 8, 3, 2)]  # Conv2d_0: 3x3, stride 2, 64x64x8
        channels = 8
        for outputs, stride in self.blocks:
            layers.append(self.conv(channels, channels, 3, stride, groups=channels))
            layers.append(self.conv(channels, outputs, 1, 1))
            channels = outputs
        self.features = nn.Sequential(*layers)  # 4x4x256
        self.logits = nn.Sequential(
            nn.AvgPool2d(4, stride=2),  # AvgPool_1a: VALID, 1x1
            nn.Dropout(),  # Dropout_1b: the identity in eval mode
            nn.Conv2d(channels, 1001, 1),  # Conv2d_1c_1x1 with its BiasAdd
        )

    @staticmethod
    def conv(inputs, outputs, kernel, stride, groups=1):
        """A convolution, batch norm and Relu6, as MobileNet's layers are: the frozen graph's
        batch norm is its Mul and Add, a per-channel affine map, as BatchNorm2d in eval mode."""
        return nn.Sequential(
            nn.Conv2d(inputs, outputs, kernel, stride, padding=kernel // 2, groups=groups,
                      bias=False),
            nn.BatchNorm2d(outputs), nn.ReLU6())

    def forward(self, x):
        return self.logits(self.features(x)).squeeze(3).squeeze(2)  # SpatialSqueeze


class ResNetCifar10(nn.Module):
    """resnet_cifar10.pb (TF official models' CIFAR-10 ResNet v1, three stages of three
    blocks): input [N,32,32,3], fetch resnet_model/final_dense (the 10 logits, before the
    graph's Softmax). Every convolution is followed by its batch norm (FusedBatchNorm in
    inference mode: BatchNorm2d in eval mode); each stage's first block has a projection
    shortcut (a 1x1 convolution and batch norm), stride 2 in stages 2 and 3, where the graph
    pads explicitly (fixed_padding: one row and column each side of a 3x3 window, none for a
    1x1) before a VALID convolution, as padding=1 and padding=0 do here."""

    image = (3, 32, 32)
    batches = ZOO_BATCHES
    output = (10,)

    class Block(nn.Module):
        """conv-BN-Relu-conv-BN, plus the shortcut (projected in a stage's first block), Relu."""

        def __init__(self, inputs, outputs, stride, project):
            super().__init__()
            self.residual = nn.Sequential(
                nn.Conv2d(inputs, outputs, 3, stride, padding=1, bias=False),
                nn.BatchNorm2d(outputs), nn.ReLU(),
                nn.Conv2d(outputs, outputs, 3, 1, padding=1, bias=False),
                nn.BatchNorm2d(outputs))
            self.shortcut = (nn.Sequential(nn.Conv2d(inputs, outputs, 1, stride, bias=False),
                                           nn.BatchNorm2d(outputs))
                             if project else nn.Identity())

        def forward(self, x):
            return torch.relu(self.residual(x) + self.shortcut(x))

    def __init__(self):
        super().__init__()
        layers = [nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
        channels = 16
        for outputs, stride in [(16, 1), (32, 2), (64, 2)]:  # block_layer1 to block_layer3
            for block in range(3):
                layers.append(self.Block(channels, outputs, stride if block == 0 else 1,
                                         project=block == 0))
                channels = outputs
        self.features = nn.Sequential(*layers)  # 8x8x64
        self.dense = nn.Linear(channels, 10)

    def forward(self, x):
        return self.dense(self.features(x).mean(dim=(2, 3)))  # Mean over H and W, Squeeze


class OpenPoseMnv2Small(nn.Module):
    """openpose_mnv2_small.pb (tf-pose-estimation's OpenPose on a MobileNetV2-small backbone):
    input `image` [N,368,432,3] (its usual size), fetch Openpose/concat_stage7 [N,46,54,57], the
    19 heatmaps and then the 38 part affinity fields. Read from the GraphDef's nodes and weight
    shapes (86 Conv2D, 73 DepthwiseConv2dNative, 99 FusedBatchNorm):

    - MobilenetV2: `Conv` (3x3, stride 2, to 16), then `expanded_conv` (a 3x3 depthwise on 16,
      a 1x1 projection to 8) and `expanded_conv_1` to `_12` (a 1x1 expansion, a 3x3 depthwise
      at the block's stride, a 1x1 projection; blocks below), with the residual Add where the
      block keeps its shape. Each convolution is followed by a FusedBatchNorm with is_training
      true (no mean or variance given: it normalises by the batch's own statistics, as
      BatchNorm2d without running statistics does), and each but the projections by a Relu6.
    - `feat_concat`: expanded_conv_5's output (16 channels, 46x54) beside expanded_conv_12's
      (48, 23x27) resized to 46x54 by ResizeBilinear (align_corners and half_pixel_centers
      false, TensorFlow's old mapping, where F.interpolate samples at half pixels: the same
      work), 64 channels.
    - Six stages of two branches, L1 (38 maps) and L2 (19), each five separable layers: a
      depthwise convolution (3x3, 3x3, 3x3, 1x1, 1x1; no bias, no batch norm) and a pointwise
      1x1 one to 64, 64, 64, 256 in stage 1 or 64 after, then 38 or 19, each pointwise one with
      a frozen FusedBatchNorm (BatchNorm2d in eval mode) and a Relu but the last. Stages 2 to 6
      read the previous stage's L1 and L2 beside feat_concat (`MConv_StageK_concat`, 121
      channels).
    - `concat_stage7`: stage 6's L2, then its L1.

    Stride-2 SAME padding as padding=1, as in MobileNetV1 above."""

    image = (3, 368, 432)
    batches = (1,)  # cnn_bench's
    output = (57, 46, 54)  # concat_stage7's [N,46,54,57] in NCHW
    # expanded_conv_1 to _12: (expanded channels, stride, output channels, residual Add).
    blocks = [(48, 2, 16, False), (96, 1, 16, True), (96, 2, 16, False), (96, 1, 16, True),
              (96, 1, 16, True), (96, 2, 32, False), (192, 1, 32, True), (192, 1, 32, True),
              (192, 1, 32, True), (192, 1, 48, False), (288, 1, 48, True), (288, 1, 48, True)]
    features = 16 + 48  # feat_concat
    maps = (38, 19)  # L1, L2

    class Block(nn.Module):
        """An expanded_conv: expansion (where `expanded` is given), depthwise, projection."""

        def __init__(self, inputs, expanded, stride, outputs, residual):
            super().__init__()
            expand = ([*OpenPoseMnv2Small.conv_bn(inputs, expanded, 1), nn.ReLU6()]
                      if expanded else [])
            channels = expanded or inputs
            self.layers = nn.Sequential(
                *expand,
                *OpenPoseMnv2Small.conv_bn(channels, channels, 3, stride, groups=channels),
                nn.ReLU6(),
                *OpenPoseMnv2Small.conv_bn(channels, outputs, 1))  # project: no Relu6
            self.residual = residual

        def forward(self, x):
            y = self.layers(x)
            return x + y if self.residual else y

    @staticmethod
    def conv_bn(inputs, outputs, kernel, stride=1, groups=1):
        """A backbone convolution and its batch norm over the batch's statistics."""
        return [nn.Conv2d(inputs, outputs, kernel, stride, padding=kernel // 2, groups=groups,
                          bias=False),
                nn.BatchNorm2d(outputs, eps=1e-3, track_running_stats=False)]

    @staticmethod
    def branch(inputs, wide, outputs):
        """One stage's L1 or L2: five depthwise and pointwise pairs, the fourth to `wide`."""
        layers = []
        for kernel, width in [(3, 64), (3, 64), (3, 64), (1, wide), (1, outputs)]:
            layers += [nn.Conv2d(inputs, inputs, kernel, padding=kernel // 2, groups=inputs,
                                 bias=False),
                       nn.Conv2d(inputs, width, 1, bias=False),
                       nn.BatchNorm2d(width, eps=1e-3), nn.ReLU()]
            inputs = width
        return nn.Sequential(*layers[:-1])  # the last pointwise layer has no Relu

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(*self.conv_bn(3, 16, 3, 2), nn.ReLU6(),  # Conv: 184x216
                                  self.Block(16, None, 1, 8, False))  # expanded_conv
        blocks, channels = [], 8
        for expanded, stride, outputs, residual in self.blocks:
            blocks.append(self.Block(channels, expanded, stride, outputs, residual))
            channels = outputs
        self.low = nn.Sequential(*blocks[:5])  # to expanded_conv_5: 46x54x16
        self.high = nn.Sequential(*blocks[5:])  # to expanded_conv_12: 23x27x48
        self.stages = nn.ModuleList()
        for stage in range(6):
            inputs = self.features if stage == 0 else self.features + sum(self.maps)
            wide = 256 if stage == 0 else 64
            self.stages.append(nn.ModuleList([self.branch(inputs, wide, m) for m in self.maps]))

    def forward(self, x):
        low = self.low(self.stem(x))
        high = nn.functional.interpolate(self.high(low), size=low.shape[2:], mode="bilinear",
                                         align_corners=False)  # base/layer_14/output/upsample
        features = torch.cat([low, high], dim=1)  # feat_concat
        l1, l2 = (branch(features) for branch in self.stages[0])
        for l1_branch, l2_branch in self.stages[1:]:
            x = torch.cat([l1, l2, features], dim=1)  # MConv_StageK_concat
            l1, l2 = l1_branch(x), l2_branch(x)
        return torch.cat([l2, l1], dim=1)  # concat_stage7


class DeepMnist(nn.Module):
    """deep_mnist_train.pbtxt's network (TensorFlow's "Deep MNIST for experts"): input
    [N,28,28,1], two 5x5 SAME convolutions with bias and Relu each followed by a 2x2 max pool,
    a dense layer of 1024 with Relu, dropout, a dense layer of 10; softmax cross-entropy, Adam
    at 1e-4. Timed as a training step: forward, gradients and Adam's update."""

    image = (1, 28, 28)
    batches = (64,)  # cnn_bench's

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),  # conv1, pool1: 14x14
            nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2))  # conv2, pool2: 7x7
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(7 * 7 * 64, 1024), nn.ReLU(),  # fc1
            nn.Dropout(0.5),  # keep_prob 0.5
            nn.Linear(1024, 10))  # fc2

    def forward(self, x):
        return self.classifier(self.features(x))

    def optimizer(self):
        return torch.optim.Adam(self.parameters(), lr=1e-4)

    @staticmethod
    def labels(batch):
        """Class indices: the one-hot labels' work in CrossEntropyLoss."""
        return torch.arange(batch, device=DEVICE) * 7 % 10


class MnistSoftmax(nn.Module):
    """dl4j_mnist_00_softmax_train.pbtxt (TensorFlow's MNIST softmax regression): input
    [N,784], the logits `output` = MatMul(input, Variable [784,10]) + BiasAdd(Variable_1 [10]);
    the loss `Mean` (over the batch) of SoftmaxCrossEntropyWithLogits(output, Placeholder
    [N,10]); `GradientDescent`: ApplyGradientDescent of both variables at learning rate 0.5.
    Timed as a training step, as peer_bench fetches Mean with GradientDescent as a target.

    The labels are fed as the graph's Placeholder is (uniform [0, 1) rows, not one-hot):
    CrossEntropyLoss with class probabilities is the same -sum(labels * log_softmax(logits))
    a row, averaged. Its gradient is autograd's, softmax * sum(labels) - labels, where
    TensorFlow's kernel takes softmax - labels (as if each row summed to 1): with these rows the
    losses part from the third step on, the work the same (a row sum more). The variables start
    at zero as the graph's `init` (zeros, zeros_1) sets them; nn.Linear stores W as [10,784] and
    computes x.W^T: the same work."""

    image = (784,)
    batches = PEER_BATCHES

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(784, 10)  # MatMul, output (BiasAdd)
        nn.init.zeros_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, x):
        return self.linear(x)

    def optimizer(self):
        return torch.optim.SGD(self.parameters(), lr=0.5)  # GradientDescent/learning_rate

    @staticmethod
    def labels(batch):
        return uniform((batch, 10))  # Placeholder [N,10], fed as workloads.cc's Model feeds it


class KerasLstm(nn.Module):
    """keras_lstm_while.pb (a Keras LSTM layer of 128 units): input [N,100,1000], fetch the last
    step's output. torch.nn.LSTM of the same sizes; Keras' recurrent activation is a hard
    sigmoid where PyTorch's is the sigmoid, the same work."""

    image = (100, 1000)
    batches = (1, 64)
    output = (128,)

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(1000, 128, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0][:, -1]


class Subgraph(nn.Module):
    """A subgraph of models/ as tests/workloads.cc's Subgraph describes it: in1 [B,classes]
    labels, in2 [B,features], in3 [features,classes] weights and in4 [classes] bias, all fed (no
    weights of its own), in workloads.cc's ranges."""

    batches = PEER_BATCHES
    features = classes = 0  # a subclass's
    input_names = ("in1", "in2", "in3", "in4")

    @classmethod
    def inputs(cls, batch):
        return (uniform((batch, cls.classes), -1, 1), uniform((batch, cls.features), -1, 1),
                uniform((cls.features, cls.classes), -0.05, 0.05),
                uniform((cls.classes,), -0.1, 0.1))

    @classmethod
    def flops(cls, batch):
        """workloads.cc's count: the contraction's 2·features·classes a row."""
        return 2 * cls.features * cls.classes * batch


class SeedSubgraph(Subgraph):
    """models/seed_subgraph.pbtxt, the thesis' subgraph, fetch `out`:
    Reshape(Sum(in1 * Log(Softmax(MatMul(in2, in3) + in4)), axes = []), Shape(mul)), with
    tests/workloads.cc's Seed(n) inputs: 784 features, 10 classes."""

    features, classes = 784, 10

    def forward(self, in1, in2, in3, in4):
        # The graph's ops one by one (a MatMul and an Add, not nn.Linear's fused addmm; Log of
        # Softmax, not log_softmax), so that PyTorch does the graph's work.
        mul = in1 * torch.log(torch.softmax(torch.mm(in2, in3) + in4, dim=1))
        # Sum over no axes is the identity (torch.sum over an empty dim would sum everything:
        # left out); Reshape to Shape(mul) a view.
        return mul.reshape(mul.shape)


class ReluSubgraph(Subgraph):
    """models/relu_subgraph.pbtxt, fetch `out`: Sum(in1 * Relu(MatMul(in2, in3) + in4),
    axis = 1), with tests/workloads.cc's Relu(n) inputs: 512 features, 7 classes."""

    features, classes = 512, 7

    def forward(self, in1, in2, in3, in4):
        # The graph's ops one by one, as SeedSubgraph's.
        return torch.sum(in1 * torch.relu(torch.mm(in2, in3) + in4), dim=1)


class Gemm1024(nn.Module):
    """peer_bench's gemm_1024: one MatMul `c` of a fed a [B,1024] by a fed b [1024,1024] (batch
    1024: the 1024³ GEMM), torch.mm of the two tensors."""

    batches = GEMM_BATCHES
    input_names = ("a", "b")

    @staticmethod
    def inputs(batch):
        return uniform((batch, 1024), -1, 1), uniform((1024, 1024), -1, 1)

    @staticmethod
    def flops(batch):
        return 2 * batch * 1024 * 1024

    def forward(self, a, b):
        return torch.mm(a, b)


class Dl4jMlp(nn.Module):
    """dl4j_mlp_00_frozen.pb (784-256-10): input [N,784]; MatMul and BiasAdd by l0W [784,256] and
    l0B (l0Preout), Abs (l0Out), MatMul and BiasAdd by l1W [256,10] and l1B (l1PreOut); fetch
    `output`, its Softmax."""

    image = (784,)
    batches = PEER_BATCHES

    def __init__(self):
        super().__init__()
        self.l0 = nn.Linear(784, 256)
        self.l1 = nn.Linear(256, 10)

    def forward(self, x):
        return torch.softmax(self.l1(torch.abs(self.l0(x))), dim=1)


class LvfengkunMlp(nn.Module):
    """lvfengkun_mnist_mlp_frozen.pb (a Keras Sequential): input `Input` [N,28,28]; flatten
    (Reshape to [-1,784]), dense (MatMul [784,128], BiasAdd, Relu), dropout (an Identity in the
    frozen graph: nn.Dropout in eval mode), dense_1 (MatMul [128,10], BiasAdd, Softmax); fetch
    `Identity`, the Softmax's."""

    image = (28, 28)
    batches = PEER_BATCHES

    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Flatten(),  # sequential/flatten/Reshape
            nn.Linear(784, 128), nn.ReLU(),  # sequential/dense
            nn.Dropout(),  # sequential/dropout: the identity in eval mode, as frozen
            nn.Linear(128, 10), nn.Softmax(dim=1))  # sequential/dense_1

    def forward(self, x):
        return self.layers(x)


class CppflowMlp(nn.Module):
    """cppflow_mlp_frozen.pb (a Keras model of 5-5-1): input `x` [N,5]; model/dense (MatMul
    [5,5], BiasAdd, Relu), model/dense_1 (MatMul [5,1], BiasAdd, Sigmoid); fetch `Identity`, the
    Sigmoid's."""

    image = (5,)
    batches = PEER_BATCHES

    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 1), nn.Sigmoid())

    def forward(self, x):
        return self.layers(x)


def sync():
    """Waits for the device's queued work: a CUDA call returns before its kernels end, so the
    clock is read only once the device is idle (a no-op on the CPU)."""
    if DEVICE.type == "cuda":
        torch.cuda.synchronize(DEVICE)


def time_calls(call):
    """call()'s times in seconds: a warm-up (oneDNN and cuBLAS pick and build their kernels on
    the first calls), then at least --min-runs calls and --min-time seconds, each end to end."""
    times = []
    for _ in range(3):
        call()
    sync()
    start = time.perf_counter()
    while len(times) < ARGS.min_runs or time.perf_counter() - start < ARGS.min_time:
        sync()
        t0 = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - t0)
    return times


def time_forwards(model, *inputs):
    """The forward's times in seconds, under torch.no_grad()."""
    with torch.no_grad():
        return time_calls(lambda: model(*inputs))


def time_train_steps(model, x, labels):
    """A training step's times in seconds, as time_forwards times forwards: zero the gradients,
    forward, the loss, backward, the model's optimizer's step."""
    model.train()
    optimizer = model.optimizer()
    loss_fn = nn.CrossEntropyLoss()  # class indices or probabilities: the model's labels

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(x), labels)
        loss.backward()
        optimizer.step()

    return time_calls(step)


# The training steps cnn_bench and peer_bench time.
TRAINING = {"train_deep_mnist": DeepMnist, "train_mnist_softmax": MnistSoftmax}

# The families cnn_bench registers (tests/zoo.cc names their graphs): their convolutions'
# flops counted.
MODELS = {"cnn_lenet": LeNet, "cnn_mobilenet_v1_025_128": MobileNetV1,
          "cnn_resnet_cifar10": ResNetCifar10, "cnn_openpose_mnv2_small": OpenPoseMnv2Small,
          "rnn_keras_lstm": KerasLstm}

# The forwards peer_bench registers (tests/workloads.cc's Seed, Relu and Models, and its GEMM):
# their flops counted where workloads.cc counts them (a `flops` of the class).
PEERS = {"subgraph_seed": SeedSubgraph, "subgraph_relu": ReluSubgraph, "gemm_1024": Gemm1024,
         "mlp_dl4j": Dl4jMlp, "mlp_lvfengkun": LvfengkunMlp, "mlp_cppflow": CppflowMlp}

# What bench/ort_peer.js names its results, and the ONNX opset the twins are exported at (the
# newest this torch.onnx writes).
ONNX_VARIANT = "onnxruntime"
ONNX_OPSET = 17

# What OpenBLAS picks its kernels by, besides the CPU: recorded as the process saw them.
OPENBLAS_KERNEL_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def conv_flops_each(model, x):
    """2 x the multiply-adds of each of the model's convolutions on x, in order, from each
    Conv2d's output shape: an output element is a window's dot product over
    in_channels / groups channels."""
    flops = []

    def count(module, _, output):
        window = module.kernel_size[0] * module.kernel_size[1] * module.in_channels // module.groups
        flops.append(2 * output.numel() * window)

    hooks = [m.register_forward_hook(count) for m in model.modules()
             if isinstance(m, nn.Conv2d)]
    with torch.no_grad():
        model(x)
    for hook in hooks:
        hook.remove()
    return flops


def conv_flops(model, x):
    """The forward's convolutions' flops on x."""
    return sum(conv_flops_each(model, x))


def training_conv_flops(model, x):
    """The convolutions' flops of a training step on x: each one's forward, its filter
    gradient, and its input gradient but for the first convolution, whose input needs none
    (PyTorch skips it; dfc's graph computes it, as TensorFlow's does). Each does the forward's
    multiply-adds. None for a model without convolutions: its work is not counted."""
    flops = conv_flops_each(model, x)
    return sum(3 * f for f in flops) - flops[0] if flops else None


def command_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def describe_blas():
    """The BLAS this process loaded and, for OpenBLAS, the kernels it picked: its core name
    and build (`openblas_get_corename`, `openblas_get_config`, through ctypes on the library
    /proc/self/maps names), and the OPENBLAS_ variables it saw (null: unset)."""
    torch.mm(torch.ones(2, 2), torch.ones(2, 2))  # loads the BLAS where torch loads it lazily
    out = {"library": None, "env": {v: os.environ.get(v) for v in OPENBLAS_KERNEL_VARIABLES}}
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if len(line.split()) >= 6}
    except OSError:
        return out
    libraries = sorted(p for p in paths if re.search(r"/lib(open)?blas[^/]*\.so", p))
    # Debian's openblas-pthread/libblas.so.3 and the libopenblasp it wraps: the latter first.
    openblas = sorted((p for p in libraries if "openblas" in p),
                      key=lambda p: "openblas" not in os.path.basename(p))
    out["library"] = (openblas or libraries or [None])[0]
    if openblas:
        try:
            lib = ctypes.CDLL(openblas[0])
            for name in ("openblas_get_corename", "openblas_get_config"):
                function = getattr(lib, name)
                function.restype = ctypes.c_char_p
                out[name.removeprefix("openblas_get_")] = function().decode()
        except (OSError, AttributeError) as error:
            out["error"] = str(error)
    return out


def onednn_probe():
    """The child of onednn_kernels: one forward of each CNN twin --filter selects, at its
    smallest batch, with oneDNN's verbose log on (its parent sets ONEDNN_VERBOSE)."""
    torch.set_num_threads(ARGS.threads)
    done = set()
    for family, make, batch, _ in selected_runs(MODELS):
        if family.startswith("cnn_") and family not in done:
            done.add(family)
            with torch.no_grad():
                make().eval()(uniform((batch, *make.image)))


def onednn_kernels():
    """The implementations oneDNN ran for each kind of primitive (`convolution`: `jit:avx2`,
    ...) in one forward of each selected CNN twin, and the ISA it reported, from its verbose
    log in a child process (the log is switched on when oneDNN starts); None where no CNN is
    selected or oneDNN logged nothing."""
    if DEVICE.type != "cpu" or not any(f.startswith("cnn_") for f, *_ in selected_runs(MODELS)):
        return None
    command = [sys.executable, os.path.abspath(__file__), "--onednn-probe",
               "--threads", str(ARGS.threads), "--batches", ARGS.batches, "--filter", ARGS.filter]
    # oneDNN 2.x reads ONEDNN_VERBOSE; builds before it, DNNL_VERBOSE.
    env = {**os.environ, "ONEDNN_VERBOSE": "1", "DNNL_VERBOSE": "1"}
    try:
        log = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        return {"error": str(error)}
    kernels, isa = {}, None
    for line in log.splitlines():
        fields = line.split(",")
        if not fields[0].endswith("_verbose"):
            continue
        if "info" in fields[:3] and any(f.startswith("isa:") for f in fields):
            isa = next(f for f in fields if f.startswith("isa:")).removeprefix("isa:")
        elif "exec" in fields[:3]:
            # onednn_verbose,exec,cpu,convolution,jit:avx2,...; oneDNN 3 puts "primitive" first.
            at = fields.index("exec")
            if len(fields) > at + 3 and fields[at + 1] == "cpu":
                kernels.setdefault(fields[at + 2], [])
                if fields[at + 3] not in kernels[fields[at + 2]]:
                    kernels[fields[at + 2]].append(fields[at + 3])
    if not kernels and isa is None:
        return None
    return {"isa": isa, "implementations": kernels}


def describe_torch(blas, onednn):
    """What ran, in a line: PyTorch's and Debian's versions, the BLAS and its kernels, oneDNN's
    convolutions, threads; on a GPU, the GPU and CUDA's version."""
    package = command_output(["dpkg-query", "-W", "-f=${Version}", "python3-torch"])
    if DEVICE.type == "cuda":
        # A CUDA build is not Debian's: its package's version would say nothing of what ran.
        where = f", {torch.cuda.get_device_name(DEVICE)} (CUDA {torch.version.cuda})"
    else:
        where = f" (Debian python3-torch {package})" if package else ""
        if blas.get("corename"):
            where += f", BLAS {' '.join(blas['config'].split()[:2])} ({blas['corename']} kernels)"
        else:
            where += f", BLAS {blas['library'] or 'unknown'}"
        if not torch.backends.mkldnn.is_available():
            where += ", oneDNN off"
        elif onednn and onednn.get("implementations"):
            convolutions = onednn["implementations"].get("convolution", [])
            where += (f", oneDNN convolutions {' '.join(convolutions) or 'none'}"
                      + (f" ({onednn['isa']})" if onednn.get("isa") else ""))
    return f"PyTorch {torch.__version__}{where}, {torch.get_num_threads()} threads"


def context():
    """The machine, as Google Benchmark describes it (copied from --context-from where given),
    and what ran: describe_torch's line as `peer`, with its parts in full beside it."""
    out = {"host_name": socket.gethostname(), "num_cpus": os.cpu_count()}
    if ARGS.context_from:
        with open(ARGS.context_from) as f:
            out = json.load(f).get("context", out)
    out["date"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    # This run's, not the copied one's: PyTorch's OpenMP threads spin while they wait, and on a
    # machine busy with more than they are (a build beside them) a forward can take 100x longer.
    out["load_avg"] = list(os.getloadavg())
    out["executable"] = "bench/torch_peer.py"
    blas = describe_blas()
    onednn = onednn_kernels()
    out["peer"] = describe_torch(blas, onednn)
    out["blas"] = blas
    out["onednn"] = onednn
    out["torch_config"] = torch.__config__.show()
    out["torch_parallel"] = torch.__config__.parallel_info()
    return out


def result(name, times, batch, flops=None, counter="conv_GFLOP"):
    """One benchmark's entry in Google Benchmark's JSON, printed as it is made: the median time,
    with counters: the batch and, where the work is counted (flops), `counter` (its GFLOP) and
    GFLOP/s."""
    median = statistics.median(times)
    line = f"{name}: {median * 1e3:.3f} ms (median of {len(times)})"
    out = {
        "name": f"{name}/real_time", "run_name": f"{name}/real_time",
        "run_type": "iteration", "iterations": len(times),
        "real_time": median * 1e3, "cpu_time": median * 1e3, "time_unit": "ms",
        "batch": batch,
    }
    if flops is not None:
        out[counter] = flops * 1e-9
        out["GFLOP/s"] = flops * 1e-9 / median
        line += f", {flops * 1e-9 / median:.2f} {'conv ' if counter == 'conv_GFLOP' else ''}GFLOP/s"
    out.update({"mean_ms": statistics.mean(times) * 1e3,
                "min_ms": min(times) * 1e3, "max_ms": max(times) * 1e3})
    print(line, file=sys.stderr)
    return out


def selected_runs(families, variant="pytorch"):
    """The benchmarks of `families` to run: each family at those of its batches that --batches
    lists, whose name (with `variant`) --filter matches, as (family, its class, batch, name)."""
    wanted = {int(b) for b in ARGS.batches.split(",")}
    selected = re.compile(ARGS.filter)
    for family, make in families.items():
        for batch in make.batches:
            name = f"{family}/{variant}/batch:{batch}"
            if batch in wanted and selected.search(name):
                yield family, make, batch, name


def forward_inputs(make, batch):
    """A forward twin's inputs: the subgraphs and the GEMM feed every operand; the models one
    input, as workloads.cc's Model feeds a placeholder (uniform in [0, 1), the batch its first
    dimension)."""
    return make.inputs(batch) if hasattr(make, "inputs") else (uniform((batch, *make.image)),)


def forward_work(family, make, model, inputs, batch):
    """(flops, counter): the convolutions' of a zoo model, workloads.cc's count of the others
    (None where it counts none)."""
    if family in MODELS:
        return conv_flops(model, *inputs), "conv_GFLOP"
    return (make.flops(batch) if hasattr(make, "flops") else None), "GFLOP"


def check_output(family, make, output, batch):
    """Exits where a twin's output is not its graph's fetch's shape (the class's `output`, in
    NCHW), since a twin of other shapes would time other work."""
    expected = (batch, *make.output) if hasattr(make, "output") else None
    if expected is not None and tuple(output.shape) != expected:
        sys.exit(f"torch_peer.py: {family} at batch {batch}: the twin's output is "
                 f"{list(output.shape)}, its graph's {list(expected)}")


def export_onnx(directory):
    """Exports each selected forward twin at each batch with torch.onnx.export, beside the
    inputs fed and PyTorch's output on them (raw float32, C order), and writes
    DIR/manifest.json: for each, its benchmark name, batch, work (flops and counter), model file
    and its inputs' and output's names, shapes and files."""
    torch.manual_seed(7)
    os.makedirs(directory, exist_ok=True)
    entries, models = [], {}
    for family, make, batch, name in selected_runs({**MODELS, **PEERS}, ONNX_VARIANT):
        if family not in models:
            models[family] = make().eval()
        model = models[family]
        inputs = forward_inputs(make, batch)
        with torch.no_grad():
            output = model(*inputs)
        check_output(family, make, output, batch)
        flops, counter = forward_work(family, make, model, inputs, batch)
        stem = f"{family}.batch{batch}"
        names = getattr(make, "input_names", ("input",))
        with warnings.catch_warnings():
            # The exporter's notes on traced shapes: the batch is fixed in each file.
            warnings.simplefilter("ignore")
            torch.onnx.export(model, tuple(inputs), os.path.join(directory, f"{stem}.onnx"),
                              input_names=list(names), output_names=["output"],
                              opset_version=ONNX_OPSET)
        tensors = []
        for label, tensor in [*zip(names, inputs), ("output", output)]:
            file = f"{stem}.{label}.f32"
            tensor.contiguous().numpy().astype("float32").tofile(os.path.join(directory, file))
            tensors.append({"name": label, "shape": list(tensor.shape), "file": file})
        entries.append({"name": name, "family": family, "batch": batch, "model": f"{stem}.onnx",
                        "flops": flops, "counter": counter, "inputs": tensors[:-1],
                        "output": tensors[-1]})
        print(f"torch_peer.py: exported {stem}.onnx", file=sys.stderr)
    skipped = [family for family, *_ in selected_runs(TRAINING, ONNX_VARIANT)]
    if skipped:
        print(f"torch_peer.py: {', '.join(sorted(set(skipped)))}: training steps, which ONNX "
              "inference does not run: not exported", file=sys.stderr)
    with open(os.path.join(directory, "manifest.json"), "w") as f:
        json.dump({"exporter": f"torch.onnx.export of PyTorch {torch.__version__}",
                   "opset": ONNX_OPSET, "entries": entries}, f, indent=2)
        f.write("\n")


def main():
    if ARGS.onednn_probe:
        return onednn_probe()
    if ARGS.export_onnx:
        return export_onnx(ARGS.export_onnx)
    torch.set_num_threads(ARGS.threads)
    torch.manual_seed(7)
    benchmarks = []
    models = {}  # a family's model, made on its first batch to run: one for all its batches
    for family, make, batch, name in selected_runs({**MODELS, **PEERS}):
        if family not in models:
            models[family] = make().to(DEVICE).eval()
        model = models[family]
        inputs = forward_inputs(make, batch)
        with torch.no_grad():
            check_output(family, make, model(*inputs), batch)
        flops, counter = forward_work(family, make, model, inputs, batch)
        benchmarks.append(result(name, time_forwards(model, *inputs), batch, flops, counter))
    for family, make, batch, name in selected_runs(TRAINING):
        model = make().to(DEVICE)  # a fresh one at each batch: its first step from the start
        x = uniform((batch, *make.image))
        flops = training_conv_flops(model, x)
        times = time_train_steps(model, x, make.labels(batch))
        benchmarks.append(result(name, times, batch, flops))
    with open(ARGS.out, "w") as f:
        json.dump({"context": context(), "benchmarks": benchmarks}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()

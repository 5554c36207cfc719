#!/usr/bin/python3
"""The PyTorch twins of the zoo CNNs that bench/cnn_bench.cc times, timed on the same machine.

What a user would run instead of dfc on a CPU: PyTorch from Debian (python3-torch, its BLAS
OpenBLAS through libopenblas0-pthread, its convolutions oneDNN's), the model an nn.Module in
eval mode, its forward under torch.no_grad(), on the same number of threads as dfc's device.

Each twin has the layers of its TensorFlow graph with the same shapes and dtype (float32), in
PyTorch's own layout (NCHW); the weights are PyTorch's random initialisation, since the time
does not depend on them. TensorFlow's SAME padding of a stride-2 3x3 convolution on an even
input pads one row after; PyTorch's padding=1 pads one before and one after: the same output
shape and work.

Writes Google Benchmark's JSON (`--benchmark_out_format=json`), the benchmarks named as
cnn_bench names its own with the variant `pytorch` (`cnn_lenet/pytorch/batch:16`), so that
dfc_bench_report (bench/report) reads both: each time the median of the forwards timed after
a warm-up, with counters `batch`, `conv_GFLOP` (counted here from the modules' output shapes,
independently of dfc's count from the graph) and `GFLOP/s`.

  /usr/bin/python3 bench/torch_peer.py --threads 2 --out bench/results/torch_peer.json \
      --context-from bench/results/cnn_bench.json

It needs Debian's python3 (/usr/bin/python3, where python3-torch installs), not another python3
on PATH; bench/run installs python3-torch and libopenblas0-pthread when they are missing.
"""

import argparse
import datetime
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import sysconfig
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2, help="intra-op threads (default 2)")
    parser.add_argument("--out", required=True, help="the JSON file to write")
    parser.add_argument("--context-from", help="a Google Benchmark JSON file of the same run "
                        "(cnn_bench's), whose machine context is copied")
    parser.add_argument("--batches", default="1,16,64", help="comma-separated (default 1,16,64)")
    parser.add_argument("--min-time", type=float, default=1.0,
                        help="seconds of timed forwards per model and batch (default 1)")
    parser.add_argument("--min-runs", type=int, default=5, help="timed forwards at least")
    parser.add_argument("--filter", default=".",
                        help="a regex over benchmark names, as --benchmark_filter (default .)")
    return parser.parse_args()


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


class LeNet(nn.Module):
    """lenet_frozen.pb: input [N,28,28,1], fetch Lenet/fc9_1/BiasAdd (the logits, before the
    graph's last Relu)."""

    image = (1, 28, 28)

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


class DeepMnist(nn.Module):
    """deep_mnist_train.pbtxt's network (TensorFlow's "Deep MNIST for experts"): input
    [N,28,28,1], two 5x5 SAME convolutions with bias and Relu each followed by a 2x2 max pool,
    a dense layer of 1024 with Relu, dropout, a dense layer of 10; softmax cross-entropy, Adam
    at 1e-4. Timed as a training step: forward, gradients and Adam's update."""

    image = (1, 28, 28)

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


class KerasLstm(nn.Module):
    """keras_lstm_while.pb (a Keras LSTM layer of 128 units): input [N,100,1000], fetch the last
    step's output. torch.nn.LSTM of the same sizes; Keras' recurrent activation is a hard
    sigmoid where PyTorch's is the sigmoid, the same work."""

    image = (100, 1000)
    batches = (1, 64)

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(1000, 128, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0][:, -1]


def time_train_steps(model, x, labels):
    """A training step's times in seconds, as time_forwards times forwards: zero the gradients,
    forward, the loss, backward, Adam's step."""
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(x), labels)
        loss.backward()
        optimizer.step()

    times = []
    for _ in range(3):
        step()
    start = time.perf_counter()
    while len(times) < ARGS.min_runs or time.perf_counter() - start < ARGS.min_time:
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return times


# The training steps cnn_bench times, at their batch.
TRAINING = {"train_deep_mnist": (DeepMnist, 64)}

# The families cnn_bench registers (tests/zoo.cc names their graphs).
MODELS = {"cnn_lenet": LeNet, "cnn_mobilenet_v1_025_128": MobileNetV1,
          "cnn_resnet_cifar10": ResNetCifar10, "rnn_keras_lstm": KerasLstm}


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
    multiply-adds."""
    flops = conv_flops_each(model, x)
    return sum(3 * f for f in flops) - flops[0]


def time_forwards(model, x):
    """The forward's times in seconds: a warm-up (oneDNN picks and builds its kernels on the
    first calls), then at least --min-runs forwards and --min-time seconds."""
    times = []
    with torch.no_grad():
        for _ in range(3):
            model(x)
        start = time.perf_counter()
        while len(times) < ARGS.min_runs or time.perf_counter() - start < ARGS.min_time:
            t0 = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - t0)
    return times


def command_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def describe_torch():
    """What ran: PyTorch's and Debian's versions, the BLAS behind libblas.so.3, oneDNN, threads."""
    package = command_output(["dpkg-query", "-W", "-f=${Version}", "python3-torch"])
    # Debian's alternatives pick the libblas.so.3 that torch loads: OpenBLAS's once installed.
    multiarch = sysconfig.get_config_var("MULTIARCH") or "x86_64-linux-gnu"
    blas = os.path.realpath(f"/usr/lib/{multiarch}/libblas.so.3")
    return (f"PyTorch {torch.__version__}"
            + (f" (Debian python3-torch {package})" if package else "")
            + f", BLAS {blas}, oneDNN {'on' if torch.backends.mkldnn.is_available() else 'off'}"
            + f", {torch.get_num_threads()} threads")


def context():
    """The machine, as Google Benchmark describes it: copied from --context-from where given."""
    out = {"host_name": socket.gethostname(), "num_cpus": os.cpu_count()}
    if ARGS.context_from:
        with open(ARGS.context_from) as f:
            out = json.load(f).get("context", out)
    out["date"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    # This run's, not the copied one's: PyTorch's OpenMP threads spin while they wait, and on a
    # machine busy with more than they are (a build beside them) a forward can take 100x longer.
    out["load_avg"] = list(os.getloadavg())
    out["executable"] = "bench/torch_peer.py"
    out["peer"] = describe_torch()
    return out


def result(name, times, batch, flops):
    """One benchmark's entry in Google Benchmark's JSON: the median time, with counters."""
    median = statistics.median(times)
    return {
        "name": f"{name}/real_time", "run_name": f"{name}/real_time",
        "run_type": "iteration", "iterations": len(times),
        "real_time": median * 1e3, "cpu_time": median * 1e3, "time_unit": "ms",
        "batch": batch, "conv_GFLOP": flops * 1e-9, "GFLOP/s": flops * 1e-9 / median,
        "mean_ms": statistics.mean(times) * 1e3,
        "min_ms": min(times) * 1e3, "max_ms": max(times) * 1e3,
    }


def main():
    torch.set_num_threads(ARGS.threads)
    torch.manual_seed(7)
    selected = re.compile(ARGS.filter)
    benchmarks = []
    for family, make in MODELS.items():
        model = make().eval()
        for batch in [int(b) for b in ARGS.batches.split(",")]:
            if batch not in getattr(make, "batches", (batch,)):
                continue
            name = f"{family}/pytorch/batch:{batch}"
            if not selected.search(name):
                continue
            x = torch.rand(batch, *make.image)
            flops = conv_flops(model, x)
            times = time_forwards(model, x)
            median = statistics.median(times)
            print(f"{name}: {median * 1e3:.3f} ms (median of {len(times)}), "
                  f"{flops * 1e-9 / median:.2f} conv GFLOP/s", file=sys.stderr)
            benchmarks.append(result(name, times, batch, flops))
    for family, (make, batch) in TRAINING.items():
        name = f"{family}/pytorch/batch:{batch}"
        if not selected.search(name):
            continue
        model = make()
        x = torch.rand(batch, *make.image)
        labels = torch.arange(batch) * 7 % 10
        flops = training_conv_flops(model, x)
        times = time_train_steps(model, x, labels)
        median = statistics.median(times)
        print(f"{name}: {median * 1e3:.3f} ms (median of {len(times)}), "
              f"{flops * 1e-9 / median:.2f} conv GFLOP/s", file=sys.stderr)
        benchmarks.append(result(name, times, batch, flops))
    with open(ARGS.out, "w") as f:
        json.dump({"context": context(), "benchmarks": benchmarks}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()

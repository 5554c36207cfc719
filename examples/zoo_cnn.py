"""Runs a real CNN from the zoo (LeNet, a frozen TensorFlow graph) from Python: on the default
OpenCL device through dfc's generated kernels, then on dfc's reference executor, and checks that
they agree; then profiles five runs and writes the HTML profile.

  PYTHONPATH=build python3 examples/zoo_cnn.py [../shared] [profile.html]
"""
import os
import sys

import numpy as np

import dfc

shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../shared")
page = sys.argv[2] if len(sys.argv) > 2 else "lenet-profile.html"
model = os.path.join(shared, "zoo/lenet_frozen.pb")
fetch = "Lenet/fc9_1/BiasAdd"

images = np.random.default_rng(0).random((16, 28, 28, 1), dtype=np.float32)
session = dfc.Session(model)  # device="auto": a GPU if there is one, else the CPU
reference = dfc.Session(model, device="reference")

logits = session.run({"input": images}, fetch)
expected = reference.run({"input": images}, fetch)
# The zoo tests' tolerance for these CNNs: the device sums convolutions in another order.
np.testing.assert_allclose(logits, expected, rtol=1e-4, atol=1e-4)
print(f"LeNet on {session.device}: logits {logits.shape}, classes {logits.argmax(axis=1)[:8]}..., "
      f"max difference from the reference {np.abs(logits - expected).max():.2e}")

with dfc.profile() as p:
    for _ in range(5):
        session.run({"input": images}, fetch)
kernels = [r for r in p.report()["rows"] if r["category"] == "kernel"]
slowest = max(kernels, key=lambda r: r["total_ms"])
print(f"{len(kernels)} kernels; the slowest, {slowest['name']}, fuses {len(slowest['nodes'])} "
      f"graph nodes and took {slowest['ave_ms']:.3f} ms a run")
p.write_html(page, title="LeNet from Python")
print(f"wrote {page}")

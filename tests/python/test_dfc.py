"""The Python module `dfc` against the reference executor and TensorFlow-made models.

Run by CTest (python_pytest) with the module on PYTHONPATH and DFC_SHARED_DIR set; by hand:
  PYTHONPATH=build DFC_SHARED_DIR=../shared python3 -m pytest tests/python
"""
import json
import os
import sys
import threading

import numpy as np
import pytest

import dfc

SHARED = os.environ.get("DFC_SHARED_DIR", os.path.join(os.path.dirname(__file__), "../../../shared"))
SOURCE = os.path.join(os.path.dirname(__file__), "../..")
MLP = os.path.join(SHARED, "models/dl4j_mlp_00_frozen.pb")
LEXCI = os.path.join(SHARED, "zoo/savedmodel_lexci_cnn")


def mlp_input(batch=4):
    return np.load(os.path.join(SOURCE, "models/mlp_input_4x784.npy"))[:batch]


@pytest.fixture(scope="module")
def device():
    return dfc.Session(MLP, device="cpu")


@pytest.fixture(scope="module")
def reference():
    return dfc.Session(MLP, device="reference")


def test_runs_on_the_device_as_the_reference(device, reference):
    x = mlp_input()
    (got,) = device.run({"input": x}, ["output"])
    want = reference.run({"input": x}, "output")  # one name: one array
    assert isinstance(got, np.ndarray) and got.dtype == np.float32 and got.shape == (4, 10)
    # float32 softmax of a 784-256-10 MLP: the device's sums are ordered otherwise; 1e-5 is the
    # shared models' tolerance in DeviceExecutorTest.
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got.sum(axis=1), 1, rtol=1e-5)
    assert device.device != "reference" and reference.device == "reference"
    assert device.inputs == ["input"]


def test_feeds_are_taken_without_a_copy_where_they_can_be(device):
    x = mlp_input()
    assert dfc._feed_is_borrowed(x)
    assert dfc._feed_is_borrowed(x[1:3])  # a C-ordered slice is still one block
    fortran = np.asfortranarray(x)
    swapped = x.astype(x.dtype.newbyteorder(">"))
    strided = np.repeat(x, 2, axis=0)[::2]
    for converted in (fortran, swapped, strided):
        assert not dfc._feed_is_borrowed(converted)
    # Each is converted once, and computes the same.
    (want,) = device.run({"input": x}, ["output"])
    for other in (fortran, swapped, strided, x.tolist()):
        (got,) = device.run({"input": other}, ["output"])
        np.testing.assert_array_equal(got, want)
    # The run keeps no reference to the array once it returns.
    before = sys.getrefcount(x)
    device.run({"input": x}, ["output"])
    assert sys.getrefcount(x) == before


def test_outputs_are_arrays_of_their_own(device):
    x = mlp_input()
    (a,) = device.run({"input": x}, ["output"])
    want = a.copy()
    a[:] = -1  # writable, and writing it changes nothing dfc holds
    (b,) = device.run({"input": x}, ["output"])
    np.testing.assert_array_equal(b, want)


def test_errors_raise_dfc_error_with_dfcs_message(device):
    x = mlp_input()
    with pytest.raises(dfc.Error, match=r'placeholder "input" expects float32\[\?,784\]'):
        device.run({"input": x.astype(np.float64)}, ["output"])
    with pytest.raises(dfc.Error, match='"nope" names no node'):
        device.run({"nope": x}, ["output"])
    with pytest.raises(dfc.Error, match="input:7"):
        device.run({"input": x}, ["input:7"])
    with pytest.raises(dfc.Error, match="complex"):
        device.run({"input": x.astype(np.complex64)}, ["output"])
    with pytest.raises(dfc.Error, match="no-such-file.pb"):
        dfc.Session("no-such-file.pb")
    assert issubclass(dfc.Error, RuntimeError)


def test_runs_from_threads_at_once(device, reference):
    x = mlp_input()
    want = reference.run({"input": x}, "output")
    results = [None] * 6

    def run(k):
        session = device if k % 2 == 0 else reference
        results[k] = session.run({"input": x}, "output")

    threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_allclose(r, want, rtol=1e-5, atol=1e-5)


def test_compile_then_open_plan(tmp_path, reference):
    out = tmp_path / "plan"
    summary = dfc.compile(MLP, device="amd", out_dir=str(out))
    assert "compiled" in summary and (out / "plan.json").exists()
    assert list((out / "kernels").glob("*.cl"))
    plan = dfc.open_plan(str(out), device="cpu")
    x = mlp_input(2)
    np.testing.assert_allclose(plan.run({"input": x}, "output"),
                               reference.run({"input": x}, "output"), rtol=1e-5, atol=1e-5)
    with pytest.raises(dfc.Error, match="usage|device|profile"):
        dfc.compile(MLP, device="no-such-device", out_dir=str(tmp_path / "bad"))


def test_a_saved_model_by_its_signature_keys():
    image = np.load(os.path.join(LEXCI, "TNG50-1_halpha.npy")).astype(np.float32)
    x = image[np.newaxis, :24, :24, np.newaxis] if image.ndim == 2 else image[:1, :24, :24]
    device = dfc.Session(LEXCI, device="cpu")
    reference = dfc.Session(LEXCI, device="reference")
    assert device.inputs == ["input0"]
    got = device.run({"input0": x}, "subtract49")
    want = reference.run({"input0": x}, "subtract49")
    # A 17-convolution float32 network: zoo_test's tolerance for it (1e-4).
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_profile_gives_the_report_a_trace_and_a_page(tmp_path, device):
    x = mlp_input()
    with dfc.profile() as p:
        for _ in range(3):
            device.run({"input": x}, ["output"])
    report = p.report()
    kernels = [r for r in report["rows"] if r["category"] == "kernel"]
    assert kernels and all(r["calls"] == 3 and r["nodes"] for r in kernels)
    assert any(r["category"] == "node" and r["name"] == "MatMul" for r in report["rows"])
    assert sum(1 for r in report["rows"] if r["category"] == "span" and r["name"] == "step") == 1
    assert report["summary"]["kernel_ms"] > 0
    assert report["kernel_events"] == 3 * len(kernels)

    trace = tmp_path / "trace.json"
    p.write_trace(str(trace))
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("args", {}).get("kind") == "kernel" for e in events)

    page = tmp_path / "profile.html"
    p.write_html(str(page), title="MLP")
    html = page.read_text()
    data = html.split('<script type="application/json" id="dfc-data">')[1].split("</script>")[0]
    embedded = json.loads(data)
    assert embedded["title"] == "MLP"
    assert len([e for e in embedded["device"] if e["kind"] == "kernel"]) == 3 * len(kernels)
    assert "http://" not in html and "https://" not in html and "<link" not in html


def test_profiles_do_not_nest_and_are_read_after_their_block(device):
    p = dfc.profile()
    with pytest.raises(dfc.Error, match="after its `with` block"):
        p.report()
    with p:
        with pytest.raises(dfc.Error, match="already recording"):
            with dfc.profile():
                pass
    assert p.report()["rows"] is not None

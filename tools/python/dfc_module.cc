// The Python module `dfc` (pybind11): a graph run on NumPy arrays by the same sessions as the
// C++ runtime API (runtime/device_session.h) or the reference executor, `dfc compile` ahead of
// time, compiled plans opened, and the profiler as a context manager.
//
//   import dfc, numpy as np
//   session = dfc.Session("model.pb")                      # or a SavedModel directory
//   (y,) = session.run({"input": x}, ["output"])
//   with dfc.profile() as p:
//       session.run({"input": x}, ["output"])
//   p.write_html("profile.html")
//
// Errors raise dfc.Error (a RuntimeError) carrying dfc's message. A run releases the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/dtype.h"
#include "graph/feed.h"
#include "graph/loader.h"
#include "graph/saved_model.h"
#include "graph/tensor.h"
#include "runtime/device_session.h"
#include "runtime/open_model.h"
#include "runtime/profiler/chrome_trace.h"
#include "runtime/profiler/html_profile.h"
#include "runtime/profiler/profiler.h"
#include "runtime/profiler/report.h"
#include "runtime/reference/session.h"
#include "tools/cli.h"

namespace py = pybind11;

namespace dfc::python {
namespace {

// dfc.Error: every error dfc reports, with its message.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void Check(const absl::Status& status) {
  if (!status.ok()) throw Error(std::string(status.message()));
}

template <typename T>
T Unwrap(absl::StatusOr<T> value) {
  Check(value.status());
  return *std::move(value);
}

// The dfc dtype of a NumPy one, where dfc computes with it: NumPy's names are dfc's
// (DTypeName), bfloat16 aside, which NumPy lacks.
std::optional<DType> DTypeOfNumpy(const py::dtype& d) {
  absl::StatusOr<DType> dtype = DTypeFromName(d.attr("name").cast<std::string>());
  if (!dtype.ok() || !IsSupported(*dtype)) return std::nullopt;
  return *dtype;
}

// The NumPy dtype of a dfc one it computes with.
py::dtype NumpyDType(DType d) { return py::dtype(std::string(DTypeName(d))); }

// The tensor of a feed: a C-ordered array of a shared dtype in native byte order is taken
// without a copy, its array kept alive by the tensor; anything else (a list, a strided view,
// a swapped byte order) is converted once first.
Tensor FeedTensor(const std::string& name, const py::handle& value) {
  py::array array = py::array::ensure(value, py::array::c_style);
  if (!array) {
    PyErr_Clear();
    throw Error(absl::StrCat("feed \"", name,
                             "\": expected a NumPy array or what converts to one, got ",
                             std::string(py::str(py::type::handle_of(value).attr("__name__")))));
  }
  if (!array.dtype().attr("isnative").cast<bool>()) {
    array = array.attr("astype")(array.dtype().attr("newbyteorder")("="));
  }
  const std::optional<DType> dtype = DTypeOfNumpy(array.dtype());
  if (!dtype) {
    throw Error(absl::StrCat("feed \"", name, "\": NumPy dtype ",
                             std::string(py::str(array.dtype())),
                             " is not one dfc computes with (float16/32/64, int8..64, uint8..64, "
                             "bool)"));
  }
  Shape shape;
  for (py::ssize_t k = 0; k < array.ndim(); ++k) shape.push_back(array.shape(k));
  // Released under the GIL, from whichever thread drops the last tensor over the bytes.
  auto* held = new py::object(array);
  std::shared_ptr<const void> owner(held, [](const void* p) {
    py::gil_scoped_acquire gil;
    delete static_cast<const py::object*>(p);
  });
  return Unwrap(Tensor::Borrowed(*dtype, std::move(shape), std::move(owner), array.data(),
                                 static_cast<size_t>(array.nbytes())));
}

// A fetched tensor as a new NumPy array (a copy: the tensor's buffer may be one dfc keeps, a
// constant's). bfloat16, which NumPy lacks, widens exactly to float32; strings become bytes.
py::object ToNumpy(const Tensor& t) {
  const std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  if (t.dtype() == DType::kString) {
    py::list items;
    for (const std::string& s : t.strings()) items.append(py::bytes(s));
    return py::module_::import("numpy").attr("array")(items, "object").attr("reshape")(shape);
  }
  if (t.dtype() == DType::kBFloat16) {
    py::array_t<float> out(shape);
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      out.mutable_data()[i] = static_cast<float>(t.ElementAsDouble(i));
    }
    return out;
  }
  if (!IsSupported(t.dtype())) {
    throw Error(absl::StrCat("a fetched ", t.DebugType(), " has no NumPy counterpart"));
  }
  py::array out(NumpyDType(t.dtype()), shape);
  if (t.byte_size() > 0) std::memcpy(out.mutable_data(), t.raw_data(), t.byte_size());
  return out;
}

std::vector<std::string> FetchNames(const py::object& fetches, bool* single) {
  *single = py::isinstance<py::str>(fetches);
  if (*single) return {fetches.cast<std::string>()};
  if (fetches.is_none()) return {};
  return fetches.cast<std::vector<std::string>>();
}

// A graph run many times: on an OpenCL device through DeviceSession, or on the reference
// executor (device="reference"), the oracle everything else is checked against.
class Session {
 public:
  // `path`: a GraphDef (.pb, .pbtxt), a SavedModel directory (fed and fetched by its
  // signature's keys or by tensor names; its variables restored first) or, with `plan`, a
  // directory `dfc compile` wrote.
  Session(const std::string& path, const std::string& device, const std::string& signature,
          bool plan) {
    model_ = std::make_unique<const OpenModel>(Unwrap(OpenModel::Open(path, signature)));
    if (plan && !model_->is_plan()) throw Error(absl::StrCat(path, " is not a plan directory"));
    if (!plan && model_->is_plan()) {
      throw Error(absl::StrCat(path,
                               " is a directory but no SavedModel; a plan opens with "
                               "plan=True"));
    }
    py::gil_scoped_release release;
    if (device == "reference") {
      if (plan) throw Error("a plan runs on a device, not on the reference executor");
      reference_ = std::make_unique<reference::Session>(model_->graph());
    } else {
      device_ = Unwrap(
          model_->NewDeviceSession({.device = device, .executor = {.warnings = &std::cerr}}));
    }
    if (!model_->inits().empty()) {
      absl::StatusOr<std::vector<Tensor>> restored = RunTensors({}, {}, model_->inits());
      if (!restored.ok()) {
        throw Error(
            absl::StrCat("restoring the SavedModel's variables: ", restored.status().message()));
      }
    }
  }

  // run(feeds, fetches, targets): the fetched values as new NumPy arrays, a list in the order of
  // `fetches`, or one array where `fetches` is one name.
  py::object Run(const py::dict& feeds_in, const py::object& fetches_in,
                 const std::vector<std::string>& targets) {
    std::vector<Feed> feeds;
    for (const auto& [key, value] : feeds_in) {
      const std::string name = py::str(key);
      Feed feed = Unwrap(ParseFeed(name, Tensor()));
      const Signature* signature = model_->signature();
      for (const SignatureTensor& in : signature != nullptr ? signature->inputs : kNoTensors) {
        if (feed.id.index == 0 && feed.id.node == in.key) feed.id = in.tensor;
      }
      feed.value = FeedTensor(name, AsPlaceholderType(feed.id, value));
      feeds.push_back(std::move(feed));
    }
    bool single = false;
    std::vector<TensorId> ids;
    for (const std::string& name : FetchNames(fetches_in, &single)) {
      ids.push_back(Unwrap(TensorId::Parse(name)));
    }
    model_->UseSignatureNames(feeds, ids);
    std::vector<std::string> fetches;
    for (const TensorId& id : ids) fetches.push_back(id.ToString());
    absl::StatusOr<std::vector<Tensor>> out;
    {
      py::gil_scoped_release release;
      profiler::RecordEvent step("step");
      out = RunTensors(feeds, fetches, targets);
    }
    Check(out.status());
    if (single) return ToNumpy(out->front());
    py::list values;
    for (const Tensor& t : *out) values.append(ToNumpy(t));
    return values;
  }

  std::string device() const {
    return device_ != nullptr ? device_->executor().device_name() : "reference";
  }

  std::vector<std::string> inputs() const {
    std::vector<std::string> names;
    if (const Signature* signature = model_->signature()) {
      for (const SignatureTensor& t : signature->inputs) names.push_back(t.key);
      return names;
    }
    for (const Node& node : graph().nodes()) {
      if (node.op == "Placeholder") names.push_back(node.name);
    }
    return names;
  }

 private:
  absl::StatusOr<std::vector<Tensor>> RunTensors(const std::vector<Feed>& feeds,
                                                 const std::vector<std::string>& fetches,
                                                 const std::vector<std::string>& targets) {
    if (device_ != nullptr) return device_->Run(feeds, fetches, targets);  // serialises itself
    std::lock_guard<std::mutex> lock(reference_mutex_);
    return reference_->Run(feeds, fetches, targets);
  }

  const Graph& graph() const {
    return device_ != nullptr ? *device_->graph() : reference_->graph();
  }

  // A feed that is not yet an array (a list, a Python number) becomes one of its placeholder's
  // dtype, as TensorFlow's Session.run converts it; an array keeps its own, checked as given.
  py::object AsPlaceholderType(const TensorId& id, const py::handle& value) const {
    const auto same = py::reinterpret_borrow<py::object>(value);
    if (py::isinstance<py::array>(value)) return same;
    const Node* node = graph().FindNode(id.node);
    if (node == nullptr || node->op != "Placeholder") return same;
    absl::StatusOr<DType> dtype = node->GetType("dtype");
    if (!dtype.ok() || !IsSupported(*dtype)) return same;
    return py::module_::import("numpy").attr("asarray")(value, NumpyDType(*dtype));
  }

  static inline const std::vector<SignatureTensor> kNoTensors;

  std::unique_ptr<DeviceSession> device_;
  std::unique_ptr<reference::Session> reference_;
  std::mutex reference_mutex_;  // the reference executor runs one graph at a time
  std::unique_ptr<const OpenModel> model_;
};

// compile(path, device, out_dir, ...): `dfc compile`; returns what the command prints.
std::string Compile(const std::string& path, const std::string& device, const std::string& out_dir,
                    bool tune, const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets, const std::vector<std::string>& init,
                    std::optional<int> batch) {
  std::vector<std::string> argv = {path, "--device", device, "--out", out_dir};
  for (const std::string& f : fetches) argv.insert(argv.end(), {"--fetch", f});
  for (const std::string& t : targets) argv.insert(argv.end(), {"--target", t});
  for (const std::string& i : init) argv.insert(argv.end(), {"--init", i});
  if (tune) argv.push_back("--tune");
  if (batch) argv.insert(argv.end(), {"--batch", std::to_string(*batch)});
  const cli::Args args = Unwrap(cli::ParseArgs(argv, cli::CompileFlags()));
  std::ostringstream out;
  py::gil_scoped_release release;
  Check(cli::CompileWithArgs(args, out, &std::cerr));
  return out.str();
}

// `with dfc.profile() as p:` records every kernel, transfer and host span of the runs inside;
// after the block, p.report(), p.write_trace(path) and p.write_html(path).
class Profile {
 public:
  Profile& Enter() {
    if (profiler::GetState() != profiler::State::kDisabled) {
      throw Error("the profiler is already recording (profiles do not nest)");
    }
    Check(profiler::Collect().status());  // drops what was recorded before the block
    profiler::SetState(profiler::State::kHostAndDevice);
    return *this;
  }

  void Exit(const py::args&) {
    profiler::SetState(profiler::State::kDisabled);
    py::gil_scoped_release release;
    profile_ = Unwrap(profiler::Collect());
  }

  // The report as data (profiler::ReportJson's fields): {"summary": {...}, "rows": [...],
  // "notes": [...]}, rows per kernel, transfer, span, mark and graph node; and
  // "kernel_events", the kernel launches recorded.
  py::dict Report(const std::string& sort) const {
    const profiler::Report report =
        Unwrap(profiler::BuildReport(Recorded(), {.sort_by = sort, .by_node = true}));
    py::dict out = py::module_::import("json").attr("loads")(profiler::ReportJson(report));
    out["kernel_events"] = CountKernels();
    return out;
  }

  void WriteTrace(const std::string& path) const {
    Check(profiler::WriteChromeTrace(Recorded(), path));
  }
  void WriteHtml(const std::string& path, const std::string& title) const {
    Check(profiler::WriteHtmlProfile(Recorded(), path, {.title = title}));
  }

 private:
  const profiler::Profile& Recorded() const {
    if (!profile_) throw Error("the profile is read after its `with` block ends");
    return *profile_;
  }
  int64_t CountKernels() const {
    int64_t n = 0;
    for (const profiler::DeviceEvent& e : Recorded().device) {
      n += e.info.kind == profiler::DeviceEventKind::kKernel;
    }
    return n;
  }

  std::optional<profiler::Profile> profile_;
};

}  // namespace
}  // namespace dfc::python

PYBIND11_MODULE(dfc, m) {
  using namespace dfc::python;
  namespace py = pybind11;
  m.doc() =
      "dfc: TensorFlow graphs compiled to fused OpenCL kernels, run on NumPy arrays.\n\n"
      "  session = dfc.Session('model.pb')\n"
      "  (y,) = session.run({'input': x}, ['output'])";
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);

  py::class_<Session>(m, "Session",
                      "A graph (a GraphDef file or a SavedModel directory) run many times.\n"
                      "device: auto|cpu|gpu|amd|nvidia|intel|arm (an OpenCL device), or reference\n"
                      "(the host reference executor). signature: a SavedModel's signature.")
      .def(py::init([](const std::string& path, const std::string& device,
                       const std::string& signature) {
             return std::make_unique<Session>(path, device, signature, false);
           }),
           py::arg("path"), py::arg("device") = "auto", py::arg("signature") = "serving_default")
      .def("run", &Session::Run, py::arg("feeds"), py::arg("fetches"),
           py::arg("targets") = std::vector<std::string>{},
           "Runs the graph: feeds maps tensor names (or a signature's keys) to arrays; returns\n"
           "the fetched tensors as NumPy arrays (a list, or one array for one name).")
      .def_property_readonly("device", &Session::device, "The device the session runs on.")
      .def_property_readonly("inputs", &Session::inputs,
                             "The placeholders (a SavedModel's signature keys) to feed.");

  m.def(
      "open_plan",
      [](const std::string& dir, const std::string& device) {
        return std::make_unique<Session>(dir, device, "", true);
      },
      py::arg("dir"), py::arg("device") = "auto",
      "Opens a plan `dfc compile` wrote (its initialisers run once) as a Session.");
  m.def("compile", &Compile, py::arg("path"), py::arg("device") = "amd", py::arg("out_dir"),
        py::arg("tune") = false, py::arg("fetches") = std::vector<std::string>{},
        py::arg("targets") = std::vector<std::string>{},
        py::arg("init") = std::vector<std::string>{}, py::arg("batch") = std::nullopt,
        "`dfc compile`: writes the plan and OpenCL kernels for `device` to out_dir; returns\n"
        "the command's summary.");

  py::class_<Profile>(m, "Profile", "What a `with dfc.profile()` block recorded.")
      .def("__enter__", &Profile::Enter, py::return_value_policy::reference)
      .def("__exit__", &Profile::Exit)
      .def("report", &Profile::Report, py::arg("sort") = "total",
           "The report as data: summary and rows per kernel, transfer, span and graph node.")
      .def("write_trace", &Profile::WriteTrace, py::arg("path"),
           "Writes a Chrome trace (ui.perfetto.dev); a path ending in .gz is compressed.")
      .def("write_html", &Profile::WriteHtml, py::arg("path"), py::arg("title") = "dfc profile",
           "Writes the profile as one self-contained HTML file.");
  m.def(
      "_feed_is_borrowed",
      [](const py::object& value) {
        const dfc::Tensor t = FeedTensor("value", value);
        return py::isinstance<py::array>(value) &&
               t.raw_data() == py::reinterpret_borrow<py::array>(value).data();
      },
      "For tests: whether a feed of `value` would be taken without a copy.");
  m.def(
      "profile", [] { return std::make_unique<Profile>(); },
      "Records the runs inside a `with` block: `with dfc.profile() as p: ...`.");
}

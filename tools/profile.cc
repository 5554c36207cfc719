// `dfc profile`: runs a graph (or a plan) K times on the device with the event profiler on,
// after W warm-up runs that build its kernels, then prints the profiler's report and writes a
// Chrome trace: each step, each execution unit inside it, each kernel's launch on the host
// linked to the kernel on the device, and the transfers.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "runtime/bandwidth.h"
#include "runtime/device_session.h"
#include "runtime/open_model.h"
#include "runtime/plan.h"
#include "runtime/profiler/chrome_trace.h"
#include "runtime/profiler/html_profile.h"
#include "runtime/profiler/profiler.h"
#include "runtime/profiler/report.h"
#include "tools/cli.h"

namespace dfc::cli {
namespace {

constexpr char kProfileUsage[] =
    "usage: dfc profile GRAPH|PLAN_DIR|SAVED_MODEL_DIR [--fetch T[,T...]]\n"
    "               [--feed NAME=FILE.npy]... [--target NODE]... [--init NODE]...\n"
    "               [--init-variables] [--batch N]\n"
    "               [--steps K] [--warmup W] [--trace FILE] [--html FILE] [--report]\n"
    "               [--sort COLUMN] [--by-node] [--max-events N]\n"
    "               [--device auto|cpu|gpu|amd|nvidia|intel|arm] [--platform N]\n"
    "  --fetch, --target, --init, --init-variables, --feed  as for `dfc run`; with no\n"
    "            --fetch and no --target, everything the graph computes, its initialisers\n"
    "            run once first (a plan: its fetches and targets)\n"
    "  --batch   the unknown dimensions of placeholders not fed, which get seeded random\n"
    "            values in [-1, 1) (default 100)\n"
    "  --steps   profiled runs (default 10); --warmup  runs before them, not profiled, that\n"
    "            build the kernels (default 1)\n"
    "  --trace   write a Chrome trace (chrome://tracing, ui.perfetto.dev); .gz compresses it\n"
    "  --html    write the profile as one self-contained HTML page: a timeline to zoom from the\n"
    "            whole run to a step to a cluster's kernels, each kernel's fused graph nodes,\n"
    "            and the report's tables, sortable\n"
    "  --report  print the report (the default without --trace and --html): per kernel,\n"
    "            transfer, span\n"
    "  --sort    the report's order: calls, total, min, max, ave, ratio, gbps, gflops, floor,\n"
    "            work (the operations a kernel performs over its graph nodes', each at\n"
    "            least what its stores are worth)\n"
    "            (descending) or name (default total)\n"
    "  --by-node  add rows per graph node: each fused kernel's time shared by an estimate of\n"
    "            its nodes' work (flops and bytes)\n"
    "  --max-events  the most events recorded and written (default 1000000)\n";

}  // namespace

int Profile(const std::vector<std::string>& argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, {{"fetch", true, true},
                                               {"feed", true, true},
                                               {"target", true, true},
                                               {"init", true, true},
                                               {"init-variables"},
                                               {"batch", true},
                                               {"steps", true},
                                               {"warmup", true},
                                               {"trace", true},
                                               {"html", true},
                                               {"report"},
                                               {"sort", true},
                                               {"by-node"},
                                               {"max-events", true},
                                               {"device", true},
                                               {"platform", true},
                                               {"signature", true}});
  if (!args.ok()) return ReportUsage(std::string(args.status().message()), kProfileUsage);
  if (args->positional.size() != 1)
    return ReportUsage("expected one GRAPH or PLAN_DIR", kProfileUsage);
  absl::StatusOr<int> steps = CountFlag(*args, "steps", 10, 1);
  absl::StatusOr<int> warmup = CountFlag(*args, "warmup", 1, 0);
  absl::StatusOr<int> batch = CountFlag(*args, "batch", 100, 1);
  absl::StatusOr<int> max_events = CountFlag(*args, "max-events", 1'000'000, 1);
  absl::StatusOr<int> platform = PlatformIndex(*args);
  for (const absl::Status& s :
       {steps.status(), warmup.status(), batch.status(), max_events.status(), platform.status()}) {
    if (!s.ok()) return ReportUsage(std::string(s.message()), kProfileUsage);
  }
  absl::StatusOr<std::vector<Feed>> given = ReadFeeds(*args);
  if (!given.ok()) return ReportFeedsError(given.status(), kProfileUsage);

  const std::string& source = args->positional[0];
  absl::StatusOr<OpenModel> model =
      OpenModel::Open(source, args->Get("signature", "serving_default"));
  if (!model.ok()) return ReportError(model.status());
  DeviceSession::Options options{.device = args->Get("device", "auto"),
                                 .platform = *platform,
                                 .executor = {.warnings = &std::cerr}};
  absl::StatusOr<std::unique_ptr<DeviceSession>> session =
      model->NewDeviceSession(std::move(options));
  if (!session.ok()) return ReportError(session.status());
  const Graph& graph = *(*session)->graph();

  std::vector<Feed> feeds = *std::move(given);
  std::vector<std::string> targets = args->All("target");
  std::vector<std::string> inits = args->All("init");
  absl::StatusOr<std::vector<TensorId>> ids = FetchList(*args);
  if (!ids.ok()) return ReportUsage(std::string(ids.status().message()), kProfileUsage);
  // A SavedModel's variables restored first; fed and fetched by its signature's keys.
  inits.insert(inits.begin(), model->inits().begin(), model->inits().end());
  model->UseSignatureNames(feeds, *ids);
  if (ids->empty() && targets.empty()) {
    if (const Plan* plan = (*session)->plan(); plan != nullptr) {
      *ids = plan->spec.fetches;  // the plan ran its initialisers as it opened
      targets = plan->spec.targets;
    } else {
      // Everything the graph computes, its initialisers run once first, as `dfc compile`.
      DefaultFetches(graph, *ids, targets);
      for (std::string& node : SplitInitialisers(graph, targets)) inits.push_back(std::move(node));
    }
  }
  if (absl::Status added = AddVariableInitialisers(*args, graph, inits); !added.ok()) {
    return ReportError(added);
  }
  std::vector<std::string> fetches;
  for (const TensorId& id : *ids) fetches.push_back(id.ToString());

  std::set<std::string> fed;
  for (const Feed& f : feeds) fed.insert(f.id.node);
  // A SavedModel's: only the signature's inputs are fed (not the saver's file name).
  if (const Signature* signature = model->signature()) {
    for (int i = 0; i < graph.num_nodes(); ++i) fed.insert(graph.node(i).name);
    for (const SignatureTensor& in : signature->inputs) {
      if (!absl::c_any_of(feeds, [&](const Feed& f) { return f.id.node == in.tensor.node; })) {
        fed.erase(in.tensor.node);
      }
    }
  }
  absl::StatusOr<std::vector<Feed>> random = RandomFeeds(graph, *batch, fed);
  if (!random.ok()) return ReportError(random.status());
  for (auto& f : *random) feeds.push_back(std::move(f));

  DeviceSession& device = **session;
  if (!inits.empty()) {
    absl::StatusOr<std::vector<Tensor>> init = device.Run({}, {}, inits);
    if (!init.ok()) {
      return ReportError(
          absl::Status(init.status().code(), absl::StrCat("--init: ", init.status().message())));
    }
  }
  auto step = [&](int k) -> absl::Status {
    absl::StatusOr<std::vector<Tensor>> out = device.Run(feeds, fetches, targets);
    if (out.ok()) return absl::OkStatus();
    return absl::Status(out.status().code(),
                        absl::StrCat("step ", k, ": ", out.status().message()));
  };
  for (int k = 1; k <= *warmup; ++k) {
    if (absl::Status s = step(k); !s.ok()) return ReportError(s);
  }
  profiler::SetEventCap(*max_events);
  profiler::SetState(profiler::State::kHostAndDevice);
  for (int k = 1; k <= *steps; ++k) {
    profiler::RecordEvent span("step");
    if (absl::Status s = step(*warmup + k); !s.ok()) {
      profiler::SetState(profiler::State::kDisabled);
      return ReportError(s);
    }
  }
  profiler::SetState(profiler::State::kDisabled);
  absl::StatusOr<profiler::Profile> profile = profiler::Collect();
  if (!profile.ok()) return ReportError(profile.status());

  const auto wrote = [&](const std::string& path) {
    std::cerr << "dfc: wrote " << path << ": " << profile->host.size() << " host and "
              << profile->device.size() << " device events of " << *steps << " steps\n";
  };
  if (args->Has("trace")) {
    const std::string path = args->Get("trace");
    if (absl::Status s = profiler::WriteChromeTrace(*profile, path, {.max_events = *max_events});
        !s.ok()) {
      return ReportError(s);
    }
    wrote(path);
  }
  const bool report_asked = args->Has("report") || (!args->Has("trace") && !args->Has("html"));
  absl::StatusOr<double> bandwidth = absl::UnavailableError("not measured");
  if (report_asked || args->Has("html")) {
    bandwidth = MeasureReadBandwidth(device.executor().context());
  }
  if (args->Has("html")) {
    const std::string path = args->Get("html");
    const profiler::HtmlOptions html{
        .title = absl::StrCat("dfc profile: ", *steps, " steps of ",
                              std::filesystem::path(source).filename().string()),
        .read_bandwidth_gbps = bandwidth.ok() ? *bandwidth * 1e-9 : 0};
    if (absl::Status s = profiler::WriteHtmlProfile(*profile, path, html); !s.ok()) {
      return ReportError(s);
    }
    wrote(path);
  }
  if (report_asked) {
    absl::StatusOr<profiler::Report> report = profiler::BuildReport(
        *profile, {.sort_by = args->Get("sort", "total"),
                   .by_node = args->Has("by-node"),
                   .read_bandwidth_gbps = bandwidth.ok() ? *bandwidth * 1e-9 : 0});
    if (!report.ok()) return ReportUsage(std::string(report.status().message()), kProfileUsage);
    std::cout << "dfc profile: " << *steps << " steps of " << source << " on "
              << device.executor().device_name() << " (read bandwidth "
              << (bandwidth.ok() ? absl::StrCat(*bandwidth * 1e-9, " GB/s") : "not measured")
              << ")\n"
              << profiler::FormatReport(*report);
  }
  return kExitOk;
}

}  // namespace dfc::cli

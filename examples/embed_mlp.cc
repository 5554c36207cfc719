// Embedding dfc: load a frozen TensorFlow MLP, or the plan `dfc compile` made of it, and run it
// on the default OpenCL device, once batch by batch and then from several threads at once.
//
//   embed_mlp MODEL.pb|PLAN_DIR INPUT_NODE OUTPUT_NODE FEATURES
//
// Exits 0 when every concurrent run gives exactly the result of its sequential twin (the same
// kernels in the same order: any difference would be a race) and, for a plan, when no kernel
// had to be generated. The values themselves are
// checked against the reference executor by dfc's tests.
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/device_session.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: embed_mlp MODEL.pb|PLAN_DIR INPUT_NODE OUTPUT_NODE FEATURES\n";
    return 2;
  }
  const std::string model = argv[1], input = argv[2], output = argv[3];
  const int64_t features = std::stoll(argv[4]);

  // A directory is a compiled plan: its kernels are built, none is generated.
  const bool plan = std::filesystem::is_directory(model);
  absl::StatusOr<std::unique_ptr<dfc::DeviceSession>> session =
      plan ? dfc::DeviceSession::OpenPlan(model, {.device = "auto"})
           : dfc::DeviceSession::Open(model, {.device = "auto"});
  if (!session.ok()) {
    std::cerr << "embed_mlp: " << session.status() << "\n";
    return 1;
  }
  // Four threads, each with its own batch size, share the session (it locks inside).
  const std::vector<int64_t> batches = {1, 5, 16, 33};
  std::vector<dfc::Tensor> inputs, results(batches.size());
  std::vector<absl::Status> statuses(batches.size());
  for (int64_t batch : batches) {
    dfc::Tensor x = dfc::Tensor::Zeros(dfc::DType::kFloat, {batch, features});
    std::mt19937 rng(static_cast<unsigned>(batch));
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (float& v : x.mutable_flat<float>()) v = uniform(rng);
    inputs.push_back(std::move(x));
  }
  std::vector<std::thread> threads;
  for (size_t t = 0; t < batches.size(); ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<std::vector<dfc::Tensor>> out =
          (*session)->Run({{{input}, inputs[t]}}, {output});
      if (out.ok()) {
        results[t] = (*out)[0];
      } else {
        statuses[t] = out.status();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  int wrong = 0;
  for (size_t t = 0; t < batches.size(); ++t) {
    absl::StatusOr<std::vector<dfc::Tensor>> sequential =
        (*session)->Run({{{input}, inputs[t]}}, {output});
    if (!statuses[t].ok() || !sequential.ok()) {
      std::cerr << "embed_mlp: batch " << batches[t] << ": "
                << (statuses[t].ok() ? sequential.status() : statuses[t]) << "\n";
      ++wrong;
      continue;
    }
    const bool same = results[t].BitwiseEqual((*sequential)[0]);
    std::cout << "batch " << batches[t] << ": " << results[t].DebugType() << " "
              << results[t].Preview(4) << (same ? "" : "  DIFFERS from the sequential run") << "\n";
    wrong += same ? 0 : 1;
  }
  const int64_t generated = (*session)->executor().kernels_generated();
  std::cout << "ran on " << (*session)->executor().device_name() << "; " << generated
            << " kernels generated\n";
  if (plan && generated > 0) {
    std::cerr << "embed_mlp: the plan's runs generated kernels instead of using the plan's\n";
    ++wrong;
  }
  return wrong == 0 ? 0 : 1;
}

// The tuning database (see tuning_db.h).
#include "runtime/tuning_db.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/printer.h"
#include "nlohmann/json.hpp"
#include "runtime/opencl/program_cache.h"

namespace dfc {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr int kFormat = 1;

std::string Fnv1aHex(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return absl::StrFormat("%016x", h);
}

absl::Status Malformed(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": not a dfc tuning database (", what, "); remove it to start afresh"));
}

}  // namespace

absl::StatusOr<TuningDb> TuningDb::Load(const std::string& path) {
  TuningDb db;
  db.path_ = path;
  std::ifstream in(path);
  if (!in) return db;  // none yet
  std::stringstream text;
  text << in.rdbuf();
  const json root = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!root.is_object() || root.value("format", 0) != kFormat) {
    return Malformed(path, absl::StrCat("no \"format\": ", kFormat));
  }
  const auto entries = root.find("entries");
  if (entries == root.end() || !entries->is_array()) return Malformed(path, "no \"entries\" array");
  for (const json& e : *entries) {
    if (!e.is_object() || !e.contains("cluster") || !e["cluster"].is_string() ||
        !e.contains("device") || !e["device"].is_string() || !e.contains("bucket") ||
        !e["bucket"].is_number_integer() || !e.contains("rules") || !e["rules"].is_array()) {
      return Malformed(path, "an entry without cluster, device, bucket and rules");
    }
    TuningEntry entry{.cluster = e["cluster"].get<std::string>(),
                      .device = e["device"].get<std::string>(),
                      .bucket = e["bucket"].get<int64_t>(),
                      .work_group_size = e.value("work_group_size", -1),
                      .median_ms = e.value("median_ms", 0.0),
                      .default_ms = e.value("default_ms", 0.0)};
    for (const json& n : e.value("nodes", json::array())) {
      if (n.is_string()) entry.nodes.push_back(n.get<std::string>());
    }
    for (const json& r : e["rules"]) {
      if (!r.is_string()) return Malformed(path, "a rule that is not a string");
      absl::StatusOr<rewrite::Step> step = rewrite::ParseStep(r.get<std::string>());
      if (!step.ok()) return Malformed(path, std::string(step.status().message()));
      entry.steps.push_back(*std::move(step));
    }
    if (const auto variant = e.find("variant"); variant != e.end()) {
      if (!variant->is_string()) return Malformed(path, "a variant that is not a string");
      entry.variant = variant->get<std::string>();
    }
    db.entries_.push_back(std::move(entry));
  }
  return db;
}

std::optional<TuningEntry> TuningDb::Find(const std::string& cluster, const std::string& device,
                                          std::optional<int64_t> bucket) const {
  const TuningEntry* best = nullptr;
  for (const TuningEntry& e : entries_) {
    if (e.cluster != cluster || e.device != device) continue;
    if (bucket) {
      if (e.bucket == *bucket) return e;
    } else if (best == nullptr || e.bucket > best->bucket) {
      best = &e;
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

void TuningDb::Record(TuningEntry entry) {
  for (TuningEntry& e : entries_) {
    if (e.cluster == entry.cluster && e.device == entry.device && e.bucket == entry.bucket) {
      e = std::move(entry);
      return;
    }
  }
  entries_.push_back(std::move(entry));
}

absl::Status TuningDb::Save() const {
  json entries = json::array();
  for (const TuningEntry& e : entries_) {
    json rules = json::array();
    for (const rewrite::Step& s : e.steps) rules.push_back(s.ToString());
    json entry = {{"cluster", e.cluster},     {"device", e.device},
                  {"bucket", e.bucket},       {"nodes", e.nodes},
                  {"rules", rules},           {"work_group_size", e.work_group_size},
                  {"median_ms", e.median_ms}, {"default_ms", e.default_ms}};
    if (!e.variant.empty()) entry["variant"] = e.variant;
    entries.push_back(std::move(entry));
  }
  const json root = {{"format", kFormat}, {"entries", entries}};
  std::error_code error;
  const fs::path file(path_);
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), error);
  const std::string temporary = absl::StrCat(path_, ".tmp");
  {
    std::ofstream out(temporary);
    out << root.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    if (!out) return absl::InvalidArgumentError(absl::StrCat(temporary, ": cannot write it"));
  }
  fs::rename(temporary, file, error);
  if (error) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": cannot write it: ", error.message()));
  }
  return absl::OkStatus();
}

std::string ClusterHash(const ir::TranslatedCluster& cluster) {
  return Fnv1aHex(ir::ToString(cluster.lambda));
}

std::string VariantHash(const ir::ExprPtr& body) { return Fnv1aHex(ir::ToString(body)); }

absl::Status CheckReplays(const TuningEntry& entry, const ir::TranslatedCluster& cluster) {
  const auto& lambda = *cluster.lambda;
  const std::string name = rewrite::Variant{entry.steps, nullptr}.Name();
  absl::StatusOr<ir::ExprPtr> body = rewrite::Replay(lambda.body, entry.steps);
  if (!body.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "its recorded steps (", name, ") no longer replay: ", body.status().message()));
  }
  if (!entry.variant.empty() && VariantHash(*body) != entry.variant) {
    return absl::FailedPreconditionError(
        absl::StrCat("its recorded steps (", name, ") now make variant ", VariantHash(*body),
                     ", not the ", entry.variant, " they were timed as: the rules changed since"));
  }
  return absl::OkStatus();
}

int64_t SizeBucket(int64_t batch) {
  int64_t bucket = 1;
  while (bucket < batch) bucket *= 2;
  return bucket;
}

std::string DefaultTuningDbPath() {
  if (const char* env = std::getenv("DFC_TUNING_DB"); env != nullptr && *env != '\0') return env;
  return (fs::path(cl::DefaultCacheDir()) / "tuning.json").string();
}

}  // namespace dfc

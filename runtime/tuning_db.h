// The tuning database: what tuning chose, on disk, so that it is done once. An entry is keyed
// by the cluster (a stable hash of its translated expression), the device it was timed on (its
// OpenCL name) and a size bucket (the batch tuned at, rounded up to a power of two); it holds
// the chosen variant's rewrite steps (none: the default strategy won), a hash of the
// expression they made, and the times measured.
//
//   {"format": 1, "entries": [{"cluster": "9f3c...", "device": "pthread-...", "bucket": 4096,
//     "nodes": [...], "rules": ["storeTransposed@0", ...], "variant": "51aa...",
//     "median_ms": 1.8, "default_ms": 11}]}
//
// Steps name rules and the places they applied, so a rule that changes (one that matches at a
// new place, or rewrites otherwise) would turn recorded steps into another variant without a
// word: CheckReplays compares what they make now with the recorded hash.
#ifndef DFC_RUNTIME_TUNING_DB_H_
#define DFC_RUNTIME_TUNING_DB_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/from_tf/cluster.h"
#include "rewrite/explore.h"

namespace dfc {

struct TuningEntry {
  std::string cluster;  // ClusterHash
  std::string device;
  int64_t bucket = 0;
  std::vector<std::string> nodes;  // "name (Op)", for people reading the file
  std::vector<rewrite::Step> steps;
  // VariantHash of the body the steps made when they were recorded; empty in files written
  // before it was kept, whose steps are taken on trust.
  std::string variant;
  int work_group_size = -1;  // of the MapGlb kernels; -1: the profile's
  double median_ms = 0;
  double default_ms = 0;
};

class TuningDb {
 public:
  // The database in `path`; a file that does not exist is an empty database. A malformed one
  // is an error naming it.
  static absl::StatusOr<TuningDb> Load(const std::string& path);

  // The entry for this cluster and device at `bucket`, or, without one, at the largest bucket
  // recorded (the large batches whose throughput tuning is for).
  std::optional<TuningEntry> Find(const std::string& cluster, const std::string& device,
                                  std::optional<int64_t> bucket) const;
  // Adds `entry`, replacing one with the same key.
  void Record(TuningEntry entry);
  // Writes the file (and its directory), atomically: a reader never sees half of it.
  absl::Status Save() const;

  const std::string& path() const { return path_; }
  const std::vector<TuningEntry>& entries() const { return entries_; }

 private:
  std::string path_;
  std::vector<TuningEntry> entries_;
};

// A hash of the cluster's expression that is the same in every process (FNV-1a of its printed
// form), as 16 hex digits.
std::string ClusterHash(const ir::TranslatedCluster& cluster);

// A hash of a cluster's body as a variant's steps rewrote it, the same in every process
// (FNV-1a of its printed form), as 16 hex digits.
std::string VariantHash(const ir::ExprPtr& body);

// Whether `entry`'s steps, replayed on `cluster`, still make the variant it recorded: an error
// saying why not (a step that no longer applies, or another expression than the recorded one:
// the rules changed since). An entry without a recorded variant passes if its steps replay.
absl::Status CheckReplays(const TuningEntry& entry, const ir::TranslatedCluster& cluster);

// The size bucket of a batch: the power of two at or above it.
int64_t SizeBucket(int64_t batch);

// Where the database lives by default: DFC_TUNING_DB if set, else tuning.json in the program
// cache's directory.
std::string DefaultTuningDbPath();

}  // namespace dfc

#endif  // DFC_RUNTIME_TUNING_DB_H_

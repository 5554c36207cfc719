// TensorFlow's checkpoints (the V2 "tensor bundle": PREFIX.index and PREFIX.data-K-of-N), read
// from their documented format, as a SavedModel's variables/ holds them.
//
// The .index is a LevelDB table: data blocks of prefix-compressed (key, value) entries with a
// restart array, an index block pointing at them, and a 48-byte footer (the index block's
// handle, the table's magic number); each block ends with its compression type and a masked
// CRC-32C. Its "" key holds a BundleHeaderProto (the shard count, the byte order), every other
// key a BundleEntryProto: a tensor's dtype, shape, shard, offset, size and the masked CRC-32C of
// its bytes. Every checksum is checked: a corrupt or truncated file is an error naming the file
// (and the tensor), never a silently wrong value.
#ifndef DFC_GRAPH_CHECKPOINT_H_
#define DFC_GRAPH_CHECKPOINT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/saved_model.pb.h"
#include "graph/tensor.h"

namespace dfc {

// CRC-32C (Castagnoli) of `bytes`, and LevelDB's masking of a CRC stored beside the bytes it
// covers (so that a CRC of data holding CRCs is not degenerate).
uint32_t Crc32c(absl::string_view bytes, uint32_t crc = 0);
uint32_t MaskCrc(uint32_t crc);
uint32_t UnmaskCrc(uint32_t masked);

class Checkpoint {
 public:
  // Reads and checks PREFIX.index (every block's checksum, every entry's proto); the data
  // shards are read when a tensor is.
  static absl::StatusOr<Checkpoint> Open(const std::string& prefix);
  // The same from the .index file's bytes, `prefix` naming the shards (the fuzzer's entry).
  static absl::StatusOr<Checkpoint> FromIndex(absl::string_view index_bytes,
                                              const std::string& prefix);

  // The tensor stored under `key`, its bytes' checksum checked. Errors name the checkpoint and
  // the key: a key it lacks, a tensor stored in slices, a dtype dfc does not hold, a shard
  // missing or shorter than the entry says, a checksum that does not match.
  absl::StatusOr<Tensor> Read(absl::string_view key) const;

  // The entry of `key`, or nullptr.
  const tf::BundleEntryProto* Find(absl::string_view key) const;
  std::vector<std::string> Keys() const;
  int num_shards() const { return header_.num_shards(); }
  const std::string& prefix() const { return prefix_; }

 private:
  std::string prefix_;
  tf::BundleHeaderProto header_;
  std::map<std::string, tf::BundleEntryProto, std::less<>> entries_;
};

}  // namespace dfc

#endif  // DFC_GRAPH_CHECKPOINT_H_

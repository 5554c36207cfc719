// The tensor bundle reader (checkpoint.h).
#include "graph/checkpoint.h"

#include <array>
#include <cstring>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/loader.h"

namespace dfc {
namespace {

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kFooterBytes = 48;  // two block handles padded to 40 bytes, then the magic
constexpr size_t kBlockTrailerBytes = 5;  // compression type, masked CRC-32C
constexpr uint32_t kMaskDelta = 0xa282ead8u;

uint32_t DecodeFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);  // little-endian, as LevelDB writes it (and the host is)
  return v;
}

// Reads a varint of up to `max_bytes` bytes at `in`, advancing it; false if it runs out.
bool GetVarint(absl::string_view& in, uint64_t& out, int max_bytes = 10) {
  out = 0;
  for (int shift = 0, i = 0; i < max_bytes && !in.empty(); ++i, shift += 7) {
    const unsigned char byte = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    out |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

struct BlockHandle {
  uint64_t offset = 0, size = 0;
};

bool GetBlockHandle(absl::string_view& in, BlockHandle& handle) {
  return GetVarint(in, handle.offset) && GetVarint(in, handle.size);
}

class IndexFile {
 public:
  IndexFile(absl::string_view bytes, std::string path) : bytes_(bytes), path_(std::move(path)) {}

  absl::Status Error(const std::string& message) const {
    return absl::DataLossError(absl::StrCat(path_, ": ", message));
  }

  // The contents of the block at `handle`, its checksum and compression checked.
  absl::StatusOr<absl::string_view> Block(const BlockHandle& handle) const {
    if (handle.offset > bytes_.size() || handle.size > bytes_.size() - handle.offset ||
        bytes_.size() - handle.offset - handle.size < kBlockTrailerBytes) {
      return Error(absl::StrCat("a block at offset ", handle.offset, " of ", handle.size,
                                " bytes runs past the end of the file (", bytes_.size(),
                                " bytes): truncated or corrupt"));
    }
    const absl::string_view contents = bytes_.substr(handle.offset, handle.size);
    const char* trailer = bytes_.data() + handle.offset + handle.size;
    const uint32_t actual = Crc32c(absl::string_view(trailer, 1), Crc32c(contents));
    if (UnmaskCrc(DecodeFixed32(trailer + 1)) != actual) {
      return Error(absl::StrCat("the block at offset ", handle.offset,
                                " does not match its checksum: corrupt"));
    }
    if (trailer[0] != 0) {
      return Error(absl::StrCat("the block at offset ", handle.offset, " is compressed (type ",
                                static_cast<int>(trailer[0]),
                                "); dfc reads the uncompressed tables TensorFlow writes"));
    }
    return contents;
  }

  // Calls `visit(key, value)` for each entry of `block`, in order.
  template <typename Visit>
  absl::Status ForEachEntry(absl::string_view block, Visit&& visit) const {
    if (block.size() < 4) return Error("a block too short for its restart count: corrupt");
    const uint64_t restarts = DecodeFixed32(block.data() + block.size() - 4);
    if (restarts > (block.size() - 4) / 4) {
      return Error(absl::StrCat("a block claims ", restarts, " restart points: corrupt"));
    }
    absl::string_view in = block.substr(0, block.size() - 4 - 4 * restarts);
    std::string key;
    while (!in.empty()) {
      uint64_t shared, unshared, value_size;
      if (!GetVarint(in, shared, 5) || !GetVarint(in, unshared, 5) ||
          !GetVarint(in, value_size, 5) || shared > key.size() || unshared > in.size() ||
          value_size > in.size() - unshared) {
        return Error("an entry runs past its block: corrupt");
      }
      key.resize(shared);
      key.append(in.data(), unshared);
      in.remove_prefix(unshared);
      DFC_RETURN_IF_ERROR(visit(key, in.substr(0, value_size)));
      in.remove_prefix(value_size);
    }
    return absl::OkStatus();
  }

 private:
  absl::string_view bytes_;
  std::string path_;
};

}  // namespace

uint32_t Crc32c(absl::string_view bytes, uint32_t crc) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t;
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (unsigned char b : bytes) crc = table[(crc ^ b) & 0xff] ^ (crc >> 8);
  return ~crc;
}

uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

uint32_t UnmaskCrc(uint32_t masked) {
  const uint32_t rotated = masked - kMaskDelta;
  return (rotated >> 17) | (rotated << 15);
}

absl::StatusOr<Checkpoint> Checkpoint::Open(const std::string& prefix) {
  DFC_ASSIGN_OR_RETURN(std::string bytes, ReadFile(prefix + ".index"));
  return FromIndex(bytes, prefix);
}

absl::StatusOr<Checkpoint> Checkpoint::FromIndex(absl::string_view bytes,
                                                 const std::string& prefix) {
  const IndexFile file(bytes, prefix + ".index");
  if (bytes.size() < kFooterBytes) {
    return file.Error(absl::StrCat(bytes.size(), " bytes is shorter than a table's footer"));
  }
  uint64_t magic;
  std::memcpy(&magic, bytes.data() + bytes.size() - 8, sizeof magic);
  if (magic != kTableMagic) return file.Error("no table magic number at its end: not an index");
  absl::string_view footer = bytes.substr(bytes.size() - kFooterBytes, kFooterBytes - 8);
  BlockHandle meta_index, index;
  if (!GetBlockHandle(footer, meta_index) || !GetBlockHandle(footer, index)) {
    return file.Error("a corrupt footer");
  }
  // The meta index holds nothing a bundle uses; its checksum is checked all the same.
  DFC_RETURN_IF_ERROR(file.Block(meta_index).status());
  DFC_ASSIGN_OR_RETURN(absl::string_view index_block, file.Block(index));
  Checkpoint checkpoint;
  checkpoint.prefix_ = prefix;
  bool has_header = false;
  DFC_RETURN_IF_ERROR(file.ForEachEntry(index_block, [&](const std::string&,
                                                         absl::string_view value) {
    BlockHandle data;
    if (!GetBlockHandle(value, data)) return file.Error("a corrupt index entry");
    DFC_ASSIGN_OR_RETURN(absl::string_view block, file.Block(data));
    return file.ForEachEntry(block, [&](const std::string& key, absl::string_view value) {
      if (key.empty()) {
        if (!checkpoint.header_.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
          return file.Error("a corrupt header");
        }
        has_header = true;
        return absl::OkStatus();
      }
      tf::BundleEntryProto entry;
      if (!entry.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
        return file.Error(absl::StrCat("the entry of \"", key, "\" is corrupt"));
      }
      checkpoint.entries_.emplace(key, std::move(entry));
      return absl::OkStatus();
    });
  }));
  if (!has_header) return file.Error("no header entry: not a tensor bundle's index");
  if (checkpoint.header_.num_shards() < 1) {
    return file.Error(absl::StrCat("a header of ", checkpoint.header_.num_shards(), " shards"));
  }
  if (checkpoint.header_.endianness() != tf::BundleHeaderProto::LITTLE) {
    return file.Error("a big-endian checkpoint; dfc reads little-endian ones");
  }
  return checkpoint;
}

const tf::BundleEntryProto* Checkpoint::Find(absl::string_view key) const {
  const auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<std::string> Checkpoint::Keys() const {
  std::vector<std::string> keys;
  for (const auto& [key, entry] : entries_) keys.push_back(key);
  return keys;
}

absl::StatusOr<Tensor> Checkpoint::Read(absl::string_view key) const {
  const auto error = [&](const std::string& message) {
    return absl::DataLossError(absl::StrCat(prefix_, ": tensor \"", key, "\": ", message));
  };
  const tf::BundleEntryProto* entry = Find(key);
  if (entry == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(prefix_, ".index has no tensor \"", key, "\""));
  }
  if (entry->slices_size() > 0) return error("stored in slices, which dfc does not read");
  absl::StatusOr<DType> dtype = DTypeFromTf(entry->dtype());
  if (!dtype.ok() || *dtype == DType::kString) {
    return error(absl::StrCat("dtype ", entry->dtype(), " is not one dfc holds in a variable"));
  }
  Shape shape;
  for (const auto& dim : entry->shape().dim()) {
    if (dim.size() < 0) return error("an unknown dimension");
    shape.push_back(dim.size());
  }
  absl::StatusOr<Tensor> tensor = Tensor::Create(*dtype, shape);
  if (!tensor.ok()) return error(std::string(tensor.status().message()));
  if (entry->size() < 0 || static_cast<uint64_t>(entry->size()) != tensor->byte_size()) {
    return error(absl::StrCat(entry->size(), " bytes stored for ", DTypeName(*dtype),
                              ShapeToString(shape), ", which is ", tensor->byte_size()));
  }
  if (entry->shard_id() < 0 || entry->shard_id() >= header_.num_shards()) {
    return error(absl::StrCat("shard ", entry->shard_id(), " of ", header_.num_shards()));
  }
  const std::string shard = absl::StrFormat("%s.data-%05d-of-%05d", prefix_, entry->shard_id(),
                                            header_.num_shards());
  std::ifstream in(shard, std::ios::binary | std::ios::ate);
  if (!in) return error(absl::StrCat("its shard ", shard, " cannot be opened"));
  const std::streamoff shard_size = in.tellg();
  if (entry->offset() < 0 || entry->offset() > shard_size ||
      entry->size() > shard_size - entry->offset()) {
    return error(absl::StrCat("bytes [", entry->offset(), ", ", entry->offset() + entry->size(),
                              ") are past the end of ", shard, " (", shard_size,
                              " bytes): truncated"));
  }
  in.seekg(entry->offset());
  std::string bytes(static_cast<size_t>(entry->size()), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in) return error(absl::StrCat("a read error in ", shard));
  if (UnmaskCrc(entry->crc32c()) != Crc32c(bytes)) {
    return error(absl::StrCat("its bytes in ", shard, " do not match its checksum: corrupt"));
  }
  if (!bytes.empty()) std::memcpy(tensor->mutable_raw_data(), bytes.data(), bytes.size());
  return *std::move(tensor);
}

}  // namespace dfc

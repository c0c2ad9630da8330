#include "sc/memiavl/tree_snapshot.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "encoding.h"
#include "strata/status.h"

namespace fs = std::filesystem;

namespace strata::sc {
namespace {

constexpr size_t kMetadataBytes = 12;

std::string Join(const std::string& dir, const char* name) { return (fs::path(dir) / name).string(); }

uint32_t U32(const char* p) { return encoding::DecodeFixed32LE(p); }
uint64_t U64(const char* p) { return encoding::DecodeFixed64LE(p); }

void StoreU32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
void StoreU64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

Sha256Digest HashAt(const char* p) {
  Sha256Digest hash;
  std::memcpy(hash.data(), p, hash.size());
  return hash;
}

}  // namespace

uint32_t SnapshotVersion(int64_t version) {
  if (version < 0 || version > int64_t{UINT32_MAX}) {
    throw Error(ErrorCode::kInvalidArgument,
                "version " + std::to_string(version) + " does not fit a memiavl snapshot (0..4294967295)");
  }
  return static_cast<uint32_t>(version);
}

// ---- reader -------------------------------------------------------------------------------

TreeSnapshot::TreeSnapshot(const std::string& dir)
    : dir_(dir), nodes_(Join(dir, "nodes")), leaves_(Join(dir, "leaves")), kvs_(Join(dir, "kvs")) {}

std::shared_ptr<const TreeSnapshot> TreeSnapshot::Open(const std::string& dir) {
  std::shared_ptr<TreeSnapshot> snap(new TreeSnapshot(dir));
  MappedFile metadata(Join(dir, "metadata"));
  const std::string_view meta = metadata.bytes();
  if (meta.size() != kMetadataBytes || U32(meta.data()) != kTreeSnapshotMagic || U32(meta.data() + 4) != 0) {
    snap->Corrupt("metadata has a wrong size, magic or format");
  }
  snap->version_ = U32(meta.data() + 8);
  const size_t node_bytes = snap->nodes_.bytes().size();
  const size_t leaf_bytes = snap->leaves_.bytes().size();
  if (node_bytes % kTreeSnapshotRecordBytes != 0 || leaf_bytes % kTreeSnapshotRecordBytes != 0) {
    snap->Corrupt("nodes or leaves is not a whole number of records");
  }
  snap->branch_count_ = static_cast<uint32_t>(node_bytes / kTreeSnapshotRecordBytes);
  snap->leaf_count_ = static_cast<uint32_t>(leaf_bytes / kTreeSnapshotRecordBytes);
  const uint32_t expected_branches = snap->leaf_count_ == 0 ? 0 : snap->leaf_count_ - 1;
  if (snap->branch_count_ != expected_branches) snap->Corrupt("branch and leaf counts disagree");
  return snap;
}

void TreeSnapshot::Corrupt(const std::string& what) const {
  throw Error(ErrorCode::kCorruption, "memiavl snapshot tree " + dir_ + " is damaged (" + what +
                                          "); remove that snapshot directory and reopen, or restore the "
                                          "node from a state-sync snapshot");
}

SnapshotBranch TreeSnapshot::Branch(uint32_t i) const {
  if (i >= branch_count_) Corrupt("branch index " + std::to_string(i) + " out of range");
  const char* p = nodes_.bytes().data() + size_t{i} * kTreeSnapshotRecordBytes;
  SnapshotBranch b;
  b.height = static_cast<uint8_t>(p[0]);
  b.version = U32(p + 4);
  b.size = U32(p + 8);
  b.key_leaf = U32(p + 12);
  b.hash = HashAt(p + 16);
  return b;
}

std::string_view TreeSnapshot::LeafKey(uint32_t i) const {
  if (i >= leaf_count_) Corrupt("leaf index " + std::to_string(i) + " out of range");
  const char* p = leaves_.bytes().data() + size_t{i} * kTreeSnapshotRecordBytes;
  const uint32_t key_len = U32(p + 4);
  const uint64_t offset = U64(p + 8);
  const std::string_view kvs = kvs_.bytes();
  if (offset > kvs.size() || kvs.size() - offset < 4 + uint64_t{key_len}) Corrupt("leaf key outside kvs");
  return kvs.substr(offset + 4, key_len);
}

SnapshotLeaf TreeSnapshot::Leaf(uint32_t i) const {
  SnapshotLeaf leaf;
  leaf.key = LeafKey(i);
  const char* p = leaves_.bytes().data() + size_t{i} * kTreeSnapshotRecordBytes;
  leaf.version = U32(p);
  leaf.hash = HashAt(p + 16);
  const std::string_view kvs = kvs_.bytes();
  const uint64_t value_at = static_cast<uint64_t>(leaf.key.data() + leaf.key.size() - kvs.data());
  if (kvs.size() - value_at < 4) Corrupt("leaf value outside kvs");
  const uint32_t value_len = U32(kvs.data() + value_at);
  if (kvs.size() - value_at - 4 < value_len) Corrupt("leaf value outside kvs");
  leaf.value = kvs.substr(value_at + 4, value_len);
  return leaf;
}

// ---- writer -------------------------------------------------------------------------------

// A buffered, append-only file that is synced on Finish.
class TreeSnapshotWriter::Sink {
 public:
  Sink(std::string path, WriteRateLimiter* limiter) : path_(std::move(path)), limiter_(limiter) {
    fd_ = UniqueFd(::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (!fd_.valid()) throw Error(ErrorCode::kIo, "cannot create " + path_ + ": " + std::strerror(errno));
    buf_.reserve(kBuffer);
  }
  void Append(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    if (buf_.size() + n > kBuffer) Flush();
    if (n >= kBuffer) {
      WriteAll(p, n);
      return;
    }
    buf_.append(p, n);
  }
  void Finish() {
    Flush();
    if (::fsync(fd_.get()) != 0) throw Error(ErrorCode::kIo, "cannot sync " + path_ + ": " + std::strerror(errno));
    fd_.reset();
  }

 private:
  static constexpr size_t kBuffer = 1 << 20;
  void Flush() {
    WriteAll(buf_.data(), buf_.size());
    buf_.clear();
  }
  void WriteAll(const char* p, size_t n) {
    if (limiter_ != nullptr) limiter_->Acquire(n);
    while (n > 0) {
      const ssize_t w = ::write(fd_.get(), p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        throw Error(ErrorCode::kIo, "cannot write " + path_ + ": " + std::strerror(errno));
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
  }
  std::string path_;
  WriteRateLimiter* limiter_;
  UniqueFd fd_;
  std::string buf_;
};

TreeSnapshotWriter::TreeSnapshotWriter(const std::string& dir, WriteRateLimiter* limiter) : dir_(dir) {
  std::error_code ec;
  if (!fs::create_directory(dir, ec)) {
    throw Error(ErrorCode::kIo, "cannot create snapshot directory " + dir + (ec ? ": " + ec.message() : ": it exists"));
  }
  nodes_ = std::make_unique<Sink>(Join(dir, "nodes"), limiter);
  leaves_ = std::make_unique<Sink>(Join(dir, "leaves"), limiter);
  kvs_ = std::make_unique<Sink>(Join(dir, "kvs"), limiter);
}

TreeSnapshotWriter::~TreeSnapshotWriter() = default;

void TreeSnapshotWriter::AddLeaf(std::string_view key, std::string_view value, int64_t version,
                                 const Sha256Digest& hash) {
  if (key.size() > UINT32_MAX || value.size() > UINT32_MAX) {
    throw Error(ErrorCode::kInvalidArgument, "a key or value over 4 GiB cannot be snapshotted");
  }
  char record[kTreeSnapshotRecordBytes] = {};
  StoreU32(record, SnapshotVersion(version));
  StoreU32(record + 4, static_cast<uint32_t>(key.size()));
  StoreU64(record + 8, kv_offset_);
  std::memcpy(record + 16, hash.data(), hash.size());
  leaves_->Append(record, sizeof record);

  char len[4];
  StoreU32(len, static_cast<uint32_t>(key.size()));
  kvs_->Append(len, 4);
  kvs_->Append(key.data(), key.size());
  StoreU32(len, static_cast<uint32_t>(value.size()));
  kvs_->Append(len, 4);
  kvs_->Append(value.data(), value.size());
  kv_offset_ += 8 + key.size() + value.size();
  bytes_written_ += sizeof record + 8 + key.size() + value.size();
  ++leaf_count_;
}

void TreeSnapshotWriter::AddBranch(uint8_t height, int64_t version, uint32_t size, uint32_t key_leaf,
                                   const Sha256Digest& hash) {
  char record[kTreeSnapshotRecordBytes] = {};
  record[0] = static_cast<char>(height);
  StoreU32(record + 4, SnapshotVersion(version));
  StoreU32(record + 8, size);
  StoreU32(record + 12, key_leaf);
  std::memcpy(record + 16, hash.data(), hash.size());
  nodes_->Append(record, sizeof record);
  bytes_written_ += sizeof record;
}

void TreeSnapshotWriter::Finish(int64_t version) {
  nodes_->Finish();
  leaves_->Finish();
  kvs_->Finish();
  Sink metadata(Join(dir_, "metadata"), nullptr);
  char meta[kMetadataBytes];
  StoreU32(meta, kTreeSnapshotMagic);
  StoreU32(meta + 4, 0);
  StoreU32(meta + 8, SnapshotVersion(version));
  metadata.Append(meta, sizeof meta);
  metadata.Finish();
  bytes_written_ += sizeof meta;
}

}  // namespace strata::sc

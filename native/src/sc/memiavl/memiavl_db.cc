#include "sc/memiavl/memiavl_db.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "encoding.h"
#include "sc/iavl_hash.h"
#include "sc/memiavl/file_checksums.h"
#include "sc/memiavl/tree_snapshot.h"
#include "sc/snapshot_names.h"
#include "strata/changelog_entry.h"
#include "strata/status.h"
#include "unique_fd.h"

namespace fs = std::filesystem;

namespace strata::sc {

// The trees of one state, with the version they were last sealed at.
struct MemIavlDb::Trees {
  std::map<std::string, IavlTree, std::less<>> by_name;
  int64_t version = 0;
  int64_t initial_version = 0;

  int64_t NextVersion() const { return version == 0 && initial_version > 1 ? initial_version : version + 1; }
};

// A background snapshot of one version and what it hands back to the commit thread.
struct MemIavlDb::SnapshotJob {
  int64_t version = 0;
  std::vector<StoreInfo> expected;  // store infos committed at `version`
  std::thread thread;
  std::atomic<bool> done{false};
  std::exception_ptr error;
  std::unique_ptr<Trees> caught_up;  // the new snapshot's trees, replayed close to the tip
  uint64_t bytes = 0;
  double seconds = 0;
};

namespace {

constexpr uint32_t kMetadataMagic = 0x41494D53;  // "SMIA"
constexpr uint32_t kMetadataFormat = 1;
constexpr const char* kMetadataFile = "__metadata";
constexpr const char* kCurrentLink = "current";
constexpr const char* kTmpSuffix = "-tmp";

[[noreturn]] void ThrowErrno(const std::string& what) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(errno));
}

}  // namespace

std::string RepairSnapshotsCommand(const std::string& memiavl_dir) {
  return "stratadb repair-snapshots -d " + fs::absolute(fs::path(memiavl_dir)).lexically_normal().string();
}

namespace {

// Removing a damaged snapshot by hand leaves `current` naming it; the repair command also
// repoints `current` and checks that the changelog still covers the versions after the
// snapshot it falls back to.
std::string SnapshotRemedy(const std::string& memiavl_dir) {
  return "stop the node and run `" + RepairSnapshotsCommand(memiavl_dir) +
         "`: it removes every damaged snapshot and points current at the newest intact one, from which the "
         "changelog replays to the latest version (it refuses, changing nothing, when the changelog no longer "
         "reaches back that far: then restore the node from a state-sync snapshot or a backup)";
}

}  // namespace

std::string RollbackToIntactCommand(const std::string& store_dir, const std::string& store_name) {
  // A node keeps its SC stores in <home>/data/<store>; elsewhere the home is not known here.
  const fs::path dir = fs::absolute(fs::path(store_dir)).lexically_normal();
  const fs::path data = dir.has_filename() ? dir.parent_path() : dir.parent_path().parent_path();
  const bool in_home = (dir.has_filename() ? dir.filename() : dir.parent_path().filename()) == store_name &&
                       data.filename() == "data";
  return "stratad rollback --to-intact --home " + (in_home ? data.parent_path().string() : std::string("<node home>"));
}

namespace {

void SyncDirectory(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid() || ::fsync(fd.get()) != 0) ThrowErrno("cannot sync directory " + dir);
}

void CheckTreeName(std::string_view name) {
  CheckStoreName(name);
  if (name == "." || name == ".." || name.rfind("__", 0) == 0) {
    throw Error(ErrorCode::kInvalidArgument, "store name \"" + std::string(name) +
                                                 "\" is reserved; module stores cannot be named . or .. or start with __");
  }
}

std::string EncodeMetadata(int64_t version, int64_t initial_version, const std::vector<StoreInfo>& infos) {
  std::string out;
  encoding::PutFixed32LE(&out, kMetadataMagic);
  encoding::PutFixed32LE(&out, kMetadataFormat);
  encoding::PutFixed64LE(&out, static_cast<uint64_t>(version));
  encoding::PutFixed64LE(&out, static_cast<uint64_t>(initial_version));
  encoding::PutFixed32LE(&out, static_cast<uint32_t>(infos.size()));
  for (const auto& info : infos) {
    encoding::PutFixed32LE(&out, static_cast<uint32_t>(info.name.size()));
    out += info.name;
    encoding::PutFixed64LE(&out, static_cast<uint64_t>(info.version));
    out += info.hash;
  }
  return out;
}

struct SnapshotMetadata {
  int64_t version = 0;
  int64_t initial_version = 0;
  std::vector<StoreInfo> infos;
};

SnapshotMetadata DecodeMetadata(const std::string& path, const std::string& remedy) {
  std::ifstream in(path, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto corrupt = [&]() -> Error {
    return Error(ErrorCode::kCorruption, "memiavl snapshot metadata " + path + " is damaged" +
                                            (remedy.empty() ? std::string() : "; " + remedy));
  };
  size_t pos = 0;
  auto need = [&](size_t n) {
    if (data.size() - pos < n) throw corrupt();
  };
  need(28);
  if (encoding::DecodeFixed32LE(data.data()) != kMetadataMagic ||
      encoding::DecodeFixed32LE(data.data() + 4) != kMetadataFormat) {
    throw corrupt();
  }
  SnapshotMetadata meta;
  meta.version = static_cast<int64_t>(encoding::DecodeFixed64LE(data.data() + 8));
  meta.initial_version = static_cast<int64_t>(encoding::DecodeFixed64LE(data.data() + 16));
  const uint32_t count = encoding::DecodeFixed32LE(data.data() + 24);
  pos = 28;
  for (uint32_t i = 0; i < count; ++i) {
    need(4);
    const uint32_t len = encoding::DecodeFixed32LE(data.data() + pos);
    pos += 4;
    need(size_t{len} + 8 + kSha256Size);
    StoreInfo info;
    info.name = data.substr(pos, len);
    pos += len;
    info.version = static_cast<int64_t>(encoding::DecodeFixed64LE(data.data() + pos));
    pos += 8;
    info.hash = data.substr(pos, kSha256Size);
    pos += kSha256Size;
    meta.infos.push_back(std::move(info));
  }
  if (pos != data.size()) throw corrupt();
  return meta;
}

std::string HashString(const Sha256Digest& d) { return std::string(reinterpret_cast<const char*>(d.data()), d.size()); }

// Feeds a tree's post-order walk into a snapshot writer.
class SnapshotTreeWriter final : public IavlPostOrderVisitor {
 public:
  explicit SnapshotTreeWriter(TreeSnapshotWriter& out) : out_(out) {}
  void Leaf(uint32_t, std::string_view key, std::string_view value, int64_t version,
            const Sha256Digest& hash) override {
    out_.AddLeaf(key, value, version, hash);
  }
  void Branch(uint8_t height, int64_t version, uint32_t size, uint32_t key_leaf, std::string_view,
              const Sha256Digest& hash) override {
    out_.AddBranch(height, version, size, key_leaf, hash);
  }

 private:
  TreeSnapshotWriter& out_;
};

// Turns a tree's post-order walk into export nodes.
class ExportTreeWalker final : public IavlPostOrderVisitor {
 public:
  explicit ExportTreeWalker(MemIavlExportSink& sink) : sink_(sink) {}
  void Leaf(uint32_t, std::string_view key, std::string_view value, int64_t version,
            const Sha256Digest&) override {
    sink_.Node({key, value, version, 0});
  }
  void Branch(uint8_t height, int64_t version, uint32_t, uint32_t, std::string_view key,
              const Sha256Digest&) override {
    sink_.Node({key, {}, version, height});
  }

 private:
  MemIavlExportSink& sink_;
};

}  // namespace

// ---- open / close ---------------------------------------------------------------------------

MemIavlDb::MemIavlDb(std::string dir, const MemIavlOptions& options)
    : dir_(std::move(dir)), snapshot_remedy_(SnapshotRemedy(dir_)), options_(options) {}

namespace {

// Takes the directory's flock (exclusive for a writer, shared for a reader); -1 when a reader
// finds no LOCK file (nothing was ever written there).
UniqueFd LockDirectory(const std::string& dir, bool read_only) {
  const std::string lock_path = (fs::path(dir) / "LOCK").string();
  UniqueFd fd(::open(lock_path.c_str(), read_only ? O_RDONLY | O_CLOEXEC : O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    if (read_only && errno == ENOENT) return fd;
    ThrowErrno("cannot open lock file " + lock_path);
  }
  if (::flock(fd.get(), (read_only ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      throw Error(ErrorCode::kIo, "failed to initialize database: resource temporarily unavailable (" + dir +
                                      " is held by another process, normally a running node; stop it first)");
    }
    ThrowErrno("cannot lock " + lock_path);
  }
  return fd;
}

}  // namespace

std::unique_ptr<MemIavlDb> MemIavlDb::Open(const std::string& dir, const MemIavlOptions& options) {
  if (options.snapshot_interval < 0 || options.keep_recent < 0 || options.hash_threads < 1 ||
      options.initial_version < 0 || options.target_version < 0 || options.snapshot_write_rate_mbps < 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "memiavl options: snapshot interval, keep-recent, write rate, initial and target versions must "
                "be >= 0 and hash threads >= 1");
  }
  if (options.target_version > 0 && !options.read_only) {
    throw Error(ErrorCode::kInvalidArgument, "memiavl can open at an older version only read-only; use Rollback to move a writer back");
  }
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    if (options.read_only || !options.create_if_missing) {
      throw Error(ErrorCode::kInvalidArgument, "memiavl directory " + dir + " does not exist; check the path (it is data/committer.db under the node home)");
    }
    fs::create_directories(dir, ec);
    if (ec) throw Error(ErrorCode::kIo, "cannot create memiavl directory " + dir + ": " + ec.message());
  }
  std::unique_ptr<MemIavlDb> db(new MemIavlDb(dir, options));

  db->lock_ = LockDirectory(dir, options.read_only);

  if (!options.read_only) {
    // Leftovers of a write cut short: never complete, never used.
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > std::strlen(kTmpSuffix) &&
          name.compare(name.size() - std::strlen(kTmpSuffix), std::string::npos, kTmpSuffix) == 0) {
        fs::remove_all(entry.path(), ec);
        if (ec) throw Error(ErrorCode::kIo, "cannot remove interrupted write " + entry.path().string() + ": " + ec.message());
      }
    }
  }
  db->OpenChangelogAndLoad(options.target_version);
  return db;
}

void MemIavlDb::OpenChangelogAndLoad(int64_t target) {
  const std::string log_dir = (fs::path(dir_) / "changelog").string();
  // Each cut moves the end of the changelog back, so a few rounds cover damage found again
  // in an older segment while replaying from the snapshot.
  for (int round = 0;; ++round) {
    try {
      if (!options_.read_only) {
        changelog_ = std::make_unique<Changelog>(log_dir);
        if (changelog_->repaired_bytes() > 0 && cut_changelog_at_.empty()) cut_changelog_at_ = changelog_->repaired_at();
        index_delta_known_ = false;
        if (changelog_->last_index() >= changelog_->first_index()) {
          if (const auto first = Changelog::FirstEntryVersion(log_dir)) {
            index_delta_ = static_cast<int64_t>(*first) - static_cast<int64_t>(changelog_->first_index());
            index_delta_known_ = true;
          }
        }
      }
      LoadCommitted(target);
      break;
    } catch (const ChangelogCorruption& e) {
      if (!options_.cut_damaged_changelog || options_.read_only || round >= 8) ThrowDamagedChangelog(e);
      changelog_.reset();
      Changelog::CutAt(log_dir, e.path(), e.offset());
      cut_changelog_at_ = e.path() + " at byte " + std::to_string(e.offset());
    }
  }
  // A cut below the snapshot `current` names leaves the changelog ending before the loaded
  // version: later entries must keep the index that matches their version.
  if (changelog_ && index_delta_known_ && static_cast<int64_t>(changelog_->last_index()) + index_delta_ < version_) {
    changelog_->SkipTo(IndexOf(version_ + 1));
  }
}

void MemIavlDb::ThrowDamagedChangelog(const ChangelogCorruption& e) const {
  const std::string log_dir = (fs::path(dir_) / "changelog").string();
  std::string intact = "the version before it";
  const auto first_version = Changelog::FirstEntryVersion(log_dir);
  const auto first_index = Changelog::FirstIndex(log_dir);
  if (first_version && first_index && e.index() > *first_index) {
    intact = "version " + std::to_string(static_cast<int64_t>(e.index() - 1) + static_cast<int64_t>(*first_version) -
                                         static_cast<int64_t>(*first_index));
  }
  throw Error(ErrorCode::kCorruption,
              "memiavl changelog segment " + e.path() + " is damaged at byte " + std::to_string(e.offset()) +
                  ": the entry there fails its checks (its length or checksum does not match its bytes), so memiavl is intact only up to " + intact +
                  ". Stop the node and run `" + RollbackToIntactCommand(dir_) +
                  "`: it cuts the changelog at the damaged entry and rolls the state commitment (memiavl and FlatKV) "
                  "back to that version; the next start re-executes the later blocks from the block store");
}

MemIavlDb::~MemIavlDb() {
  try {
    Close();
  } catch (...) {
    // Destructors must not throw; Close() reports failures to callers that ask.
  }
}

void MemIavlDb::Close() {
  if (closed_) return;
  closed_ = true;
  if (job_ && job_->thread.joinable()) job_->thread.join();
  job_.reset();
  changelog_.reset();
  trees_.reset();
  lock_.reset();
}

void MemIavlDb::CheckOpen() const {
  if (closed_) throw Error(ErrorCode::kClosed, "memiavl database " + dir_ + " is closed; reopen it");
}

void MemIavlDb::CheckWritable() const {
  CheckOpen();
  if (options_.read_only) {
    throw Error(ErrorCode::kNotSupported, "memiavl database " + dir_ + " is open read-only; open it as the node does to write");
  }
}

// ---- loading --------------------------------------------------------------------------------

std::vector<int64_t> MemIavlDb::SnapshotVersions() const { return ListSnapshotVersions(dir_); }

namespace {

// Loads the trees of a complete snapshot directory after verifying its checksums.
void LoadSnapshotTrees(const std::string& snapshot_dir, int hash_threads, const std::string& remedy,
                       std::map<std::string, IavlTree, std::less<>>* trees, int64_t* version,
                       int64_t* initial_version) {
  VerifyDirectoryChecksums(snapshot_dir, remedy);
  const SnapshotMetadata meta = DecodeMetadata((fs::path(snapshot_dir) / kMetadataFile).string(), remedy);
  *version = meta.version;
  *initial_version = meta.initial_version;
  for (const auto& info : meta.infos) {
    IavlTree::Options tree_options;
    tree_options.hash_threads = hash_threads;
    tree_options.initial_version = meta.initial_version;
    IavlTree tree(TreeSnapshot::Open((fs::path(snapshot_dir) / info.name).string()), tree_options);
    if (HashString(tree.RootHash()) != info.hash) {
      throw Error(ErrorCode::kCorruption, "memiavl snapshot " + snapshot_dir + " tree " + info.name +
                                              " does not match its recorded root hash" +
                                              (remedy.empty() ? std::string() : "; " + remedy));
    }
    trees->emplace(info.name, std::move(tree));
  }
}

}  // namespace

void MemIavlDb::LoadCommitted(int64_t target) {
  auto trees = std::make_unique<Trees>();
  trees->initial_version = options_.initial_version;
  std::optional<int64_t> base;
  const std::vector<int64_t> snapshots = SnapshotVersions();
  if (target == 0) {
    std::error_code ec;
    const fs::path link = fs::path(dir_) / kCurrentLink;
    if (fs::is_symlink(link, ec)) {
      base = ParseSnapshotDirName(fs::read_symlink(link, ec).filename().string());
      if (!base) throw Error(ErrorCode::kCorruption, "memiavl " + link.string() + " does not name a snapshot; point it at the newest snapshot-* directory");
    } else if (!snapshots.empty()) {
      base = snapshots.back();
    }
  } else {
    for (int64_t v : snapshots) {
      if (v <= target) base = v;
    }
  }
  if (base) {
    LoadSnapshotTrees((fs::path(dir_) / SnapshotDirName(*base)).string(), options_.hash_threads, snapshot_remedy_, &trees->by_name,
                      &trees->version, &trees->initial_version);
  }
  const int64_t upto = target == 0 ? INT64_MAX : target;
  ReplayInto(*trees, trees->NextVersion(), upto);
  durable_version_.store(trees->version);
  if (target != 0 && trees->version != target) {
    throw Error(ErrorCode::kInvalidArgument,
                "memiavl " + dir_ + " cannot be opened at version " + std::to_string(target) +
                    ": the snapshots and changelog reach version " + std::to_string(trees->version) +
                    (snapshots.empty() ? std::string() : ", the oldest snapshot is " + std::to_string(snapshots.front())));
  }
  last_commit_info_ = InfosOf(*trees);
  version_ = trees->version;
  trees_ = std::move(trees);
}

// Replays the changelog entries with versions in [from_version, to_version] into `trees`,
// which must be at from_version - 1; a missing version is corruption.
void MemIavlDb::ReplayInto(Trees& trees, int64_t from_version, int64_t to_version) const {
  if (from_version > to_version) return;
  auto apply = [&](std::string_view entry) {
    const int64_t version = static_cast<int64_t>(ChangelogEntryVersion(entry));
    if (version != trees.NextVersion()) {
      throw Error(ErrorCode::kCorruption,
                  "memiavl changelog in " + dir_ + " jumps from version " + std::to_string(trees.version) + " to " +
                      std::to_string(version) + "; restore the node from a state-sync snapshot");
    }
    IavlTree* tree = nullptr;
    ChangelogEntryVisitor visitor;
    visitor.on_changeset = [&](std::string_view name, uint32_t) {
      auto it = trees.by_name.find(name);
      if (it == trees.by_name.end()) {
        IavlTree::Options tree_options;
        tree_options.hash_threads = options_.hash_threads;
        tree_options.initial_version = trees.NextVersion();
        it = trees.by_name.emplace(std::string(name), IavlTree(tree_options)).first;
      }
      tree = &it->second;
    };
    visitor.on_pair = [&](std::string_view key, std::optional<std::string_view> value) {
      if (value) {
        tree->Set(key, *value);
      } else {
        tree->Remove(key);
      }
    };
    VisitChangelogEntry(entry, visitor);
    for (auto& [name, t] : trees.by_name) t.AdvanceVersion();
    trees.version = version;
  };
  const uint64_t lo = static_cast<uint64_t>(from_version);
  const uint64_t hi = static_cast<uint64_t>(to_version);
  if (changelog_) {
    changelog_->ReplayVersionRange(lo, hi, apply);
  } else {
    Changelog::ReadOnlyReplay((fs::path(dir_) / "changelog").string(), lo, hi, apply);
  }
}

std::vector<StoreInfo> MemIavlDb::InfosOf(Trees& trees) const {
  std::vector<StoreInfo> infos;
  infos.reserve(trees.by_name.size());
  for (auto& [name, tree] : trees.by_name) infos.push_back({name, tree.Version(), HashString(tree.RootHash())});
  return infos;
}

// ---- writes ---------------------------------------------------------------------------------

int64_t MemIavlDb::NextVersion() const { return trees_->NextVersion(); }

IavlTree& MemIavlDb::TreeForWrite(std::string_view store) {
  CheckWritable();
  if (logged_) throw Error(ErrorCode::kInvalidArgument, "memiavl: a logged version must be sealed before more changes are staged");
  auto it = trees_->by_name.find(store);
  if (it != trees_->by_name.end()) return it->second;
  CheckTreeName(store);
  IavlTree::Options tree_options;
  tree_options.hash_threads = options_.hash_threads;
  tree_options.initial_version = trees_->NextVersion();
  return trees_->by_name.emplace(std::string(store), IavlTree(tree_options)).first->second;
}

MemIavlDb::StagedPairs& MemIavlDb::StagedFor(std::string_view store) {
  auto staged = staged_.find(store);
  if (staged == staged_.end()) staged = staged_.emplace(std::string(store), StagedPairs{}).first;
  return staged->second;
}

namespace {

// Appends one pair in the changelog entry's encoding (changelog_entry.h).
void EncodePair(std::string* out, std::string_view key, const std::string_view* value) {
  out->push_back(value ? 0 : 1);
  encoding::PutFixed32LE(out, static_cast<uint32_t>(key.size()));
  out->append(key.data(), key.size());
  if (value) {
    encoding::PutFixed32LE(out, static_cast<uint32_t>(value->size()));
    out->append(value->data(), value->size());
  }
}

}  // namespace

void MemIavlDb::Set(std::string_view store, std::string_view key, std::string_view value) {
  if (key.empty()) throw Error(ErrorCode::kInvalidArgument, "memiavl keys must not be empty (store " + std::string(store) + ")");
  IavlTree& tree = TreeForWrite(store);
  tree.Set(key, value);
  StagedPairs& staged = StagedFor(store);
  EncodePair(&staged.bytes, key, &value);
  ++staged.count;
}

void MemIavlDb::Delete(std::string_view store, std::string_view key) {
  if (key.empty()) throw Error(ErrorCode::kInvalidArgument, "memiavl keys must not be empty (store " + std::string(store) + ")");
  IavlTree& tree = TreeForWrite(store);
  tree.Remove(key);
  StagedPairs& staged = StagedFor(store);
  EncodePair(&staged.bytes, key, nullptr);
  ++staged.count;
}

const IavlTree* MemIavlDb::Tree(std::string_view store) const {
  CheckOpen();
  auto it = trees_->by_name.find(store);
  return it == trees_->by_name.end() ? nullptr : &it->second;
}

std::vector<std::string> MemIavlDb::StoreNames() const {
  CheckOpen();
  std::vector<std::string> names;
  for (const auto& [name, tree] : trees_->by_name) names.push_back(name);
  return names;
}

std::vector<std::pair<std::string, uint64_t>> MemIavlDb::TreeMemoryBytes() const {
  CheckOpen();
  std::vector<std::pair<std::string, uint64_t>> bytes;
  for (const auto& [name, tree] : trees_->by_name) bytes.emplace_back(name, tree.MemoryBytes());
  return bytes;
}

std::vector<StoreInfo> MemIavlDb::WorkingCommitInfo() {
  CheckOpen();
  std::vector<StoreInfo> infos;
  for (auto& [name, tree] : trees_->by_name) infos.push_back({name, tree.NextVersion(), HashString(tree.RootHash())});
  return infos;
}

std::vector<StoreInfo> MemIavlDb::Commit() {
  LogStaged();
  return Seal();
}

void MemIavlDb::LogStaged() {
  CheckWritable();
  if (logged_) throw Error(ErrorCode::kInvalidArgument, "memiavl: the logged version was not sealed yet");
  const int64_t version = trees_->NextVersion();
  size_t size = 12;
  for (const auto& [store, staged] : staged_) size += 8 + store.size() + staged.bytes.size();
  std::string entry;
  entry.reserve(size);
  encoding::PutFixed64LE(&entry, static_cast<uint64_t>(version));
  encoding::PutFixed32LE(&entry, static_cast<uint32_t>(staged_.size()));
  for (const auto& [store, staged] : staged_) {
    encoding::PutFixed32LE(&entry, static_cast<uint32_t>(store.size()));
    entry += store;
    encoding::PutFixed32LE(&entry, staged.count);
    entry += staged.bytes;
  }
  const uint64_t index = changelog_->Append(entry);
  changelog_->Sync();
  if (!index_delta_known_) {
    index_delta_ = version - static_cast<int64_t>(index);
    index_delta_known_ = true;
  }
  staged_.clear();
  logged_ = true;
}

std::vector<StoreInfo> MemIavlDb::Seal() {
  CheckWritable();
  if (!logged_) throw Error(ErrorCode::kInvalidArgument, "memiavl: Seal() needs LogStaged() first");
  logged_ = false;
  const int64_t version = trees_->NextVersion();
  for (auto& [name, tree] : trees_->by_name) tree.SaveVersion();
  trees_->version = version;
  version_ = version;
  durable_version_.store(version);
  last_commit_info_ = InfosOf(*trees_);

  AdoptFinishedSnapshot();
  if (options_.snapshot_interval > 0 && version % options_.snapshot_interval == 0 && !job_) StartSnapshot();
  return last_commit_info_;
}

uint64_t MemIavlDb::IndexOf(int64_t version) const { return static_cast<uint64_t>(version - index_delta_); }

// ---- snapshots ------------------------------------------------------------------------------

void MemIavlDb::StartSnapshot() {
  job_ = std::make_unique<SnapshotJob>();
  job_->version = version_;
  job_->expected = last_commit_info_;
  SnapshotJob* job = job_.get();
  if (!options_.async_snapshot) {
    RunSnapshot(job);
    AdoptFinishedSnapshot();
    return;
  }
  job->thread = std::thread([this, job] { RunSnapshot(job); });
}

void MemIavlDb::RunSnapshot(SnapshotJob* job) {
  try {
    // Rebuild the snapshot's version from the previous snapshot and the changelog: the live
    // trees keep changing meanwhile and are never read here.
    Trees trees;
    trees.initial_version = trees_->initial_version;
    const std::vector<int64_t> snapshots = SnapshotVersions();
    std::optional<int64_t> base;
    for (int64_t v : snapshots) {
      if (v <= job->version) base = v;
    }
    if (base) {
      LoadSnapshotTrees((fs::path(dir_) / SnapshotDirName(*base)).string(), options_.hash_threads, snapshot_remedy_, &trees.by_name,
                        &trees.version, &trees.initial_version);
    }
    if (base != job->version) {
      ReplayInto(trees, trees.NextVersion(), job->version);
      if (InfosOf(trees) != job->expected) {
        throw Error(ErrorCode::kCorruption, "memiavl snapshot of version " + std::to_string(job->version) +
                                                " does not reproduce the committed hashes; the snapshot was not written");
      }
      // Time the writing alone (files, checksums, syncs), not the rebuild before it.
      const auto writing = std::chrono::steady_clock::now();
      job->bytes = WriteSnapshot(trees, job->version);
      job->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - writing).count();
    }
    PruneSnapshots();

    // Reload from the new snapshot (dropping every materialised node) and catch up with the
    // blocks committed meanwhile; the commit thread replays the last few.
    auto fresh = std::make_unique<Trees>();
    LoadSnapshotTrees((fs::path(dir_) / SnapshotDirName(job->version)).string(), options_.hash_threads,
                      snapshot_remedy_, &fresh->by_name, &fresh->version, &fresh->initial_version);
    for (int round = 0; round < 4; ++round) {
      const int64_t durable = durable_version_.load();
      if (durable <= fresh->version) break;
      ReplayInto(*fresh, fresh->version + 1, durable);
    }
    for (auto& [name, tree] : fresh->by_name) tree.RootHash();
    job->caught_up = std::move(fresh);
  } catch (...) {
    job->error = std::current_exception();
  }
  job->done.store(true);
}

uint64_t MemIavlDb::WriteSnapshot(Trees& trees, int64_t version) const {
  const std::string name = SnapshotDirName(version);
  const std::string final_dir = (fs::path(dir_) / name).string();
  const std::string tmp_dir = final_dir + kTmpSuffix;
  std::error_code ec;
  fs::remove_all(tmp_dir, ec);
  fs::create_directory(tmp_dir, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot create " + tmp_dir + ": " + ec.message());
  uint64_t bytes = 0;
  std::vector<StoreInfo> infos;
  WriteRateLimiter limiter(static_cast<uint64_t>(options_.snapshot_write_rate_mbps) * 1'000'000);
  for (auto& [store, tree] : trees.by_name) {
    TreeSnapshotWriter writer((fs::path(tmp_dir) / store).string(), &limiter);
    SnapshotTreeWriter visitor(writer);
    tree.WalkPostOrder(visitor);
    writer.Finish(tree.Version());
    bytes += writer.bytes_written();
    infos.push_back({store, tree.Version(), HashString(tree.RootHash())});
  }
  {
    const std::string meta_path = (fs::path(tmp_dir) / kMetadataFile).string();
    std::ofstream out(meta_path, std::ios::binary | std::ios::trunc);
    out << EncodeMetadata(version, trees.initial_version, infos);
    if (!out.flush()) throw Error(ErrorCode::kIo, "cannot write " + meta_path);
  }
  WriteDirectoryChecksums(tmp_dir);
  for (const auto& [store, tree] : trees.by_name) SyncDirectory((fs::path(tmp_dir) / store).string());
  SyncDirectory(tmp_dir);
  fs::rename(tmp_dir, final_dir, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot publish snapshot " + final_dir + ": " + ec.message());
  // Point `current` at it through a renamed symlink, so a crash leaves the old or the new one.
  const fs::path link_tmp = fs::path(dir_) / (std::string(kCurrentLink) + kTmpSuffix);
  fs::remove(link_tmp, ec);
  fs::create_symlink(name, link_tmp, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot create " + link_tmp.string() + ": " + ec.message());
  fs::rename(link_tmp, fs::path(dir_) / kCurrentLink, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot switch " + dir_ + "/current: " + ec.message());
  SyncDirectory(dir_);
  return bytes;
}

// Keeps the newest snapshot plus keep_recent older ones, and the changelog they need.
void MemIavlDb::PruneSnapshots() {
  std::vector<int64_t> versions = SnapshotVersions();
  const size_t keep = static_cast<size_t>(options_.keep_recent) + 1;
  while (versions.size() > keep) {
    std::error_code ec;
    fs::remove_all(fs::path(dir_) / SnapshotDirName(versions.front()), ec);
    if (ec) throw Error(ErrorCode::kIo, "cannot remove old snapshot " + SnapshotDirName(versions.front()) + ": " + ec.message());
    versions.erase(versions.begin());
  }
  if (!versions.empty() && index_delta_known_ && changelog_) changelog_->TruncateBefore(IndexOf(versions.front() + 1));
}

void MemIavlDb::AdoptFinishedSnapshot() {
  if (!job_ || !job_->done.load()) return;
  if (job_->thread.joinable()) job_->thread.join();
  std::unique_ptr<SnapshotJob> job = std::move(job_);
  if (job->error) {
    snapshot_error_ = job->error;
    return;
  }
  last_snapshot_bytes_ = job->bytes;
  last_snapshot_seconds_ = job->seconds;
  std::unique_ptr<Trees> fresh = std::move(job->caught_up);
  ReplayInto(*fresh, fresh->version + 1, version_);
  if (InfosOf(*fresh) != last_commit_info_) {
    snapshot_error_ = std::make_exception_ptr(Error(
        ErrorCode::kCorruption, "memiavl trees reloaded from snapshot " + std::to_string(job->version) +
                                    " disagree with the live trees; the live trees were kept"));
    return;
  }
  trees_ = std::move(fresh);
}

void MemIavlDb::WaitForSnapshot() {
  CheckOpen();
  if (job_) {
    if (job_->thread.joinable()) job_->thread.join();
    AdoptFinishedSnapshot();
  }
  if (snapshot_error_) std::rethrow_exception(std::exchange(snapshot_error_, nullptr));
}

std::pair<uint64_t, double> MemIavlDb::LastSnapshotStats() const {
  return {last_snapshot_bytes_, last_snapshot_seconds_};
}

// ---- rollback -------------------------------------------------------------------------------

void MemIavlDb::CheckRollbackTarget(int64_t target) const {
  // Version 0 is the empty state before the first commit. Only a database holding nothing
  // but its first version goes back there (a crash before the rest of the node recorded that
  // first block); with more history, the changelog's first entries may be gone.
  const int64_t first = trees_->initial_version > 1 ? trees_->initial_version : 1;
  if (target == 0 && version_ == first) return;
  if (target < 1 || target > version_) {
    throw Error(ErrorCode::kInvalidArgument, "cannot roll back memiavl to version " + std::to_string(target) +
                                                 ": choose a version from 1 to the latest, " + std::to_string(version_) +
                                                 " (or 0 while only the first version is committed)");
  }
}

std::vector<StoreInfo> MemIavlDb::Rollback(int64_t target) {
  CheckWritable();
  if (job_ && job_->thread.joinable()) job_->thread.join();
  job_.reset();
  snapshot_error_ = nullptr;
  if (!staged_.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "memiavl cannot roll back with uncommitted changes staged; reopen the database first");
  }
  CheckRollbackTarget(target);
  if (target == version_) return last_commit_info_;

  const std::vector<int64_t> snapshots = SnapshotVersions();
  std::optional<int64_t> base;
  for (int64_t v : snapshots) {
    if (v <= target) base = v;
  }
  auto trees = std::make_unique<Trees>();
  trees->initial_version = trees_->initial_version;
  if (base) {
    LoadSnapshotTrees((fs::path(dir_) / SnapshotDirName(*base)).string(), options_.hash_threads, snapshot_remedy_, &trees->by_name,
                      &trees->version, &trees->initial_version);
  }
  try {
    ReplayInto(*trees, trees->NextVersion(), target);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCorruption) throw;
    trees->version = -1;
  }
  if (trees->version != target) {
    const std::string oldest = snapshots.empty() ? "none" : std::to_string(snapshots.front());
    throw Error(ErrorCode::kInvalidArgument,
                "cannot roll back memiavl to version " + std::to_string(target) +
                    ": no snapshot at or below it is followed by a complete changelog (oldest snapshot: " + oldest +
                    "); choose a later version or restore from a state-sync snapshot");
  }
  std::vector<StoreInfo> infos = InfosOf(*trees);

  // Order matters for a crash in between: first `current` (a reopen then still replays to
  // the old tip: nothing lost), then newer snapshots, then the changelog beyond the target.
  std::error_code ec;
  const fs::path link = fs::path(dir_) / kCurrentLink;
  if (base) {
    const fs::path link_tmp = fs::path(dir_) / (std::string(kCurrentLink) + kTmpSuffix);
    fs::remove(link_tmp, ec);
    fs::create_symlink(SnapshotDirName(*base), link_tmp, ec);
    if (!ec) fs::rename(link_tmp, link, ec);
  } else {
    fs::remove(link, ec);
  }
  if (ec) throw Error(ErrorCode::kIo, "cannot switch " + link.string() + ": " + ec.message());
  for (int64_t v : snapshots) {
    if (v > target) fs::remove_all(fs::path(dir_) / SnapshotDirName(v), ec);
    if (ec) throw Error(ErrorCode::kIo, "cannot remove snapshot " + SnapshotDirName(v) + ": " + ec.message());
  }
  SyncDirectory(dir_);
  if (target == 0) {
    // Back to empty: every entry goes, and the first version is logged at the same index again.
    changelog_->TruncateAfter(changelog_->first_index() - 1);
  } else if (index_delta_known_) {
    changelog_->TruncateAfter(IndexOf(target));
  }

  trees_ = std::move(trees);
  version_ = target;
  durable_version_.store(target);
  last_commit_info_ = std::move(infos);
  return last_commit_info_;
}

// ---- repair ---------------------------------------------------------------------------------

SnapshotRepair MemIavlDb::RepairSnapshots(const std::string& dir, const MemIavlOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw Error(ErrorCode::kInvalidArgument, "memiavl directory " + dir + " does not exist; check the path (it is data/committer.db under the node home)");
  }
  const UniqueFd lock = LockDirectory(dir, false);
  // A reader's view: the changelog is replayed without being opened for writing, so a refusal
  // leaves every byte as it was.
  MemIavlOptions probe_options = options;
  probe_options.read_only = true;
  probe_options.target_version = 0;
  MemIavlDb probe(dir, probe_options);

  // The latest committed version: the newest entry of the changelog, or the newest snapshot
  // (damaged or not, its name says which version was committed) when the changelog ends there.
  const std::vector<int64_t> snapshots = ListSnapshotVersions(dir);
  int64_t latest = snapshots.empty() ? 0 : snapshots.back();
  std::optional<int64_t> first_logged;
  const std::string log_dir = (fs::path(dir) / "changelog").string();
  try {
    Changelog::ReadOnlyReplay(log_dir, 0, UINT64_MAX, [&](std::string_view entry) {
      const auto version = static_cast<int64_t>(ChangelogEntryVersion(entry));
      if (!first_logged) first_logged = version;
      latest = std::max(latest, version);
    });
  } catch (const ChangelogCorruption& e) {
    throw Error(ErrorCode::kCorruption, "cannot repair the memiavl snapshots of " + dir + ": changelog segment " + e.path() +
                                            " is damaged at byte " + std::to_string(e.offset()) +
                                            ", so the latest committed version is unknown; nothing was changed. Restore "
                                            "the node from a state-sync snapshot or a backup");
  }

  // Verify every snapshot; the newest intact one becomes the base.
  SnapshotRepair repair;
  std::optional<int64_t> base;
  std::unique_ptr<Trees> trees;
  for (auto it = snapshots.rbegin(); it != snapshots.rend(); ++it) {
    const std::string path = (fs::path(dir) / SnapshotDirName(*it)).string();
    auto loaded = std::make_unique<Trees>();
    try {
      LoadSnapshotTrees(path, options.hash_threads, std::string(), &loaded->by_name, &loaded->version,
                        &loaded->initial_version);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kCorruption) throw;
      repair.removed.push_back({*it, path, e.what()});
      continue;
    }
    if (!base) {
      base = *it;
      trees = std::move(loaded);
    }
  }
  if (!trees) {
    trees = std::make_unique<Trees>();
    trees->initial_version = options.initial_version;
  }

  // Replay from the base to the latest version, as the next open will.
  std::string gap;
  try {
    probe.ReplayInto(*trees, trees->NextVersion(), latest);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCorruption) throw;
    gap = e.what();
  }
  if (!gap.empty() || trees->version != latest) {
    const std::string from = base ? "the newest intact snapshot, " + std::to_string(*base) : std::string("no intact snapshot");
    const std::string log = first_logged ? "the changelog starts at version " + std::to_string(*first_logged)
                                         : std::string("the changelog is empty");
    throw Error(ErrorCode::kCorruption,
                "cannot repair the memiavl snapshots of " + dir + ": the latest committed version is " +
                    std::to_string(latest) + ", but " + from + " plus the changelog does not reach it (" + log +
                    "); nothing was changed. Restore the node from a state-sync snapshot or a backup");
  }

  // Order matters for a crash in between: first `current` (always naming an intact snapshot
  // from here on), then the damaged snapshots.
  const fs::path link = fs::path(dir) / kCurrentLink;
  std::optional<int64_t> named;
  if (fs::is_symlink(link, ec)) named = ParseSnapshotDirName(fs::read_symlink(link, ec).filename().string());
  if (base && named != base) {
    const fs::path link_tmp = fs::path(dir) / (std::string(kCurrentLink) + kTmpSuffix);
    fs::remove(link_tmp, ec);
    fs::create_symlink(SnapshotDirName(*base), link_tmp, ec);
    if (!ec) fs::rename(link_tmp, link, ec);
  } else if (!base) {
    fs::remove(link, ec);
  }
  if (ec) throw Error(ErrorCode::kIo, "cannot switch " + link.string() + ": " + ec.message());
  SyncDirectory(dir);
  for (const RemovedSnapshot& removed : repair.removed) {
    fs::remove_all(removed.path, ec);
    if (ec) throw Error(ErrorCode::kIo, "cannot remove damaged snapshot " + removed.path + ": " + ec.message() + "; remove it by hand");
  }
  SyncDirectory(dir);
  repair.current = base;
  repair.version = latest;
  return repair;
}

SnapshotRepair RepairMemIavlSnapshots(const std::string& memiavl_dir) {
  return MemIavlDb::RepairSnapshots(memiavl_dir, MemIavlOptions{});
}

// ---- export / import ------------------------------------------------------------------------

void MemIavlDb::Export(MemIavlExportSink& sink) const {
  CheckOpen();
  if (!staged_.empty()) throw Error(ErrorCode::kInvalidArgument, "memiavl cannot export with uncommitted changes staged; commit first");
  for (auto& [name, tree] : trees_->by_name) {
    sink.Store(name);
    ExportTreeWalker walker(sink);
    tree.WalkPostOrder(walker);
  }
}

namespace {

// Rebuilds one tree's snapshot files from its export nodes, recomputing every hash and
// checking the post-order shape as it goes.
class TreeImporter {
 public:
  TreeImporter(const std::string& dir, std::string name, int64_t max_version)
      : writer_(dir), name_(std::move(name)), max_version_(max_version) {}

  void Add(const MemIavlDb::ImportItem& item) {
    if (item.version < 0 || item.version > max_version_) Fail("node version " + std::to_string(item.version) + " is outside 0.." + std::to_string(max_version_));
    if (item.height == 0) {
      if (item.key.empty()) Fail("a leaf has an empty key");
      if (last_key_ && item.key <= *last_key_) Fail("leaves are not in ascending key order");
      last_key_ = item.key;
      const Sha256Digest hash = LeafHash(item.key, item.value, item.version);
      stack_.push_back({writer_.leaf_count(), 1, 0, hash});
      writer_.AddLeaf(item.key, item.value, item.version, hash);
      return;
    }
    if (stack_.size() < 2) Fail("a branch arrives before its two children");
    const Pending right = stack_.back();
    stack_.pop_back();
    const Pending left = stack_.back();
    stack_.pop_back();
    if (item.height != std::max(left.height, right.height) + 1) Fail("a branch has the wrong height");
    const uint32_t size = left.size + right.size;
    const Sha256Digest hash = InnerHash(item.height, size, item.version, left.hash, right.hash);
    writer_.AddBranch(item.height, item.version, size, right.first_leaf, hash);
    stack_.push_back({left.first_leaf, size, item.height, hash});
  }

  StoreInfo Finish(int64_t version) {
    if (stack_.size() > 1) Fail("the stream ends with " + std::to_string(stack_.size()) + " unjoined subtrees");
    writer_.Finish(version);
    return {name_, version, HashString(stack_.empty() ? EmptyTreeHash() : stack_.back().hash)};
  }

 private:
  struct Pending {
    uint32_t first_leaf;
    uint32_t size;
    uint8_t height;
    Sha256Digest hash;
  };
  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(ErrorCode::kInvalidArgument, "state-sync import of store " + name_ + ": " + what +
                                                 "; the snapshot is damaged or not an IAVL export, fetch it again");
  }
  TreeSnapshotWriter writer_;
  std::string name_;
  int64_t max_version_;
  std::vector<Pending> stack_;
  std::optional<std::string> last_key_;
};

}  // namespace

void MemIavlDb::Import(const std::string& dir, int64_t version, const MemIavlOptions& options,
                       const std::function<bool(ImportItem*)>& next) {
  SnapshotVersion(version);
  if (version < 1) throw Error(ErrorCode::kInvalidArgument, "state-sync import needs a version >= 1");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    throw Error(ErrorCode::kInvalidArgument, "cannot import state into " + dir + ": it is not empty; move it aside first");
  }
  MemIavlOptions writer_options = options;
  writer_options.read_only = false;
  writer_options.target_version = 0;
  writer_options.create_if_missing = true;
  {
    // Takes the lock and lays out an empty database.
    auto db = Open(dir, writer_options);
    db->Close();
  }
  UniqueFd lock(::open((fs::path(dir) / "LOCK").c_str(), O_RDWR | O_CLOEXEC));
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) ThrowErrno("cannot lock " + dir);

  const std::string name = SnapshotDirName(version);
  const std::string tmp_dir = (fs::path(dir) / name).string() + kTmpSuffix;
  fs::create_directory(tmp_dir, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot create " + tmp_dir + ": " + ec.message());
  std::vector<StoreInfo> infos;
  std::unique_ptr<TreeImporter> tree;
  ImportItem item;
  std::optional<std::string> last_store;
  while (next(&item)) {
    if (item.store) {
      if (tree) infos.push_back(tree->Finish(version));
      CheckTreeName(*item.store);
      if (last_store && *item.store <= *last_store) {
        throw Error(ErrorCode::kInvalidArgument, "state-sync import: stores must arrive once each, in name order (" +
                                                     *item.store + " after " + *last_store + ")");
      }
      last_store = *item.store;
      tree = std::make_unique<TreeImporter>((fs::path(tmp_dir) / *item.store).string(), *item.store, version);
      continue;
    }
    if (!tree) throw Error(ErrorCode::kInvalidArgument, "state-sync import: a node arrived before any store header");
    tree->Add(item);
  }
  if (tree) infos.push_back(tree->Finish(version));
  {
    const std::string meta_path = (fs::path(tmp_dir) / kMetadataFile).string();
    std::ofstream out(meta_path, std::ios::binary | std::ios::trunc);
    out << EncodeMetadata(version, options.initial_version, infos);
    if (!out.flush()) throw Error(ErrorCode::kIo, "cannot write " + meta_path);
  }
  WriteDirectoryChecksums(tmp_dir);
  SyncDirectory(tmp_dir);
  fs::rename(tmp_dir, fs::path(dir) / name, ec);
  if (!ec) fs::create_symlink(name, fs::path(dir) / kCurrentLink, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot publish imported snapshot in " + dir + ": " + ec.message());
  // Changelog indexes follow versions from here on.
  Changelog((fs::path(dir) / "changelog").string()).SkipTo(static_cast<uint64_t>(version) + 1);
  SyncDirectory(dir);
}

}  // namespace strata::sc

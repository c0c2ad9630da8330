#include "strata/dump_iavl.h"

#include <cstdio>
#include <filesystem>
#include <memory>

#include "encoding.h"
#include "sc/memiavl/memiavl_db.h"
#include "strata/status.h"

namespace fs = std::filesystem;

namespace strata::sc {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

std::vector<DumpedTree> DumpIavl(const std::string& memiavl_dir, const std::string& out_dir, int64_t height,
                                 const std::vector<std::string>& modules) {
  if (height < 0) throw Error(ErrorCode::kInvalidArgument, "dump-iavl --height must be >= 0 (0 = latest)");
  MemIavlOptions options;
  options.read_only = true;
  options.target_version = height;
  auto db = MemIavlDb::Open(memiavl_dir, options);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot create output directory " + out_dir + ": " + ec.message());

  const std::vector<std::string> names = modules.empty() ? db->StoreNames() : modules;
  std::vector<DumpedTree> dumped;
  for (const std::string& name : names) {
    DumpedTree result;
    result.module = name;
    const IavlTree* tree = db->Tree(name);
    if (tree == nullptr) {
      dumped.push_back(result);
      continue;
    }
    result.exists = true;
    result.version = tree->Version();
    const Sha256Digest hash = tree->RootHash();
    encoding::AppendHex(&result.root_hash, std::string_view(reinterpret_cast<const char*>(hash.data()), hash.size()), true);
    result.path = (fs::path(out_dir) / name).string();
    std::unique_ptr<std::FILE, FileCloser> out(std::fopen(result.path.c_str(), "wb"));
    if (!out) throw Error(ErrorCode::kIo, "cannot write " + result.path);
    std::string line = "Tree " + name + " has version " + std::to_string(result.version) +
                       " and root hash: " + result.root_hash + "\n";
    for (auto it = tree->NewIterator(std::nullopt, std::nullopt, true); it.Valid(); it.Next()) {
      line += "Key: ";
      encoding::AppendHex(&line, it.Key(), true);
      line += ", Value: ";
      encoding::AppendHex(&line, it.Value(), true);
      line += '\n';
      ++result.leaves;
      if (line.size() >= (1 << 20)) {
        if (std::fwrite(line.data(), 1, line.size(), out.get()) != line.size()) throw Error(ErrorCode::kIo, "cannot write " + result.path);
        line.clear();
      }
    }
    if (std::fwrite(line.data(), 1, line.size(), out.get()) != line.size() || std::fflush(out.get()) != 0) {
      throw Error(ErrorCode::kIo, "cannot write " + result.path);
    }
    dumped.push_back(std::move(result));
  }
  return dumped;
}

}  // namespace strata::sc

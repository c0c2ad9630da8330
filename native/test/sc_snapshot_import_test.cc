// A restore's two imports from hand-written streams. ImportSnapshotLeaves, into real MVCC
// stores: what the SS serves after a restore (leaves only, by store, FlatKV rows as logical
// keys, the legacy `evm_flatkv` as `evm`, the split routing `evm` aside). ImportStateSnapshot:
// the SC's memiavl and FlatKV (whose rows another thread imports), and its refusals.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "strata/mvcc_store.h"
#include "strata/state_snapshot.h"
#include "sc/varint.h"
#include "strata/status.h"
#include "test_util.h"

namespace strata {
namespace {

using sc::PutUvarint;

void PutBytes(std::string* out, int field, const std::string& bytes) {
  out->push_back(static_cast<char>(field << 3 | 2));
  PutUvarint(out, bytes.size());
  *out += bytes;
}

// Builds a stream of SnapshotItems the way the SDK frames them.
class StreamBuilder {
 public:
  StreamBuilder& Store(const std::string& name) {
    std::string inner;
    PutBytes(&inner, 1, name);
    return Item(1, inner);
  }
  StreamBuilder& Node(const std::string& key, const std::string& value, int height = 0) {
    std::string inner;
    PutBytes(&inner, 1, key);
    PutBytes(&inner, 2, value);
    inner.push_back(static_cast<char>(3 << 3));
    PutUvarint(&inner, 7);
    if (height != 0) {
      inner.push_back(static_cast<char>(4 << 3));
      PutUvarint(&inner, static_cast<uint64_t>(height));
    }
    return Item(2, inner);
  }
  std::string WriteTo(const std::string& path) const {
    std::ofstream(path, std::ios::binary) << bytes_;
    return path;
  }

 private:
  StreamBuilder& Item(int field, const std::string& inner) {
    std::string item;
    PutBytes(&item, field, inner);
    PutUvarint(&bytes_, item.size());
    bytes_ += item;
    return *this;
  }
  std::string bytes_;
};

std::string Address(char fill) { return std::string(20, fill); }

// A FlatKV row: version byte, 8-byte height, payload.
std::string Row(const std::string& payload) { return std::string(1, '\0') + std::string(7, '\0') + "\x05" + payload; }

using Contents = std::map<std::pair<std::string, std::string>, std::string>;

class SnapshotLeavesTest : public testing::Test {
 protected:
  std::unique_ptr<MvccStore> Open(const std::string& name) {
    StoreOptions options;
    options.block_cache_bytes = 8 << 20;
    return MvccStore::Open((std::filesystem::path(dir_.path()) / name).string(), options);
  }
  std::string Path(const std::string& name) const { return (std::filesystem::path(dir_.path()) / name).string(); }

  // Every (store, key) → value of `stores` at version 10.
  static Contents Read(MvccStore& store, const std::vector<std::string>& stores) {
    Contents out;
    for (const auto& name : stores) {
      for (auto it = store.NewIterator(name, 10, std::nullopt, std::nullopt, false); it->Valid(); it->Next()) {
        out[{name, std::string(it->key())}] = std::string(it->value());
      }
    }
    return out;
  }

  test::TempDir dir_;
};

TEST_F(SnapshotLeavesTest, WritesLeavesByStoreAndTurnsFlatKvRowsIntoLogicalKeys) {
  const std::string nonce8("\0\0\0\0\0\0\0\x03", 8);
  const std::string code_hash(32, '\x11');
  const std::string path = StreamBuilder()
                               .Store("bank")
                               .Node("inner", "", 1)  // not a leaf: the SS keeps none
                               .Node("balance-a", "100")
                               .Node("", "ignored")  // a leaf without a key is not a state entry
                               .Store("flatkv")
                               .Node("evm/\x0a" + Address('a'), Row(std::string(32, '\0') + nonce8))
                               .Node("evm/\x0a" + Address('b'), Row(std::string(32, '\0') + nonce8 + code_hash))
                               .Node("evm/\x07" + Address('b'), Row("code"))
                               .Node("evm/\x03" + Address('b') + std::string(32, '\x01'), Row("slot"))
                               .Node("wasm/k", Row("w"))
                               .WriteTo(Path("stream"));
  auto cosmos = Open("cosmos");
  EXPECT_EQ(sc::ImportSnapshotLeaves(path, 10, *cosmos, nullptr), 7u);
  const Contents expected = {
      {{"bank", "balance-a"}, "100"},
      {{"evm", "\x0a" + Address('a')}, nonce8},
      {{"evm", "\x0a" + Address('b')}, nonce8},
      {{"evm", "\x08" + Address('b')}, code_hash},
      {{"evm", "\x07" + Address('b')}, "code"},
      {{"evm", "\x03" + Address('b') + std::string(32, '\x01')}, "slot"},
      {{"wasm", "k"}, "w"},
  };
  EXPECT_EQ(Read(*cosmos, {"bank", "evm", "wasm"}), expected);
}

TEST_F(SnapshotLeavesTest, TheSplitSendsEvmItemsToTheEvmStoreOnly) {
  const std::string path = StreamBuilder()
                               .Store("bank")
                               .Node("b", "1")
                               .Store("evm_flatkv")  // the legacy name of the evm store
                               .Node("\x07" + Address('c'), "code")
                               .WriteTo(Path("stream"));
  auto cosmos = Open("cosmos");
  auto evm = Open("evm");
  EXPECT_EQ(sc::ImportSnapshotLeaves(path, 10, *cosmos, evm.get()), 2u);
  EXPECT_EQ(Read(*cosmos, {"bank", "evm", "evm_flatkv"}), (Contents{{{"bank", "b"}, "1"}}));
  EXPECT_EQ(Read(*evm, {"bank", "evm", "evm_flatkv"}), (Contents{{{"evm", "\x07" + Address('c')}, "code"}}));
}

// More items than one sorted file takes, out of key order (each account row yields a nonce
// and a code-hash key, so consecutive files overlap), and one item larger than a read block.
TEST_F(SnapshotLeavesTest, ImportsAStreamOfManyFilesAndItemsLargerThanAReadBlock) {
  constexpr int kAccounts = 140'000;
  const std::string nonce8("\0\0\0\0\0\0\0\x02", 8);
  StreamBuilder stream;
  stream.Store("bank");
  for (int i = 0; i < kAccounts; ++i) stream.Node("balance-" + std::to_string(1'000'000 + i), std::to_string(i));
  stream.Store("flatkv");
  std::string big_code(5 << 20, '\x5b');
  auto address = [](int i) {
    std::string a(20, '\0');
    for (int b = 0; b < 4; ++b) a[16 + b] = static_cast<char>(i >> (24 - 8 * b));
    return a;
  };
  for (int i = 0; i < kAccounts; ++i) {
    stream.Node("evm/\x0a" + address(i), Row(std::string(32, '\0') + nonce8 + std::string(32, static_cast<char>(1 + i % 200))));
  }
  stream.Node("evm/\x07" + address(7), Row(big_code));
  auto cosmos = Open("cosmos");
  EXPECT_EQ(sc::ImportSnapshotLeaves(stream.WriteTo(Path("stream")), 10, *cosmos, nullptr), 3u * kAccounts + 1);
  for (int i : {0, 1, 99'999, 100'000, kAccounts - 1}) {
    EXPECT_EQ(cosmos->Get("bank", 10, "balance-" + std::to_string(1'000'000 + i)), std::optional<std::string>(std::to_string(i)));
    EXPECT_EQ(cosmos->Get("evm", 10, "\x0a" + address(i)), std::optional<std::string>(nonce8));
    EXPECT_EQ(cosmos->Get("evm", 10, "\x08" + address(i)), std::optional<std::string>(std::string(32, static_cast<char>(1 + i % 200))));
  }
  EXPECT_EQ(cosmos->Get("evm", 10, "\x07" + address(7)), std::optional<std::string>(big_code));
  size_t evm_keys = 0;
  for (auto it = cosmos->NewIterator("evm", 10, std::nullopt, std::nullopt, false); it->Valid(); it->Next()) ++evm_keys;
  EXPECT_EQ(evm_keys, 2u * kAccounts + 1);
}

TEST_F(SnapshotLeavesTest, RefusesMalformedStreamsNamingTheFault) {
  const std::vector<std::pair<StreamBuilder, std::string>> cases = {
      {StreamBuilder().Node("k", "v"), "a node before any store"},
      {StreamBuilder().Store("flatkv").Node("evmkey", Row("x")), "without a \"<module>/\" prefix"},
      {StreamBuilder().Store("flatkv").Node("evm/", Row("x")), "without a \"<module>/\" prefix"},
      {StreamBuilder().Store("flatkv").Node("evm/k", "short"), "shorter than its header"},
      {StreamBuilder().Store("flatkv").Node("evm/\x0a" + Address('a'), Row("only a few bytes")), "account row of the wrong size"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& [stream, fault] = cases[i];
    auto cosmos = Open("cosmos-" + std::to_string(i));
    try {
      sc::ImportSnapshotLeaves(stream.WriteTo(Path("bad")), 10, *cosmos, nullptr);
      ADD_FAILURE() << "accepted a stream with " << fault;
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument) << fault;
      EXPECT_NE(std::string(error.what()).find(fault), std::string::npos) << error.what();
    }
  }
  auto cosmos = Open("cosmos-truncated");
  std::ofstream(Path("truncated"), std::ios::binary) << std::string("\x20\x0a", 2);
  EXPECT_THROW(sc::ImportSnapshotLeaves(Path("truncated"), 10, *cosmos, nullptr), Error);
}

std::string AccountRow() { return Row(std::string(32, '\0') + std::string("\0\0\0\0\0\0\0\x01", 8)); }

class StateSnapshotImportTest : public testing::Test {
 protected:
  sc::StateSnapshotStats Import(const StreamBuilder& stream, bool flatkv_enabled = true) {
    sc::CommitStoreOptions options;
    options.flatkv_enabled = flatkv_enabled;
    // Each import gets fresh directories: a refused one leaves its partial state behind.
    const auto root = std::filesystem::path(dir_.path()) / std::to_string(++imports_);
    std::filesystem::create_directories(root);
    return sc::ImportStateSnapshot((root / "memiavl").string(), FlatKvDir(), 10, options, stream.WriteTo((root / "stream").string()));
  }
  std::string FlatKvDir() const { return (std::filesystem::path(dir_.path()) / std::to_string(imports_) / "flatkv").string(); }

  static void ExpectRefused(const std::function<void()>& import, const std::string& fault) {
    try {
      import();
      ADD_FAILURE() << "accepted a stream with " << fault;
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument) << fault;
      EXPECT_NE(std::string(error.what()).find(fault), std::string::npos) << error.what();
    }
  }

  test::TempDir dir_;
  int imports_ = 0;
};

TEST_F(StateSnapshotImportTest, BuildsMemiavlAndFlatKvFromOneStream) {
  const auto stats = Import(StreamBuilder().Store("bank").Node("a", "1").Store("flatkv").Node("evm/\x0a" + Address('a'), AccountRow()));
  EXPECT_EQ(stats.version, 10);
  EXPECT_EQ(stats.items, 4u);
  EXPECT_TRUE(std::filesystem::exists(FlatKvDir()) && !std::filesystem::is_empty(FlatKvDir())) << "FlatKV was built from the row";
}

TEST_F(StateSnapshotImportTest, RefusesWhatCannotBeTheState) {
  ExpectRefused([&] {
    Import(StreamBuilder().Store("bank").Node("a", "1").Store("flatkv").Node("evm/\x0a" + Address('a'), AccountRow()).Store("evm").Node("\x07" + Address('b'), "code"));
  }, "both flatkv rows and evm keys");
  ExpectRefused([&] { Import(StreamBuilder().Store("bank").Node("a", "1").Store("flatkv").Node("evm/\x0a" + Address('a'), AccountRow()), false); },
                "FlatKV is disabled on this node");
}

TEST_F(StateSnapshotImportTest, AMalformedRowFailsTheImportFromItsOwnThread) {
  EXPECT_THROW(Import(StreamBuilder().Store("bank").Node("a", "1").Store("flatkv").Node("evm/\x0a" + Address('a'), Row("short"))), Error);
}

}  // namespace
}  // namespace strata

// dump-iavl: writes memiavl's trees at a height as text, one file per module, so two nodes'
// state can be compared line by line when their app hashes differ:
//
//   Tree <module> has version <v> and root hash: <HEX>
//   Key: <HEX>, Value: <HEX>            (one line per leaf, in key order)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::sc {

/// What was dumped for one requested module.
struct DumpedTree {
  std::string module;
  bool exists = false;     // false: no such tree (no file written)
  int64_t version = 0;
  std::string root_hash;   // upper-case hex
  uint64_t leaves = 0;
  std::string path;        // the file written
};

/// Opens `memiavl_dir` read-only at `height` (0 = latest) and dumps `modules` (empty = every
/// tree) into `out_dir`, created if needed. Throws kIo while a node holds the directory.
std::vector<DumpedTree> DumpIavl(const std::string& memiavl_dir, const std::string& out_dir, int64_t height,
                                 const std::vector<std::string>& modules);

}  // namespace strata::sc

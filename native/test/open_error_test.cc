// How a failed open is classified: another process holding the lock, a directory the node
// may not write, or any other failure.
#include "open_error.h"

#include <gtest/gtest.h>
#include <rocksdb/status.h>

#include <string>

namespace strata {
namespace {

std::string MessageOf(const rocksdb::Status& status) {
  try {
    ThrowIfOpenFailed(status, "plain KV store /data/blockstore", "opening the plain KV store");
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(OpenErrorTest, ALockHeldByAnotherProcessSaysSo) {
  const std::string message = MessageOf(rocksdb::Status::IOError("lock hold by current process, acquire time 1 acquiring thread 2: /data/blockstore/LOCK: No locks available"));
  EXPECT_NE(message.find("is in use by another process"), std::string::npos) << message;
}

TEST(OpenErrorTest, AReadOnlyDirectoryIsNotReportedAsInUse) {
  for (const char* reason : {"While open a file for lock: /data/blockstore/LOCK: Permission denied",
                             "While open a file for lock: /data/blockstore/LOCK: Read-only file system"}) {
    const std::string message = MessageOf(rocksdb::Status::IOError(reason));
    EXPECT_EQ(message.find("in use by another process"), std::string::npos) << message;
    EXPECT_NE(message.find("cannot be opened for writing"), std::string::npos) << message;
    EXPECT_NE(message.find("make its directory writable by the user running the node"), std::string::npos) << message;
  }
}

TEST(OpenErrorTest, OtherFailuresKeepTheirStatus) {
  const std::string message = MessageOf(rocksdb::Status::Corruption("bad block"));
  EXPECT_NE(message.find("opening the plain KV store: Corruption: bad block"), std::string::npos) << message;
  EXPECT_NO_THROW(ThrowIfOpenFailed(rocksdb::Status::OK(), "s", "a"));
}

}  // namespace
}  // namespace strata

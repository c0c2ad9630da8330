// Helpers shared by the storage-core unit tests.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "strata/status.h"

namespace strata {

// Lets gtest print error codes by name instead of as raw bytes.
inline void PrintTo(ErrorCode code, std::ostream* os) { *os << ErrorCodeName(code); }

namespace test {

/// The code of the strata::Error thrown by `fn`, or nullopt if it returned normally. Any other
/// exception escapes, so gtest reports it as a test failure with its message.
inline std::optional<ErrorCode> ErrorCodeOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code();
  }
  return std::nullopt;
}

/// A fresh directory under /tmp, removed with everything in it when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "strata-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }

 private:
  std::string path_;
};

}  // namespace test
}  // namespace strata

#define EXPECT_STRATA_ERROR(statement, expected_code) \
  EXPECT_EQ(::strata::test::ErrorCodeOf([&] { statement; }), std::optional<::strata::ErrorCode>(expected_code))

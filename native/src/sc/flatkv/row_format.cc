#include "sc/flatkv/row_format.h"

#include <algorithm>

#include "strata/status.h"

namespace strata::sc::flatkv {
namespace {

constexpr char kRowFormatVersion = 0x00;
constexpr size_t kShortKindKeyBytes = 1 + kAddressBytes;             // 21
constexpr size_t kStorageKeyBytes = 1 + kAddressBytes + kSlotBytes;  // 53

void PutBigEndian64(uint64_t v, std::string* out) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetBigEndian64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

void AppendHeader(int64_t height, std::string* out) {
  out->push_back(kRowFormatVersion);
  PutBigEndian64(static_cast<uint64_t>(height), out);
}

// Returns an empty string when the header is fine, otherwise what is wrong with it.
std::string HeaderProblem(std::string_view row) {
  if (row.size() < kRowHeaderBytes) return "row of " + std::to_string(row.size()) + " bytes is shorter than its header";
  if (row[0] != kRowFormatVersion) return "row has unknown format version " + std::to_string(static_cast<uint8_t>(row[0]));
  return {};
}

void CheckHeader(std::string_view row) {
  std::string problem = HeaderProblem(row);
  if (!problem.empty()) {
    throw Error(ErrorCode::kCorruption,
                "FlatKV " + problem + "; roll the store back to a snapshot or restore it from a state-sync snapshot");
  }
}

}  // namespace

const char* RowFamilyName(RowFamily family) {
  switch (family) {
    case RowFamily::kAccount: return "account";
    case RowFamily::kCode: return "code";
    case RowFamily::kStorage: return "storage";
    case RowFamily::kMisc: return "misc";
  }
  return "unknown";
}

LogicalKind ClassifyLogicalKey(std::string_view key) {
  if (key.empty()) return LogicalKind::kMisc;
  if (key.size() == kShortKindKeyBytes) {
    switch (key[0]) {
      case kNoncePrefix: return LogicalKind::kNonce;
      case kCodeHashPrefix: return LogicalKind::kCodeHash;
      case kCodePrefix: return LogicalKind::kCode;
      default: return LogicalKind::kMisc;
    }
  }
  if (key.size() == kStorageKeyBytes && key[0] == kStoragePrefix) return LogicalKind::kStorage;
  return LogicalKind::kMisc;
}

RowFamily FamilyOf(LogicalKind kind) {
  switch (kind) {
    case LogicalKind::kNonce:
    case LogicalKind::kCodeHash: return RowFamily::kAccount;
    case LogicalKind::kCode: return RowFamily::kCode;
    case LogicalKind::kStorage: return RowFamily::kStorage;
    case LogicalKind::kMisc: return RowFamily::kMisc;
  }
  return RowFamily::kMisc;
}

std::string PhysicalKey(std::string_view logical_key, LogicalKind kind) {
  std::string key;
  key.reserve(kEvmModulePrefix.size() + logical_key.size());
  key.append(kEvmModulePrefix);
  if (kind == LogicalKind::kCodeHash) {
    key.push_back(kNoncePrefix);
    key.append(logical_key.substr(1));
  } else {
    key.append(logical_key);
  }
  return key;
}

RowFamily FamilyOfPhysicalKey(std::string_view physical_key) {
  size_t slash = physical_key.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == physical_key.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                "FlatKV row key of " + std::to_string(physical_key.size()) +
                    " bytes is not <module>/<key>; import only rows exported from a FlatKV store");
  }
  // Only the evm module has typed rows; another module's key that happens to look like an
  // evm prefix is still misc.
  if (physical_key.substr(0, slash + 1) != kEvmModulePrefix) return RowFamily::kMisc;
  LogicalKind kind = ClassifyLogicalKey(physical_key.substr(slash + 1));
  // A code-hash logical key never names a row of its own.
  if (kind == LogicalKind::kCodeHash) return RowFamily::kMisc;
  return FamilyOf(kind);
}

std::string EncodeAccountRow(int64_t height, const AccountFields& fields) {
  std::string row;
  row.reserve(kAccountRowWithCodeHashBytes);
  AppendHeader(height, &row);
  row.append(kBalanceBytes, '\0');
  PutBigEndian64(fields.nonce, &row);
  row.append(fields.code_hash);
  return row;
}

AccountFields DecodeAccountRow(std::string_view row) {
  CheckHeader(row);
  if (row.size() != kAccountRowBytes && row.size() != kAccountRowWithCodeHashBytes) {
    throw Error(ErrorCode::kCorruption, "FlatKV account row has " + std::to_string(row.size()) +
                                            " bytes instead of 49 or 81; roll the store back to a snapshot "
                                            "or restore it from a state-sync snapshot");
  }
  AccountFields fields;
  fields.nonce = GetBigEndian64(row.data() + kRowHeaderBytes + kBalanceBytes);
  if (row.size() == kAccountRowWithCodeHashBytes) fields.code_hash = NormalizeCodeHash(row.substr(kAccountRowBytes));
  return fields;
}

std::string EncodePlainRow(int64_t height, std::string_view payload) {
  std::string row;
  row.reserve(kRowHeaderBytes + payload.size());
  AppendHeader(height, &row);
  row.append(payload);
  return row;
}

std::string_view PlainRowPayload(std::string_view row) {
  CheckHeader(row);
  return row.substr(kRowHeaderBytes);
}

int64_t RowHeight(std::string_view row) {
  CheckHeader(row);
  return static_cast<int64_t>(GetBigEndian64(row.data() + 1));
}

void CheckRowValue(RowFamily family, std::string_view row) {
  std::string problem = HeaderProblem(row);
  if (problem.empty() && family == RowFamily::kAccount && row.size() != kAccountRowBytes &&
      row.size() != kAccountRowWithCodeHashBytes) {
    problem = "account row has " + std::to_string(row.size()) + " bytes instead of 49 or 81";
  }
  if (!problem.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "FlatKV " + problem + " in the " + RowFamilyName(family) +
                                                 " family; import only rows exported from a FlatKV store");
  }
}

std::string NormalizeCodeHash(std::string_view code_hash) {
  bool zero = std::all_of(code_hash.begin(), code_hash.end(), [](char c) { return c == 0; });
  return zero ? std::string() : std::string(code_hash);
}

std::string EncodeNonce(uint64_t nonce) {
  std::string out;
  PutBigEndian64(nonce, &out);
  return out;
}

uint64_t DecodeNonce(std::string_view value) { return GetBigEndian64(value.data()); }

}  // namespace strata::sc::flatkv

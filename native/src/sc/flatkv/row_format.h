// FlatKV's physical data model (digest §9.1): how the app's logical `evm` keys map onto rows
// of four column families, and the byte layout of each row's value.
//
//   logical key               family    physical key              row value
//   0x0a ‖ addr20  (nonce)    account   "evm/" ‖ 0x0a ‖ addr20    0x00 ‖ height ‖ balance32 ‖ nonce8 [‖ codeHash32]
//   0x08 ‖ addr20  (codehash) account   (the same account row)
//   0x07 ‖ addr20  (code)     code      "evm/" ‖ 0x07 ‖ addr20    0x00 ‖ height ‖ bytecode
//   0x03 ‖ addr20 ‖ slot32    storage   "evm/" ‖ key              0x00 ‖ height ‖ value
//   anything else             misc      "evm/" ‖ key              0x00 ‖ height ‖ raw value
//
// Integers are big-endian; height is the block that last wrote the row. The balance field is
// always zero here (balances live in another store).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata::sc::flatkv {

/// The four row families (RocksDB column families), in export order.
enum class RowFamily : uint8_t { kAccount = 0, kCode = 1, kStorage = 2, kMisc = 3 };
inline constexpr size_t kRowFamilyCount = 4;

/// The column family name of `family`: "account", "code", "storage" or "misc".
const char* RowFamilyName(RowFamily family);

/// What a logical evm key addresses.
enum class LogicalKind : uint8_t { kNonce, kCodeHash, kCode, kStorage, kMisc };

inline constexpr size_t kAddressBytes = 20;
inline constexpr size_t kSlotBytes = 32;
inline constexpr size_t kNonceBytes = 8;
inline constexpr size_t kCodeHashBytes = 32;
inline constexpr size_t kBalanceBytes = 32;
inline constexpr char kNoncePrefix = 0x0a;
inline constexpr char kCodeHashPrefix = 0x08;
inline constexpr char kCodePrefix = 0x07;
inline constexpr char kStoragePrefix = 0x03;
/// Every physical key names its module first.
inline constexpr std::string_view kEvmModulePrefix = "evm/";
/// Version byte plus block height, in front of every row value.
inline constexpr size_t kRowHeaderBytes = 9;
inline constexpr size_t kAccountRowBytes = kRowHeaderBytes + kBalanceBytes + kNonceBytes;  // 49
inline constexpr size_t kAccountRowWithCodeHashBytes = kAccountRowBytes + kCodeHashBytes;   // 81

/// Classifies a logical key by its first byte and exact length.
LogicalKind ClassifyLogicalKey(std::string_view logical_key);

/// The family holding rows of `kind`.
RowFamily FamilyOf(LogicalKind kind);

/// The physical key of the row `logical_key` lives in (nonce and code hash share the
/// account row, keyed by the nonce prefix).
std::string PhysicalKey(std::string_view logical_key, LogicalKind kind);

/// The family an exported physical key belongs to; throws kInvalidArgument for a key that
/// does not start with a non-empty `<module>/` prefix or has nothing after it.
RowFamily FamilyOfPhysicalKey(std::string_view physical_key);

/// The fields of an account row that this store maintains.
struct AccountFields {
  uint64_t nonce = 0;
  /// 32 bytes, or empty when the account has no code hash (an all-zero hash is stored as none).
  std::string code_hash;

  /// A row with nonce 0 and no code hash is deleted rather than stored.
  bool IsEmpty() const { return nonce == 0 && code_hash.empty(); }
};

/// The account row for `fields` last written at `height`: 49 bytes, or 81 with a code hash.
std::string EncodeAccountRow(int64_t height, const AccountFields& fields);

/// Parses an account row; throws kCorruption unless it is a well-formed 49- or 81-byte row.
AccountFields DecodeAccountRow(std::string_view row);

/// A code, storage or misc row: header ‖ payload.
std::string EncodePlainRow(int64_t height, std::string_view payload);

/// The payload of a code, storage or misc row; throws kCorruption for a malformed header.
std::string_view PlainRowPayload(std::string_view row);

/// The block height stored in a row's header; throws kCorruption for a malformed header.
int64_t RowHeight(std::string_view row);

/// Throws kInvalidArgument unless `row` is a well-formed value for `family` (import check).
void CheckRowValue(RowFamily family, std::string_view row);

/// Normalises a 32-byte code hash: all zeros become empty (no code hash).
std::string NormalizeCodeHash(std::string_view code_hash);

/// The 8-byte big-endian encoding of a nonce, as the logical nonce key holds it.
std::string EncodeNonce(uint64_t nonce);

/// Parses an 8-byte big-endian nonce value (the caller has checked its length).
uint64_t DecodeNonce(std::string_view value);

}  // namespace strata::sc::flatkv

// keccak256, Ethereum's hash: one input, or many packed end to end in one call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace strata {

/// Bytes of a keccak256 digest.
constexpr size_t kKeccak256Bytes = 32;

/// keccak256 of `size` bytes at `data`, written to `out` (32 bytes).
void Keccak256(const uint8_t* data, size_t size, uint8_t* out);

/// keccak256 of each of `count` inputs packed end to end in `packed` (input i is `lengths[i]`
/// bytes long), written to `out` one after another (32 × count bytes).
void Keccak256Many(const uint8_t* packed, const uint32_t* lengths, size_t count, uint8_t* out);

}  // namespace strata

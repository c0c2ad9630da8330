/** keccak256 and the EIP-55 address spelling: the one implementation every layer uses (chain/hash.ts re-exports it). */
import createKeccakHash from 'keccak';

/** keccak256 of `data` (32 bytes). */
export function keccak256(data: Uint8Array): Buffer {
  const input = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return createKeccakHash('keccak256').update(input).digest();
}

/** EIP-55 mixed-case form of a 20-byte address (how geth's common.Address.Hex prints it). */
export function checksumAddress(address: Uint8Array): string {
  const hex = Buffer.from(address).toString('hex');
  const hash = keccak256(Buffer.from(hex, 'latin1')).toString('hex');
  let out = '0x';
  for (let i = 0; i < hex.length; i++) out += parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  return out;
}

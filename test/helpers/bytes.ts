/** Byte-string helpers for store tests. */

/** A Buffer holding `text` one byte per character ('\xff' is the byte 0xff). */
export function bytes(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

/** Printable ASCII as is, every other byte (and the backslash) as \xNN: readable and unambiguous. */
export function showBytes(buf: Uint8Array): string {
  let out = '';
  for (const b of buf) {
    out += b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return out;
}

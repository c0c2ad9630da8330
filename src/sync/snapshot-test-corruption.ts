/**
 * Test switch, read only by the state-sync tests (test/statesync/): with
 * STRATA_TEST_CORRUPT_SNAPSHOT_CHUNK=<flip|truncate>@<index|all> this process serves the named
 * snapshot chunks to peers with one byte flipped (or the last byte cut off), the way a faulty
 * or malicious peer would, so a downloader's rejection and refetch can be exercised.
 */

/** How a served chunk is damaged. */
type Damage = { kind: 'flip' | 'truncate'; index: number | 'all' };

const DAMAGE = ((): Damage | undefined => {
  const value = process.env.STRATA_TEST_CORRUPT_SNAPSHOT_CHUNK;
  if (!value) return undefined;
  const match = /^(flip|truncate)@(all|\d+)$/.exec(value);
  if (!match) throw new Error(`STRATA_TEST_CORRUPT_SNAPSHOT_CHUNK must be <flip|truncate>@<index|all>, got "${value}"`);
  return { kind: match[1] as Damage['kind'], index: match[2] === 'all' ? 'all' : Number(match[2]) };
})();

/** The chunk as this process serves it: unchanged unless the test switch names it. */
export function servedChunkForTest(index: number, bytes: Uint8Array): Uint8Array {
  if (!DAMAGE || (DAMAGE.index !== 'all' && DAMAGE.index !== index) || bytes.length === 0) return bytes;
  if (DAMAGE.kind === 'truncate') return bytes.subarray(0, bytes.length - 1);
  const copy = Buffer.from(bytes);
  copy[copy.length >> 1] = copy[copy.length >> 1]! ^ 0xff;
  return copy;
}

/**
 * OverlayStateManager.changesets: each store's pairs in bytewise key order (the order the
 * changelog and the commit store expect), whatever the order of the writes and for key bytes
 * on both sides of 0x80, with writes that leave a value as it was dropped.
 */
import t from 'tap';
import { Address } from '@ethereumjs/util';
import { OverlayStateManager, type StateView } from '../../src/evm/state-manager.js';
import { BANK_STORE, EVM_STORE, balanceKey, encodeUint } from '../../src/evm/keys.js';

/** A view over a map of (store, hex key) → value. */
function mapView(values: Map<string, Uint8Array>): StateView {
  return { get: (store, key) => values.get(`${store}/${Buffer.from(key).toString('hex')}`) };
}

/** Addresses whose bytes differ in the first byte, the last, and across 0x7f/0x80/0xff. */
function addresses(): Address[] {
  const firsts = [0xff, 0x00, 0x80, 0x7f, 0x81, 0x01, 0xfe];
  const out: Address[] = [];
  for (const first of firsts) {
    for (const last of [0x80, 0x00, 0x7f]) {
      const bytes = new Uint8Array(20);
      bytes[0] = first;
      bytes[19] = last;
      out.push(new Address(bytes));
    }
  }
  return out;
}

t.test('pairs come out in bytewise key order per store, unchanged writes dropped', async (t) => {
  const accounts = addresses();
  const unchanged = accounts[4]!;
  const base = new Map([[`${BANK_STORE}/${Buffer.from(balanceKey(unchanged.bytes)).toString('hex')}`, encodeUint(7n, 32)]]);
  const state = new OverlayStateManager(mapView(base));
  accounts.forEach((a, i) => {
    if (a === unchanged) state.putBalanceSync(a, 7n);
    else state.putNonceAndBalanceSync(a, BigInt(i + 1), BigInt(1000 + i));
  });
  for (const a of accounts.slice(0, 5)) {
    await state.putStorage(a, Uint8Array.from([0x80, ...new Uint8Array(31)]), Uint8Array.of(1));
    await state.putStorage(a, Uint8Array.from([0x7f, ...new Uint8Array(31)]), Uint8Array.of(2));
  }
  const changesets = state.changesets();
  t.same(changesets.map((c) => c.name), [BANK_STORE, EVM_STORE].sort(), 'one changeset per written store, by name');
  for (const { name, pairs } of changesets) {
    const keys = pairs.map((p) => Buffer.from(p.key));
    const sorted = [...keys].sort(Buffer.compare);
    t.ok(keys.every((k, i) => k.equals(sorted[i]!)), `${name}: keys in bytewise order`);
    t.equal(new Set(keys.map((k) => k.toString('hex'))).size, keys.length, `${name}: each key once`);
  }
  const bank = changesets.find((c) => c.name === BANK_STORE)!;
  t.equal(bank.pairs.length, accounts.length - 1, 'every balance but the one written back unchanged');
  t.notOk(
    bank.pairs.some((p) => Buffer.from(p.key).equals(Buffer.from(balanceKey(unchanged.bytes)))),
    'the balance written with its stored value is not in the changeset',
  );
  const evm = changesets.find((c) => c.name === EVM_STORE)!;
  t.equal(evm.pairs.length, (accounts.length - 1) + 5 * 2, 'a nonce per changed account and two slots for five');
});

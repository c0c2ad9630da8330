/**
 * OverlayStateManager.changesets: each store's pairs in bytewise key order (the order the
 * changelog and the commit store expect), whatever the order of the writes and for key bytes
 * on both sides of 0x80, with writes that leave a value as it was dropped. And the account
 * records behind them: a revert restores an account's fields, a read ahead or a cache clear
 * never loses a write.
 */
import t from 'tap';
import { Address } from '@ethereumjs/util';
import { OverlayStateManager, type StateView } from '../../src/evm/state-manager.js';
import { BANK_STORE, EVM_STORE, balanceKey, codeHashKey, encodeUint, nonceKey } from '../../src/evm/keys.js';

/** A view over a map of (store, hex key) → value. */
function mapView(values: Map<string, Uint8Array>): StateView {
  const get = (store: string, key: Uint8Array): Uint8Array | undefined => values.get(`${store}/${Buffer.from(key).toString('hex')}`);
  return {
    get,
    getManyPacked: (store, packed, lengths) => {
      const out: Array<Uint8Array | undefined> = [];
      let at = 0;
      for (const length of lengths) {
        out.push(get(store, packed.subarray(at, at + length)));
        at += length;
      }
      return out;
    },
  };
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

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

t.test('account fields: a revert restores them, a read ahead or a cache clear keeps writes', async (t) => {
  const a = new Address(Uint8Array.from({ length: 20 }, (_, i) => i + 1));
  const b = new Address(new Uint8Array(20).fill(0xee));
  const base = new Map([
    [`${BANK_STORE}/${hex(balanceKey(a.bytes))}`, encodeUint(100n, 32)],
    [`${EVM_STORE}/${hex(nonceKey(a.bytes))}`, encodeUint(3n, 8)],
  ]);
  const state = new OverlayStateManager(mapView(base));
  state.putNonceAndBalanceSync(a, 4n, 90n);
  state.prefetchAccounts([a.bytes, b.bytes]);
  t.same([state.getAccountSync(a)?.nonce, state.getAccountSync(a)?.balance], [4n, 90n], 'reading ahead after a write keeps the write');

  await state.checkpoint();
  state.putBalanceSync(a, 50n);
  await state.putCode(b, Uint8Array.of(0x60, 0x00));
  t.equal(state.getAccountSync(a)?.balance, 50n, 'a write inside a checkpoint reads back');
  t.ok(state.getAccountSync(b), 'an account given code exists');
  await state.revert();
  t.equal(state.getAccountSync(a)?.balance, 90n, 'a revert restores the balance written before the checkpoint');
  t.equal(state.getAccountSync(b), undefined, 'and drops the code hash written inside it');
  t.equal((await state.getCode(b)).length, 0, 'and the code');

  state.clearCaches();
  t.same([state.getAccountSync(a)?.nonce, state.getAccountSync(a)?.balance], [4n, 90n], 'clearing the caches keeps written fields');
  const values = (store: string) => (state.changesets().find((c) => c.name === store)?.pairs ?? []).map((p) => [hex(p.key), p.value && hex(p.value)]);
  t.same(values(BANK_STORE), [[hex(balanceKey(a.bytes)), hex(encodeUint(90n, 32))]], 'the changed balance is in the bank changeset');
  t.same(values(EVM_STORE), [[hex(nonceKey(a.bytes)), hex(encodeUint(4n, 8))]], 'the changed nonce in the EVM one, nothing of the reverted code');

  await state.checkpoint();
  await state.putCode(b, Uint8Array.of(0x60, 0x01));
  await state.commit();
  await state.deleteAccount(a);
  t.equal(state.getAccountSync(a), undefined, 'a deleted account reads as absent');
  t.same(values(BANK_STORE), [[hex(balanceKey(a.bytes)), null]], 'its stored balance is deleted');
  t.same(
    values(EVM_STORE).filter(([key]) => key === hex(nonceKey(a.bytes)) || key === hex(codeHashKey(b.bytes))).map(([key, value]) => [key, value === null]),
    [[hex(codeHashKey(b.bytes)), false], [hex(nonceKey(a.bytes)), true]].sort((x, y) => ((x[0] as string) < (y[0] as string) ? -1 : 1)),
    'its stored nonce is deleted and the committed code hash written',
  );
});

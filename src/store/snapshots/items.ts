/**
 * Reading the snapshot item stream for the state store: the SS takes only leaf nodes (height
 * 0), by store. FlatKV's `flatkv` section carries physical rows, which are turned back into the
 * `evm` store's logical keys (row_format.h); the legacy section name `evm_flatkv` is the `evm`
 * store. Every length is checked before it is trusted.
 */
import { open } from 'node:fs/promises';

import type { ImportItem } from '../state-store.js';
import { SnapshotFormatError } from './format.js';

/** The SDK's limit on one item when reading. */
const MAX_ITEM_BYTES = 64_000_000;
const READ_BYTES = 4 * 1024 * 1024;

/** One decoded stream item: a store header or a node. */
export type StreamItem = { kind: 'store'; name: string } | { kind: 'node'; key: Buffer; value: Buffer; version: number; height: number };

function uvarint(buf: Buffer, pos: { at: number }, end: number, what: string): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 9; i++) {
    if (pos.at >= end) throw new SnapshotFormatError(`the snapshot stream is malformed (a truncated ${what})`);
    const byte = buf[pos.at++]!;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) {
      if (!Number.isSafeInteger(value)) break;
      return value;
    }
    scale *= 128;
  }
  throw new SnapshotFormatError(`the snapshot stream is malformed (an overlong ${what})`);
}

function decodeItem(msg: Buffer): StreamItem {
  const pos = { at: 0 };
  const tag = uvarint(msg, pos, msg.length, 'item tag');
  const len = uvarint(msg, pos, msg.length, 'item length');
  if (len > msg.length - pos.at) throw new SnapshotFormatError('the snapshot stream is malformed (a field longer than its item)');
  const body = msg.subarray(pos.at, pos.at + len);
  const inner = { at: 0 };
  if (tag === (1 << 3 | 2)) {
    let name = '';
    while (inner.at < body.length) {
      if (uvarint(body, inner, body.length, 'field tag') !== (1 << 3 | 2)) throw new SnapshotFormatError('the snapshot stream is malformed (a store item with an unknown field)');
      const n = uvarint(body, inner, body.length, 'name length');
      if (n > body.length - inner.at) throw new SnapshotFormatError('the snapshot stream is malformed (a store name longer than its item)');
      name = body.subarray(inner.at, inner.at + n).toString('utf8');
      inner.at += n;
    }
    return { kind: 'store', name };
  }
  if (tag !== (2 << 3 | 2)) throw new SnapshotFormatError(`the snapshot stream is malformed (an item of unknown kind ${tag >> 3})`);
  const node: Extract<StreamItem, { kind: 'node' }> = { kind: 'node', key: Buffer.alloc(0), value: Buffer.alloc(0), version: 0, height: 0 };
  while (inner.at < body.length) {
    const field = uvarint(body, inner, body.length, 'field tag');
    if (field === (1 << 3 | 2) || field === (2 << 3 | 2)) {
      const n = uvarint(body, inner, body.length, 'field length');
      if (n > body.length - inner.at) throw new SnapshotFormatError('the snapshot stream is malformed (a field longer than its item)');
      const bytes = body.subarray(inner.at, inner.at + n);
      inner.at += n;
      if (field === (1 << 3 | 2)) node.key = bytes;
      else node.value = bytes;
    } else if (field === (3 << 3)) {
      node.version = uvarint(body, inner, body.length, 'version');
    } else if (field === (4 << 3)) {
      node.height = uvarint(body, inner, body.length, 'height');
    } else {
      throw new SnapshotFormatError('the snapshot stream is malformed (a node item with an unknown field)');
    }
  }
  if (node.height > 127) throw new SnapshotFormatError('the snapshot stream is malformed (a node height outside 0..127)');
  return node;
}

/** Decodes the length-delimited items of the stream file at `path`, in order. */
export async function* readStreamItems(path: string): AsyncGenerator<StreamItem> {
  const file = await open(path, 'r');
  try {
    let buf = Buffer.alloc(0);
    let eof = false;
    const fill = async (need: number): Promise<boolean> => {
      while (buf.length < need && !eof) {
        const more = Buffer.allocUnsafe(Math.max(READ_BYTES, need - buf.length));
        const { bytesRead } = await file.read(more, 0, more.length);
        if (bytesRead === 0) eof = true;
        else buf = buf.length === 0 ? more.subarray(0, bytesRead) : Buffer.concat([buf, more.subarray(0, bytesRead)]);
      }
      return buf.length >= need;
    };
    for (;;) {
      if (!(await fill(1))) return;
      await fill(10);
      const pos = { at: 0 };
      const len = uvarint(buf, pos, Math.min(buf.length, 10), 'item length');
      if (len > MAX_ITEM_BYTES) throw new SnapshotFormatError(`the snapshot stream is malformed (an item of ${len} bytes)`);
      if (!(await fill(pos.at + len))) throw new SnapshotFormatError('the snapshot stream is malformed (it ends inside an item)');
      // Copied out of the read buffer so a yielded key or value outlives the next read.
      const msg = Buffer.from(buf.subarray(pos.at, pos.at + len));
      buf = buf.subarray(pos.at + len);
      yield decodeItem(msg);
    }
  } finally {
    await file.close();
  }
}

const NONCE = 0x0a;
const CODE_HASH = 0x08;
const CODE = 0x07;
const STORAGE = 0x03;
const ADDRESS = 20;
const ROW_HEADER = 9;
const BALANCE = 32;

/** The logical `evm` (or other module) items one exported FlatKV row stands for. */
export function flatkvRowItems(physicalKey: Buffer, row: Buffer): ImportItem[] {
  const slash = physicalKey.indexOf(0x2f);
  if (slash <= 0 || slash === physicalKey.length - 1) {
    throw new SnapshotFormatError('the snapshot stream is malformed (a flatkv row key without a "<module>/" prefix)');
  }
  const module = physicalKey.subarray(0, slash).toString('utf8');
  const key = physicalKey.subarray(slash + 1);
  if (row.length < ROW_HEADER) throw new SnapshotFormatError('the snapshot stream is malformed (a flatkv row shorter than its header)');
  const payload = row.subarray(ROW_HEADER);
  // Only the evm module's keys are parsed as accounts: another module's key may start with the same byte.
  if (module === 'evm' && key[0] === NONCE && key.length === 1 + ADDRESS) {
    if (payload.length !== BALANCE + 8 && payload.length !== BALANCE + 8 + 32) {
      throw new SnapshotFormatError('the snapshot stream is malformed (a flatkv account row of the wrong size)');
    }
    const address = key.subarray(1);
    const items: ImportItem[] = [{ store: 'evm', key: Buffer.from(key), value: Buffer.from(payload.subarray(BALANCE, BALANCE + 8)) }];
    if (payload.length > BALANCE + 8) {
      items.push({ store: 'evm', key: Buffer.concat([Buffer.of(CODE_HASH), address]), value: Buffer.from(payload.subarray(BALANCE + 8)) });
    }
    return items;
  }
  if (module === 'evm' && (key[0] === CODE || key[0] === STORAGE)) return [{ store: 'evm', key: Buffer.from(key), value: Buffer.from(payload) }];
  return [{ store: module, key: Buffer.from(key), value: Buffer.from(payload) }];
}

/** The store name a section's leaves go to in the SS (`evm_flatkv` is the legacy name of `evm`). */
export function ssStoreOf(section: string): string {
  return section === 'evm_flatkv' ? 'evm' : section;
}

/** The SS items of the stream at `path`: every leaf, by store, FlatKV rows turned into logical keys. */
export async function* ssItems(path: string): AsyncGenerator<ImportItem> {
  let section: string | undefined;
  for await (const item of readStreamItems(path)) {
    if (item.kind === 'store') {
      section = item.name;
      continue;
    }
    if (section === undefined) throw new SnapshotFormatError('the snapshot stream is malformed (a node before any store)');
    if (item.height !== 0) continue;
    if (section === 'flatkv') {
      yield* flatkvRowItems(item.key, item.value);
    } else if (item.key.length > 0) {
      yield { store: ssStoreOf(section), key: item.key, value: item.value };
    }
  }
}

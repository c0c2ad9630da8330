/**
 * Reading the snapshot item stream in JavaScript, for tools that look into one (a restore reads
 * it natively: strata/state_snapshot.h). Every length is checked before it is trusted.
 */
import { open } from 'node:fs/promises';

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

/**
 * Messages on a libp2p stream: each is msgpackr-encoded and length-prefixed (unsigned varint),
 * and bounded by `max-packet-msg-payload-size` on both sides: a larger frame is refused before
 * its bytes are buffered.
 */
import type { Stream } from '@libp2p/interface';
import * as lp from 'it-length-prefixed';
import { Packr } from 'msgpackr';
import { MessageDecodeError, MessageEncodeError, MessageTooLargeError } from './errors.js';

// Plain msgpack: no record extension, so a peer cannot make us build shared structures.
const packr = new Packr({ useRecords: false, moreTypes: false, mapsAsObjects: true, int64AsType: 'bigint' });

/** msgpackr bytes of `value`. */
export function encodeMessage(protocol: string, value: unknown, limit: number): Uint8Array {
  const bytes = packr.pack(value);
  if (bytes.length > limit) throw new MessageEncodeError(protocol, bytes.length, limit);
  return bytes;
}

/** The value of msgpackr bytes; any decoder failure is a MessageDecodeError. */
export function decodeMessage(protocol: string, bytes: Uint8Array): unknown {
  try {
    return packr.unpack(bytes);
  } catch (error) {
    throw new MessageDecodeError(protocol, error instanceof Error ? error.message : String(error));
  }
}

/** Writes one message, waiting for the stream to drain when its buffer is full. */
export async function writeMessage(stream: Stream, value: unknown, limit: number): Promise<void> {
  const bytes = encodeMessage(stream.protocol, value, limit);
  // The encoder has its own 4 MB default cap; the message was already checked against `limit`.
  if (!stream.send(lp.encode.single(bytes, { maxDataLength: limit }))) await stream.onDrain();
}

/** The messages of `stream` as decoded values, until the remote closes its side. */
export async function* readMessages(stream: Stream, limit: number): AsyncGenerator<unknown, void, undefined> {
  try {
    for await (const frame of lp.decode(stream, { maxDataLength: limit })) {
      yield decodeMessage(stream.protocol, frame.subarray());
    }
  } catch (error) {
    if (error instanceof MessageDecodeError) throw error;
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MSG_DATA_TOO_LONG') throw new MessageTooLargeError(limit);
    if (code === 'ERR_INVALID_MSG_LENGTH' || code === 'ERR_MSG_LENGTH_TOO_LONG') throw new MessageDecodeError(stream.protocol, 'malformed length prefix');
    throw error;
  }
}

/** The first message of `stream`, or undefined when it closes before one arrives. */
export async function readOneMessage(stream: Stream, limit: number): Promise<unknown> {
  for await (const message of readMessages(stream, limit)) return message;
  return undefined;
}

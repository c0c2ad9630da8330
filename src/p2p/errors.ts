/** Typed errors of the peer layer; each message is what an operator reads in the log. */

/** The key a peer proved in the handshake does not hash to the node id it was listed under. */
export class PeerIdMismatchError extends Error {
  constructor(
    readonly expected: string,
    readonly actual: string,
    readonly address: string,
  ) {
    super(`expected peer id mismatch: dialed ${expected}@${address} but the peer proved id ${actual}; fix persistent_peers`);
    this.name = 'PeerIdMismatchError';
  }
}

/** A peer sent a message larger than `max-packet-msg-payload-size`. */
export class MessageTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`message exceeds max-packet-msg-payload-size (${limit} bytes)`);
    this.name = 'MessageTooLargeError';
  }
}

/** A peer sent bytes that are not a message of the protocol. */
export class MessageDecodeError extends Error {
  constructor(protocol: string, reason: string) {
    super(`undecodable ${protocol} message: ${reason}`);
    this.name = 'MessageDecodeError';
  }
}

/** A message to send is larger than the limit the peers agreed on. */
export class MessageEncodeError extends Error {
  constructor(protocol: string, size: number, limit: number) {
    super(`${protocol} message of ${size} bytes exceeds max-packet-msg-payload-size (${limit} bytes)`);
    this.name = 'MessageEncodeError';
  }
}

/** A request to a peer did not complete (closed stream, timeout, no answer). */
export class PeerRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PeerRequestError';
  }
}

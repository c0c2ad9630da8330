/** The peer layer: a libp2p host with the node key's identity and bounded msgpackr messages. */
export { PeerHost, tcpMultiaddr, dialFailureText, type Peer, type PeerHostOptions, type RequestHandler } from './host.js';
export { MessageDecodeError, MessageEncodeError, MessageTooLargeError, PeerIdMismatchError, PeerRequestError } from './errors.js';
export { decodeMessage, encodeMessage, readMessages, readOneMessage, writeMessage } from './framing.js';
export { libp2pKeyOf, nodeIdOfPeer, nodeIdOfPublicKey } from './identity.js';

/** web3_/net_ methods, eth_chainId, eth_syncing and eth_accounts: who this node is and whether it is in sync. */
import { keccak256 } from '../../../util/keccak.js';
import { expectParams, type MethodTable } from '../../jsonrpc/index.js';
import { bytesHex, quantity } from '../hex.js';
import { parseData } from '../params.js';
import { then, type EthMethodContext } from './context.js';

/** web3_clientVersion's text: strata/<version>/<os>-<arch>/node<version>. */
export function clientVersion(version: string): string {
  return `strata/${version}/${process.platform}-${process.arch}/node${process.versions.node}`;
}

/** web3_clientVersion, web3_sha3, net_version, net_listening, net_peerCount, eth_chainId, eth_syncing, eth_accounts. */
export function clientMethods({ backend, options }: EthMethodContext): MethodTable {
  const version = clientVersion(options.version);
  return {
    web3_clientVersion: (params) => (expectParams(params, 0), version),
    net_version: (params) => (expectParams(params, 0), backend.chainId().toString(10)),
    net_listening: (params) => (expectParams(params, 0), true),
    net_peerCount: (params) => (expectParams(params, 0), quantity(backend.peerCount())),
    web3_sha3: (params) => (expectParams(params, 1), bytesHex(keccak256(parseData(params[0], 0)))),
    // The node holds no keys: it signs nothing for anyone.
    eth_accounts: (params) => (expectParams(params, 0), []),
    eth_chainId: (params) => (expectParams(params, 0), quantity(backend.chainId())),
    eth_syncing: (params) => {
      expectParams(params, 0);
      return then(backend.syncing(), (status) =>
        status === false
          ? false
          : { startingBlock: quantity(status.startingBlock), currentBlock: quantity(status.currentBlock), highestBlock: quantity(status.highestBlock) },
      );
    },
  };
}

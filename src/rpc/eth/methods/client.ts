/** web3_/net_ methods, eth_chainId and eth_syncing: who this node is and whether it is in sync. */
import { expectParams, type MethodTable } from '../../jsonrpc/index.js';
import { quantity } from '../hex.js';
import { then, type EthMethodContext } from './context.js';

/** web3_clientVersion's text: strata/<version>/<os>-<arch>/node<version>. */
export function clientVersion(version: string): string {
  return `strata/${version}/${process.platform}-${process.arch}/node${process.versions.node}`;
}

/** web3_clientVersion, net_version, net_listening, eth_chainId, eth_syncing. */
export function clientMethods({ backend, options }: EthMethodContext): MethodTable {
  const version = clientVersion(options.version);
  return {
    web3_clientVersion: (params) => (expectParams(params, 0), version),
    net_version: (params) => (expectParams(params, 0), backend.chainId().toString(10)),
    net_listening: (params) => (expectParams(params, 0), true),
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

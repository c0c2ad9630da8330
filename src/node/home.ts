/** The files and directories of a node home (spec "Files and directories"). */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Paths under one node home. */
export interface HomePaths {
  home: string;
  config: string;
  data: string;
  genesis: string;
  validatorKey: string;
  nodeKey: string;
  signState: string;
}

/** The default home, `~/.strata`. */
export function defaultHome(): string {
  return join(homedir(), '.strata');
}

/** The paths of `home`. */
export function homePaths(home: string): HomePaths {
  const root = resolve(home);
  const config = join(root, 'config');
  const data = join(root, 'data');
  return {
    home: root,
    config,
    data,
    genesis: join(config, 'genesis.json'),
    validatorKey: join(config, 'priv_validator_key.json'),
    nodeKey: join(config, 'node_key.json'),
    signState: join(data, 'priv_validator_state.json'),
  };
}

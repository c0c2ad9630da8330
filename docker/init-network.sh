#!/usr/bin/env bash
# Prepares the homes of a small network, once: a validator and RPC followers that share its
# genesis and name it in persistent_peers, every server listening on all interfaces (as a
# container needs). Homes that already have a genesis are left alone, so a restart keeps state.
#   strata-init-network <chain-id> <validator-home> <validator-host> <follower-home>...
# STRATAD names the node command (default: stratad).
set -euo pipefail
if (($# < 3)); then
  echo "usage: $0 <chain-id> <validator-home> <validator-host> [<follower-home>...]" >&2
  exit 2
fi
chain_id=$1 validator=$2 validator_host=$3
shift 3
stratad=${STRATAD:-stratad}

# The node id CometBFT derives from node_key.json: the first 20 bytes of SHA-256 of the public
# key (the last 32 bytes of the Ed25519 private key value), in hex.
node_id() {
  sed -n 's/.*"value": *"\([^"]*\)".*/\1/p' "$1/config/node_key.json" | base64 -d | tail -c 32 | sha256sum | cut -c1-40
}

# Listen on every interface: another container (or a published port) must reach the servers.
open_listeners() {
  sed -i -e 's/^http-address = .*/http-address = "0.0.0.0"/' "$1/config/app.toml"
  sed -i -e 's#^laddr = "tcp://127.0.0.1:26657"#laddr = "tcp://0.0.0.0:26657"#' "$1/config/config.toml"
}

if [ ! -f "$validator/config/genesis.json" ]; then
  $stratad init --chain-id "$chain_id" validator --home "$validator" >/dev/null
  open_listeners "$validator"
  echo "initialised the validator home $validator"
fi
peer="$(node_id "$validator")@${validator_host}:26656"
n=0
for follower in "$@"; do
  n=$((n + 1))
  if [ -f "$follower/config/genesis.json" ]; then continue; fi
  $stratad init --chain-id "$chain_id" "rpc-$n" --home "$follower" >/dev/null
  # Its own key is not in the validator's genesis, so it follows instead of producing.
  cp "$validator/config/genesis.json" "$follower/config/genesis.json"
  sed -i -e "s/^persistent_peers = .*/persistent_peers = \"$peer\"/" "$follower/config/config.toml"
  open_listeners "$follower"
  echo "initialised the RPC follower home $follower (peer $peer)"
done

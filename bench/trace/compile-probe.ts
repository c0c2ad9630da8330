/**
 * Compiles test/fixtures/Probe.sol with solc (standard JSON) into test/fixtures/probe.json
 * (abi and creation code of Probe and Child). The differential test and bench:trace read the
 * cached output; rerun with `npx tsx bench/trace/compile-probe.ts` after editing the source.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const dir = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
const input = {
  language: 'Solidity',
  sources: { 'Probe.sol': { content: readFileSync(`${dir}/Probe.sol`, 'utf8') } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'prague',
    outputSelection: { '*': { Probe: ['abi', 'evm.bytecode.object'], Child: ['abi', 'evm.bytecode.object'] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
const contract = (name: string) => {
  const c = output.contracts['Probe.sol'][name];
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
};
writeFileSync(`${dir}/probe.json`, `${JSON.stringify({ compiler: solc.version(), Probe: contract('Probe'), Child: contract('Child') }, null, 2)}\n`);
console.log('wrote probe.json with', solc.version());

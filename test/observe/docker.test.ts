/**
 * The image recipe without a container runtime: docker/Dockerfile is parsed and each step is
 * checked against the repository (base images, every COPY source, the setup script, the
 * ports, the volume, the entry point), then the steps are run as a script — the TypeScript
 * build into a fresh root, `stratad` through the image's entry point, and the compose
 * network's init script making a validator and two follower homes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadNodeKey } from '../../src/chain/keys.js';
import { loadConfig } from '../../src/config/index.js';
import { VERSION } from '../../src/node/version.js';
import { ROOT } from '../node/fixtures/node-process.js';

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(text: string): Array<{ op: string; args: string }> {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

const dockerfile = instructions(readFileSync(join(ROOT, 'docker', 'Dockerfile'), 'utf8'));
const of = (op: string): string[] => dockerfile.filter((i) => i.op === op).map((i) => i.args);

t.test('the Dockerfile', async (t) => {
  const froms = of('FROM');
  t.match(froms.at(-1), /^debian:12(-slim)?$/, 'the image is Debian 12');
  t.ok(froms.some((f) => /^debian:12/.test(f) && / AS build$/.test(f)), 'the build stage is Debian 12');
  t.ok(froms.some((f) => /^node:20-bookworm/.test(f)), 'Node.js 20 of the same Debian release (bookworm = 12)');
  t.ok(of('RUN').some((r) => r.includes('bash scripts/setup.sh')), 'the build runs scripts/setup.sh');
  for (const copy of of('COPY')) {
    const parts = copy.split(/\s+/).filter((p) => !p.startsWith('--'));
    const sources = parts.slice(0, -1);
    if (copy.startsWith('--from=node')) continue; // the Node.js installation of the official image
    if (copy.startsWith('--from=build')) {
      for (const source of sources) t.ok(['/opt/strata/package.json', '/opt/strata/node_modules', '/opt/strata/build/Release', '/opt/strata/dist'].includes(source), `${source} is made by the build stage`);
      continue;
    }
    for (const source of sources) t.ok(existsSync(join(ROOT, source)), `COPY source ${source} exists`);
  }
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; bin: Record<string, string> };
  t.match(pkg.scripts['build:native'], '--out build', 'the native build lands in build/ (build/Release is copied)');
  t.match(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'), '"outDir": "dist"', 'the TypeScript build lands in dist/');
  t.match(readFileSync(join(ROOT, 'scripts', 'setup.sh'), 'utf8'), 'npm run --silent build', 'setup.sh builds both');
  t.match(readFileSync(join(ROOT, 'docker', 'stratad'), 'utf8'), `dist/src/cli/stratad.js`, 'the entry point runs the compiled CLI');
  t.equal(pkg.bin['stratad'], 'dist/src/cli/stratad.js');
  t.same(of('EXPOSE').join(' ').split(/\s+/).sort(), ['26656', '26657', '26660', '8545', '8546']);
  t.same(of('VOLUME'), ['["/strata"]'], 'the home is a volume');
  t.same(of('ENTRYPOINT'), ['["stratad"]'], 'stratad is the entry point');
  t.same(of('CMD'), ['["start", "--home", "/strata"]']);
  const compose = readFileSync(join(ROOT, 'docker', 'compose.yaml'), 'utf8');
  for (const service of ['init:', 'validator:', 'rpc1:', 'rpc2:']) t.match(compose, new RegExp(`^  ${service}`, 'm'), `compose has ${service}`);
  t.match(compose, 'dockerfile: docker/Dockerfile');
});

t.test('the Dockerfile steps as a script: build, entry point, network init', async (t) => {
  // The TypeScript build step, into a fresh root laid out as /opt/strata is.
  const root = mkdtempSync(join(tmpdir(), 'strata-image-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.json'), '--outDir', join(root, 'dist'), '--declaration', 'false', '--sourceMap', 'false'], { stdio: 'inherit', timeout: 600_000 });
  copyFileSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  symlinkSync(join(ROOT, 'build'), join(root, 'build'));
  const env = { ...process.env, STRATA_ROOT: root, STRATAD: join(ROOT, 'docker', 'stratad') };

  const version = spawnSync(join(ROOT, 'docker', 'stratad'), ['--version'], { env, encoding: 'utf8', timeout: 120_000 });
  t.equal(version.status, 0, version.stderr);
  t.equal(version.stdout.trim(), VERSION, 'the entry point runs stratad');

  const homes = mkdtempSync(join(tmpdir(), 'strata-compose-'));
  t.teardown(() => rmSync(homes, { recursive: true, force: true }));
  const [validator, rpc1, rpc2] = ['validator', 'rpc1', 'rpc2'].map((name) => join(homes, name)) as [string, string, string];
  const init = spawnSync(join(ROOT, 'docker', 'init-network.sh'), ['strata-docker-1', validator, 'validator', rpc1, rpc2], { env, encoding: 'utf8', timeout: 300_000 });
  t.equal(init.status, 0, init.stderr);
  const validatorId = loadNodeKey(join(validator, 'config', 'node_key.json')).id;
  const genesis = readFileSync(join(validator, 'config', 'genesis.json'), 'utf8');
  for (const home of [validator, rpc1, rpc2]) {
    const config = await loadConfig(home);
    t.equal(config.app.evm.httpAddress, '0.0.0.0', `${home}: EVM RPC on all interfaces`);
    t.equal(config.node.rpc.laddr.host, '0.0.0.0', `${home}: consensus RPC on all interfaces`);
    t.equal(readFileSync(join(home, 'config', 'genesis.json'), 'utf8'), genesis, 'one genesis');
  }
  for (const home of [rpc1, rpc2]) {
    const { persistentPeers } = (await loadConfig(home)).node;
    t.same(persistentPeers, [{ nodeId: validatorId, host: 'validator', port: 26656 }], 'the follower names the validator by its node id');
  }
  const again = spawnSync(join(ROOT, 'docker', 'init-network.sh'), ['strata-docker-1', validator, 'validator', rpc1, rpc2], { env, encoding: 'utf8', timeout: 300_000 });
  t.equal(again.status, 0);
  t.equal(again.stdout, '', 'a second run leaves existing homes alone');
});

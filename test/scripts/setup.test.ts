/**
 * scripts/setup.sh checks its prerequisites before it installs or builds anything. Every
 * command that would install or build (npm, apt-get, sudo, cmake, g++) is a fake that logs its
 * arguments, so a run that gets past the checks is seen in the log and never does real work.
 */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** The real path of a system command, from this process's PATH. */
function which(command: string): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, command);
    if (dir && existsSync(path)) return path;
  }
  throw new Error(`${command} not found on PATH`);
}

const BASH = which('bash');

/** A fake command in `dir`: logs `<name> <args>` to dir/calls, then runs `body`. */
function fake(dir: string, name: string, body: string): void {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho "${name} $*" >> "${join(dir, 'calls')}"\n${body}\n`);
  chmodSync(path, 0o755);
}

/** Fakes of everything that installs or builds, so no test here can change the machine. */
function fakeInstallers(dir: string): void {
  fake(dir, 'npm', 'exit 0');
  fake(dir, 'apt-get', 'exit 0');
  fake(dir, 'sudo', 'exec "$@"');
  fake(dir, 'cmake', 'echo "cmake version 3.25.1"');
  fake(dir, 'g++', 'exit 0');
}

function setup(path: string) {
  const run = spawnSync(BASH, ['scripts/setup.sh'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PATH: path } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function calls(dir: string): string {
  return existsSync(join(dir, 'calls')) ? readFileSync(join(dir, 'calls'), 'utf8') : '';
}

t.test('Node.js 18 on PATH: stops before installing anything, naming Node.js 20 and the version found', async (t) => {
  const dir = t.testdir();
  fakeInstallers(dir);
  fake(dir, 'node', 'echo v18.19.0');
  const run = setup([dir, process.env.PATH].join(delimiter));
  t.equal(run.status, 1, 'exit code 1');
  t.match(run.stderr, /^setup: Node\.js 20 or later is required, found v18\.19\.0/m);
  t.match(run.stderr, /nodejs\.org|NodeSource/, 'the message says how to fix it');
  t.notMatch(run.stdout, /setup: installing npm dependencies/);
  t.notMatch(run.stdout, /setup: building/);
  t.equal(calls(dir).replace(/^node .*\n/gm, ''), '', 'no npm, apt-get, sudo, cmake or g++ was run');
});

t.test('no npm on PATH: stops before installing anything, naming npm', async (t) => {
  const dir = t.testdir();
  fake(dir, 'node', 'echo v20.11.1');
  fake(dir, 'apt-get', 'exit 0');
  fake(dir, 'sudo', 'exec "$@"');
  for (const command of ['bash', 'dirname', 'dpkg-query', 'id']) symlinkSync(which(command), join(dir, command));
  const run = setup(dir);
  t.equal(run.status, 1, 'exit code 1');
  t.match(run.stderr, /^setup: npm is required, but 'npm' is not on PATH/m);
  t.notMatch(run.stderr, /Node\.js 20 or later is required/, 'Node.js 20 is accepted');
  t.notMatch(run.stdout, /setup: installing/);
  t.equal(calls(dir).replace(/^node .*\n/gm, ''), '', 'no apt-get or sudo was run');
});

t.test('with Node.js 20 and npm the checks pass and setup goes on to the build', async (t) => {
  const dir = t.testdir();
  fakeInstallers(dir);
  fake(dir, 'node', 'echo v20.11.1');
  const run = setup([dir, process.env.PATH].join(delimiter));
  t.equal(run.status, 0, run.stderr);
  t.equal(run.stderr, '', 'no problem reported');
  t.match(run.stdout, /setup: building the native core and TypeScript/);
  t.match(calls(dir), /^npm run --silent build$/m, 'the (fake) build was run');
});

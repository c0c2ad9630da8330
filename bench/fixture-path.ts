/** Where the benchmarks find the compiled test contracts. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The path of test/fixtures/`name`, from the source tree (tsx, tap) or from dist/bench. */
export function fixturePath(name: string): string {
  const candidates = [`../test/fixtures/${name}`, `../../test/fixtures/${name}`].map((relative) => fileURLToPath(new URL(relative, import.meta.url)));
  return candidates.find((path) => existsSync(path)) ?? candidates[0]!;
}

/**
 * `stratadb dump-db -d <state store dir> [-o <file>] [--backend pebbledb|rocksdb] [--store name]`
 *
 * Writes every stored version of every key of a state store, one line each:
 * `<store> <key hex> <version> <value hex>`. Deleted versions are not listed.
 */
import { createWriteStream } from 'node:fs';
import { Command, Option } from 'clipanion';
import { MvccStore, StoreError, type Backend } from '../../store/index.js';

export class DumpDbCommand extends Command {
  static override paths = [['dump-db']];
  static override usage = Command.Usage({
    description: 'dump every stored version of a state store (the node must be stopped)',
    examples: [['Dump the Cosmos SS', 'stratadb dump-db -d ~/.strata/data/pebbledb -o ss.txt']],
  });

  dir = Option.String('-d,--dir', { required: true, description: 'state store directory' });
  output = Option.String('-o,--output', { description: 'output file (default: standard output)' });
  backend = Option.String('--backend', 'pebbledb', { description: 'ss-backend the directory was written with' });
  store = Option.String('--store', { description: 'only this module store' });

  override async execute(): Promise<number> {
    if (this.backend !== 'pebbledb' && this.backend !== 'rocksdb') {
      this.context.stderr.write(`--backend must be "pebbledb" or "rocksdb", got "${this.backend}"\n`);
      return 2;
    }
    let store: MvccStore;
    try {
      store = await MvccStore.open(this.dir, { backend: this.backend as Backend, createIfMissing: false, readOnly: true });
    } catch (error) {
      this.context.stderr.write(`cannot open ${this.dir}: ${error instanceof StoreError ? error.message : String(error)}\n`);
      return 1;
    }
    const out = this.output ? createWriteStream(this.output) : this.context.stdout;
    let lines = 0;
    try {
      for (const entry of store.rawEntries()) {
        if (this.store !== undefined && entry.store !== this.store) continue;
        const line = `${entry.store} ${entry.key.toString('hex')} ${entry.version} ${entry.value.toString('hex')}\n`;
        if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
        lines++;
      }
    } finally {
      await store.close();
      if (out !== this.context.stdout) await new Promise<void>((resolve) => out.end(() => resolve()));
    }
    this.context.stderr.write(`dumped ${lines} versions from ${this.dir}\n`);
    return 0;
  }
}

/**
 * `stratad crash-report [--home <dir>] [--latest] [--output <file>]`: bundles the home's crash
 * reports (`data/crash-reports/`, newest first; only the newest with --latest) together with
 * config.toml, app.toml and the versions into one JSON file an operator can attach to a report.
 * Key files are never included.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, Option } from 'clipanion';
import { crashReportDir, listCrashReports, readCrashReport } from '../../node/crash-report.js';
import { defaultHome, homePaths } from '../../node/home.js';
import { VERSION } from '../../node/version.js';

export class CrashReportCommand extends Command {
  static override paths = [['crash-report']];
  static override usage = Command.Usage({
    description: "bundle the node's crash reports into one file to attach to a bug report",
    examples: [
      ['Bundle the newest crash report', 'stratad crash-report --latest'],
      ['Bundle every crash report into a chosen file', 'stratad crash-report --output /tmp/strata-crash.json'],
    ],
  });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });
  latest = Option.Boolean('--latest', false, { description: 'only the newest crash report' });
  output = Option.String('--output', { description: 'the bundle file (default ./strata-crash-report-<time>.json)' });

  override async execute(): Promise<number> {
    const paths = homePaths(this.home);
    const reports = listCrashReports(paths.data);
    if (reports.length === 0) {
      this.context.stderr.write(`no crash reports under ${crashReportDir(paths.data)}; the node writes one when it crashes or halts\n`);
      return 1;
    }
    const chosen = this.latest ? reports.slice(0, 1) : reports;
    const created = new Date().toISOString();
    const configText = (path: string): string | null => (existsSync(path) ? readFileSync(path, 'utf8') : null);
    const bundle = {
      bundle: 'strata crash report',
      created,
      home: paths.home,
      versions: { strata: VERSION, node: process.version, platform: process.platform, arch: process.arch },
      config: { 'config.toml': configText(join(paths.config, 'config.toml')), 'app.toml': configText(join(paths.config, 'app.toml')) },
      reports: chosen.map((path) => ({ file: path, ...readCrashReport(path) })),
    };
    const output = resolve(this.output ?? `strata-crash-report-${created.replace(/:/g, '-')}.json`);
    writeFileSync(output, `${JSON.stringify(bundle, null, 2)}\n`, { mode: 0o600 });
    this.context.stdout.write(`${output}\n${chosen.length} crash report(s), newest ${chosen[0]}\n`);
    return 0;
  }
}

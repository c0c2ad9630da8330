/**
 * `stratad query staking validator <valoper> [--home <dir>] [--output text|json]`: a
 * validator's operator address, consensus key, tokens, voting power and status, from the
 * node's own state, printed as the Cosmos SDK prints a validator (YAML, or JSON).
 */
import { Command, Option } from 'clipanion';
import { defaultHome, homePaths } from '../../node/home.js';
import { queryValidator } from '../../node/staking-query.js';

/** A YAML scalar as the Cosmos SDK's output quotes it: strings that look like numbers or start with '@' or '/' stay quoted. */
function yamlScalar(value: unknown): string {
  if (typeof value === 'boolean') return String(value);
  const text = String(value);
  if (text === '') return '""';
  if (/^[0-9.]+$/.test(text)) return `"${text}"`;
  if (/^[@'"]/.test(text) || /[:#]\s/.test(text)) return `'${text.replace(/'/g, "''")}'`;
  return text;
}

/** Block YAML of a plain object with sorted keys, as the Cosmos SDK's `--output text` prints it. */
export function toYaml(value: Record<string, unknown>, indent = ''): string {
  let out = '';
  for (const key of Object.keys(value).sort()) {
    const v = value[key];
    const name = yamlScalar(key);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      out += `${indent}${name}:\n${toYaml(v as Record<string, unknown>, `${indent}  `)}`;
    } else {
      out += `${indent}${name}: ${yamlScalar(v)}\n`;
    }
  }
  return out;
}

export class QueryStakingValidatorCommand extends Command {
  static override paths = [['query', 'staking', 'validator']];
  static override usage = Command.Usage({
    description: "print a validator's record (operator address, consensus key, voting power, status) from the node's state",
    examples: [['Query a validator', 'stratad query staking validator stratavaloper1…']],
  });

  operator = Option.String({ required: true, name: 'validator' });
  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });
  output = Option.String('-o,--output', 'text', { description: 'text (YAML) or json' });

  override async execute(): Promise<number> {
    if (this.output !== 'text' && this.output !== 'json') {
      this.context.stderr.write(`--output must be "text" or "json", got "${this.output}"\n`);
      return 2;
    }
    try {
      const { validator } = await queryValidator(homePaths(this.home), this.operator);
      const record = validator as unknown as Record<string, unknown>;
      this.context.stdout.write(this.output === 'json' ? `${JSON.stringify(record)}\n` : toYaml(record));
      return 0;
    } catch (error) {
      this.context.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
}

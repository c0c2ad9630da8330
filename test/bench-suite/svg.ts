/**
 * Just enough XML reading to check a rendered chart: every tag closes in order, and the marks
 * vega drew (its `<g class="mark-… role-mark …">` groups) with the shapes inside each.
 */

/** A mark group of the SVG: its mark type and how many shapes it holds. */
export interface MarkGroup {
  type: string;
  shapes: number;
}

/** Thrown when the text is not well-formed XML. */
export class MalformedSvgError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedSvgError';
  }
}

const SHAPES = new Set(['path', 'rect', 'line', 'circle', 'text', 'polygon', 'polyline']);

/** Checks nesting and collects the mark groups. */
export function readSvg(svg: string): { root: string; marks: MarkGroup[] } {
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+\s*=\s*"[^"]*")*)\s*(\/?)>/g;
  const stack: Array<{ name: string; mark: MarkGroup | null }> = [];
  const marks: MarkGroup[] = [];
  let root = '';
  let last = 0;
  for (let m = tag.exec(svg); m !== null; m = tag.exec(svg)) {
    const between = svg.slice(last, m.index);
    if (between.includes('<')) throw new MalformedSvgError(`unparsed markup near offset ${last}: ${between.slice(0, 60)}`);
    last = tag.lastIndex;
    const [, closing, name, attrs = '', selfClosing] = m;
    if (closing) {
      const open = stack.pop();
      if (open?.name !== name) throw new MalformedSvgError(`</${name}> closes <${open?.name ?? 'nothing'}>`);
      continue;
    }
    if (root === '') root = name!;
    const cls = /\bclass="([^"]*)"/.exec(attrs)?.[1] ?? '';
    const innermostMark = [...stack].reverse().find((s) => s.mark !== null)?.mark ?? null;
    if (SHAPES.has(name!) && innermostMark) innermostMark.shapes++;
    if (selfClosing) continue;
    let mark: MarkGroup | null = null;
    const markType = /\bmark-(\w+)\b/.exec(cls);
    if (name === 'g' && markType && cls.includes('role-mark')) {
      mark = { type: markType[1]!, shapes: 0 };
      marks.push(mark);
    }
    stack.push({ name: name!, mark });
  }
  if (svg.slice(last).includes('<')) throw new MalformedSvgError('unparsed markup at the end');
  if (stack.length > 0) throw new MalformedSvgError(`unclosed <${stack.at(-1)!.name}>`);
  return { root, marks };
}

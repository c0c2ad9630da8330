/**
 * The `id` members of a request body as their source text. JSON.parse turns `1e400` into
 * Infinity and `1.50` into 1.5; geth echoes an id exactly as it was sent, so a numeric id that
 * JavaScript cannot print back as sent is copied from the body instead.
 */

/** The raw text of each message's last `id` member: one entry for an object body, one per element of a batch. */
export function rawIdTexts(body: string): Array<string | undefined> {
  const ids: Array<string | undefined> = [];
  const n = body.length;
  let i = 0;
  while (i < n && isSpace(body[i]!)) i++;
  const batch = body[i] === '[';
  // Depth at which a message's own members sit: 1 in an object body, 2 in a batch's elements.
  const memberDepth = batch ? 2 : 1;
  let depth = 0;
  let elementDue = false;
  while (i < n) {
    const c = body[i]!;
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (batch && depth === 1 && elementDue && c !== ']') {
      ids.push(undefined);
      elementDue = false;
    }
    if (c === '"') {
      const end = stringEnd(body, i);
      if (depth === memberDepth && body.slice(i, end) === '"id"') {
        let j = end;
        while (j < n && isSpace(body[j]!)) j++;
        if (body[j] === ':') {
          j++;
          while (j < n && isSpace(body[j]!)) j++;
          const start = j;
          j = scalarValueEnd(body, j);
          ids[ids.length - 1] = body.slice(start, j);
          i = j;
          continue;
        }
      }
      i = end;
      continue;
    }
    if (c === '{' || c === '[') {
      depth++;
      if (!batch && depth === 1) ids.push(undefined);
      if (batch && depth === 1) elementDue = true;
    } else if (c === '}' || c === ']') {
      depth--;
    } else if (c === ',' && batch && depth === 1) {
      elementDue = true;
    }
    i++;
  }
  return ids;
}

/** The index after the string, number or literal starting at `start` of `text`. */
export function scalarValueEnd(text: string, start: number): number {
  return text[start] === '"' ? stringEnd(text, start) : scalarEnd(text, start);
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/** The index after the string starting at `start` (a '"'). */
function stringEnd(body: string, start: number): number {
  let i = start + 1;
  while (i < body.length) {
    const c = body[i]!;
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  return i;
}

/** The index after a number or literal starting at `start`. */
function scalarEnd(body: string, start: number): number {
  let i = start;
  while (i < body.length && !isSpace(body[i]!) && body[i] !== ',' && body[i] !== '}' && body[i] !== ']') i++;
  return i;
}

/**
 * The `id` members of a request body as their source text. JSON.parse turns `1e400` into
 * Infinity and `1.50` into 1.5; geth echoes an id exactly as it was sent, so a numeric id that
 * JavaScript cannot print back as sent is copied from the body instead.
 */

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The raw text of each message's last `id` member: one entry for an object body, one per element of a batch. */
export function rawIdTexts(body: string): Array<string | undefined> {
  const ids: Array<string | undefined> = [];
  const n = body.length;
  let i = 0;
  while (i < n && isSpace(body.charCodeAt(i))) i++;
  const batch = body.charCodeAt(i) === OPEN_BRACKET;
  // Depth at which a message's own members sit: 1 in an object body, 2 in a batch's elements.
  const memberDepth = batch ? 2 : 1;
  let depth = 0;
  let elementDue = false;
  while (i < n) {
    const c = body.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (batch && depth === 1 && elementDue && c !== CLOSE_BRACKET) {
      ids.push(undefined);
      elementDue = false;
    }
    if (c === QUOTE) {
      const end = stringEnd(body, i);
      if (depth === memberDepth && end - i === 4 && body.startsWith('"id"', i)) {
        let j = end;
        while (j < n && isSpace(body.charCodeAt(j))) j++;
        if (body.charCodeAt(j) === COLON) {
          j++;
          while (j < n && isSpace(body.charCodeAt(j))) j++;
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
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (!batch && depth === 1) ids.push(undefined);
      if (batch && depth === 1) elementDue = true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (c === COMMA && batch && depth === 1) {
      elementDue = true;
    }
    i++;
  }
  return ids;
}

/** The index after the string, number or literal starting at `start` of `text`. */
export function scalarValueEnd(text: string, start: number): number {
  return text.charCodeAt(start) === QUOTE ? stringEnd(text, start) : scalarEnd(text, start);
}

function isSpace(c: number): boolean {
  return c === SPACE || c === TAB || c === LF || c === CR;
}

/**
 * The index after the string starting at `start` (a '"'): the first quote after it not escaped
 * by an odd run of backslashes. indexOf finds the candidates, far faster than a loop over
 * every character of a long hex string.
 */
function stringEnd(body: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = body.indexOf('"', from);
    if (quote < 0) return body.length;
    let backslashes = 0;
    for (let k = quote - 1; k > start && body.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The index after a number or literal starting at `start`. */
function scalarEnd(body: string, start: number): number {
  let i = start;
  for (; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (isSpace(c) || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET) break;
  }
  return i;
}

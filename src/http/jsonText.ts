/**
 * Where a member's value lies in a JSON text, and whether that text is already what
 * JSON.stringify would make of the parsed value, so that a message body that arrived
 * as compact JSON (what JSON.stringify sends) is stored as it came instead of being
 * stringified again. Only for texts JSON.parse has accepted: nothing here validates.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string that starts at i. */
function skipString(text: string, i: number): number {
  for (i++; ; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
}

/** The index just past the value that starts at i (no space before it). */
function skipValue(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return skipString(text, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (; ; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = skipString(text, i) - 1;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
  }
  // a number, true, false or null: up to the next delimiter
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
  }
  return i;
}

/** A value's place in the text: [start, end). */
export type Span = readonly [number, number];

/**
 * The members of the object whose value starts at `start`, by key, each with its
 * value's span (the last of duplicate keys, as JSON.parse keeps); null when the value
 * there is not an object.
 */
export function objectMembers(text: string, start: number): Map<string, Span> | null {
  let i = skipSpace(text, start);
  if (text.charCodeAt(i) !== OPEN_BRACE) return null;
  const members = new Map<string, Span>();
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return null;
    const valueStart = skipSpace(text, i + 1);
    const valueEnd = skipValue(text, valueStart);
    members.set(key, [valueStart, valueEnd]);
    i = skipSpace(text, valueEnd);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return members;
}

/** The spans of the elements of the array whose value starts at `start`; null when not an array. */
export function arrayElements(text: string, start: number): Span[] | null {
  let i = skipSpace(text, start);
  if (text.charCodeAt(i) !== OPEN_BRACKET) return null;
  const elements: Span[] = [];
  i = skipSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) !== CLOSE_BRACKET) {
    const end = skipValue(text, i);
    elements.push([i, end]);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return elements;
}

/** The text of a message's `body` member (the object's value starting at `start`), if any. */
export function bodyText(text: string, start = 0): string | undefined {
  const span = objectMembers(text, start)?.get('body');
  return span && text.slice(span[0], span[1]);
}

/** The \u escapes JSON.stringify writes: control characters other than \b \t \n \f \r. */
const CONTROL_ESCAPE = /^00(?:0[0-7bef]|1[0-9a-f])$/;

/** Object keys that V8 orders first and by number (array indices), whatever the text's order. */
const INDEX_KEY = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * The index just past the value starting at i if its text is exactly JSON.stringify of
 * its parsed value (no spaces, no escapes stringify would not write, numbers as
 * JavaScript prints them, no repeated or index-like object keys), else -1. It may say
 * -1 for a few texts stringify would write the same (a lone surrogate's escape, an
 * index-like key alone): those are stringified, which is only slower.
 */
function compactEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) {
    for (i++; ; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) return i + 1;
      if (c === BACKSLASH) {
        const escaped = text.charCodeAt(++i);
        // stringify writes \/ as /, and \uXXXX only for the controls without a short form
        if (escaped === 0x2f) return -1;
        if (escaped === 0x75) {
          if (!CONTROL_ESCAPE.test(text.slice(i + 1, i + 5))) return -1;
          i += 4;
        }
      }
    }
  }
  if (first === OPEN_BRACKET) {
    i++;
    if (text.charCodeAt(i) === CLOSE_BRACKET) return i + 1;
    for (;;) {
      i = compactEnd(text, i);
      if (i < 0) return -1;
      const c = text.charCodeAt(i);
      if (c === CLOSE_BRACKET) return i + 1;
      if (c !== COMMA) return -1;
      i++;
    }
  }
  if (first === OPEN_BRACE) {
    i++;
    if (text.charCodeAt(i) === CLOSE_BRACE) return i + 1;
    const keys = new Set<string>();
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return -1;
      const keyEnd = compactEnd(text, i);
      if (keyEnd < 0) return -1;
      const key = text.slice(i + 1, keyEnd - 1);
      if (keys.has(key) || INDEX_KEY.test(key)) return -1;
      keys.add(key);
      if (text.charCodeAt(keyEnd) !== COLON) return -1;
      i = compactEnd(text, keyEnd + 1);
      if (i < 0) return -1;
      const c = text.charCodeAt(i);
      if (c === CLOSE_BRACE) return i + 1;
      if (c !== COMMA) return -1;
      i++;
    }
  }
  const end = skipValue(text, i);
  if (end === i) return -1;
  const token = text.slice(i, end);
  if (first === 0x74 || first === 0x66 || first === 0x6e) return end; // true, false, null
  return String(Number(token)) === token ? end : -1;
}

/** Whether `value` (JSON text JSON.parse accepted) is exactly JSON.stringify of what it holds. */
export function isCompactJson(value: string): boolean {
  return compactEnd(value, 0) === value.length;
}

/** The text of each message's `body` in a batch request's `messages` array. */
export function batchBodyTexts(text: string): (string | undefined)[] {
  const messages = objectMembers(text, 0)?.get('messages');
  if (!messages) return [];
  return (arrayElements(text, messages[0]) ?? []).map(([start]) => bodyText(text, start));
}

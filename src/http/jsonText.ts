/**
 * Where a member's value lies in a JSON text, and whether that text is already what
 * JSON.stringify would make of the parsed value, so that a message body that arrived
 * as compact JSON (what JSON.stringify sends) is stored as it came instead of being
 * stringified again. Only for texts JSON.parse has accepted: nothing here validates.
 */

const QUOTE = 0x22;
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

/** A string's next quote or backslash (V8 searches faster than a character loop). */
const QUOTE_OR_BACKSLASH = /["\\]/g;

/** The index of the next quote or backslash from i (-1 when none). */
function nextSpecial(text: string, i: number): number {
  QUOTE_OR_BACKSLASH.lastIndex = i;
  return QUOTE_OR_BACKSLASH.exec(text) === null ? -1 : QUOTE_OR_BACKSLASH.lastIndex - 1;
}

/** The index just past the string that starts at i. */
function skipString(text: string, i: number): number {
  for (i++; ;) {
    i = nextSpecial(text, i);
    if (text.charCodeAt(i) === QUOTE) return i + 1;
    i += 2; // a backslash and the character it escapes
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
    const key = keyAt(text, i, keyEnd);
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

/**
 * The text of a message's `body` member (in the object whose value starts at `start`)
 * when it is exactly what JSON.stringify would write for it; undefined when it is not,
 * or when there is no body (the caller then stringifies the parsed body).
 */
export function compactBodyText(text: string, start = 0): string | undefined {
  let i = skipSpace(text, start);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  let found: string | undefined;
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const keyStart = i;
    const keyEnd = skipString(text, i);
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1);
    let valueEnd = -1;
    if (isKey(text, keyStart, keyEnd, 'body')) {
      // (a later "body" replaces an earlier one, as in JSON.parse)
      valueEnd = compactEnd(text, valueStart);
      found = valueEnd < 0 ? undefined : text.slice(valueStart, valueEnd);
    }
    if (valueEnd < 0) valueEnd = skipValue(text, valueStart);
    i = skipSpace(text, valueEnd);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return found;
}

/** The key whose string text[start, end) is (with its quotes), its escapes read. */
function keyAt(text: string, start: number, end: number): string {
  const raw = text.slice(start, end);
  return raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
}

/** Whether the key text[start, end) (with its quotes) is `name`, however it is spelled. */
function isKey(text: string, start: number, end: number, name: string): boolean {
  if (end - start === name.length + 2 && text.startsWith(name, start + 1)) return true;
  return keyAt(text, start, end) === name;
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
      i = nextSpecial(text, i);
      if (text.charCodeAt(i) === QUOTE) return i + 1;
      // a backslash: stringify writes \/ as /, and \uXXXX only for the controls without
      // a short form
      const escaped = text.charCodeAt(++i);
      if (escaped === 0x2f) return -1;
      if (escaped === 0x75) {
        if (!CONTROL_ESCAPE.test(text.slice(i + 1, i + 5))) return -1;
        i += 4;
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
    const keys: string[] = [];
    let keySet: Set<string> | null = null;
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return -1;
      const keyEnd = compactEnd(text, i);
      if (keyEnd < 0) return -1;
      const key = text.slice(i + 1, keyEnd - 1);
      if (isDigit(key.charCodeAt(0)) && INDEX_KEY.test(key)) return -1;
      // (a list while small, a set past that)
      if (keySet === null && keys.length === SMALL_OBJECT) keySet = new Set(keys);
      if (keySet === null) {
        if (keys.includes(key)) return -1;
        keys.push(key);
      } else {
        if (keySet.has(key)) return -1;
        keySet.add(key);
      }
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
  if (first === 0x74 || first === 0x66 || first === 0x6e) return end; // true, false, null
  if (isShortInteger(text, i, end)) return end;
  const token = text.slice(i, end);
  return String(Number(token)) === token ? end : -1;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const SMALL_OBJECT = 16;

/**
 * Whether text[start, end) is an integer JavaScript prints as written: at most 15 digits
 * (exact in a double), no leading zero, not -0.
 */
function isShortInteger(text: string, start: number, end: number): boolean {
  if (text.charCodeAt(start) === 0x2d) start++;
  const digits = end - start;
  if (digits < 1 || digits > 15) return false;
  if (text.charCodeAt(start) === 0x30) return digits === 1 && text.charCodeAt(start - 1) !== 0x2d;
  for (let i = start; i < end; i++) if (!isDigit(text.charCodeAt(i))) return false;
  return true;
}

/** Whether `value` (JSON text JSON.parse accepted) is exactly JSON.stringify of what it holds. */
export function isCompactJson(value: string): boolean {
  return compactEnd(value, 0) === value.length;
}

/** compactBodyText of each message in a batch request's `messages` array. */
export function batchBodyTexts(text: string): (string | undefined)[] {
  const messages = objectMembers(text, 0)?.get('messages');
  if (!messages) return [];
  return (arrayElements(text, messages[0]) ?? []).map(([start]) => compactBodyText(text, start));
}

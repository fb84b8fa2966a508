/**
 * A webhook's `group_by` (docs/api/groups.md): the delivery's group_id from a request header or
 * from the JSON body at an RFC 6901 pointer. A missing or invalid value means no group.
 */
import { GROUP_ID_PATTERN } from '../schemas/requests';
import type { WebhookGroupBy } from '../relay';

/** The tokens of an RFC 6901 pointer ('' is the whole document), or null when malformed. */
export function pointerTokens(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (!pointer.startsWith('/') || /~[^01]|~$/.test(pointer)) return null;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function atPointer(document: unknown, tokens: string[]): unknown {
  let at: unknown = document;
  for (const token of tokens) {
    if (Array.isArray(at)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      at = at[Number(token)];
    } else if (at !== null && typeof at === 'object') {
      if (!Object.prototype.hasOwnProperty.call(at, token)) return undefined;
      at = (at as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return at;
}

/** The group of a delivery (headers in lower case), or null. */
export function deliveryGroup(
  groupBy: WebhookGroupBy | null | undefined,
  headers: Record<string, string>,
  body: Buffer,
): string | null {
  if (!groupBy) return null;
  let value: unknown;
  if ('header' in groupBy) {
    value = headers[groupBy.header];
  } else {
    const tokens = pointerTokens(groupBy.json_pointer);
    if (tokens === null) return null;
    try {
      value = atPointer(JSON.parse(body.toString('utf8')), tokens);
    } catch {
      return null;
    }
    if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  }
  return typeof value === 'string' && GROUP_ID_PATTERN.test(value) ? value : null;
}

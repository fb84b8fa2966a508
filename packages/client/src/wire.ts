/**
 * The one mapping between the SDK's names and the wire's: every field is the
 * camelCase of the relay's snake_case name (`lease_id` <-> `leaseId`,
 * `message_backlog_count` <-> `messageBacklogCount`). Message bodies and
 * metadata are the caller's own data and are never renamed.
 */

/** Fields whose values belong to the caller (a destination's header names too): copied as they are, in both directions. */
const OPAQUE = new Set(['body', 'metadata', 'headers']);

export const toSnake = (name: string): string =>
  name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const toCamel = (name: string): string =>
  name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An SDK value as the relay expects it: camelCase keys become snake_case.
 * Snake_case keys (the SDK's names before 0.2, kept as deprecated aliases) pass
 * as they are; when both spellings are given, the camelCase one wins.
 */
export function toWire(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toWire);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    const wire = toSnake(key);
    // a deprecated snake_case alias yields to the camelCase name when both are given
    if (wire === key && key.includes('_') && value[toCamel(key)] !== undefined) continue;
    out[wire] = OPAQUE.has(key) ? field : toWire(field);
  }
  return out;
}

/**
 * A relay answer as the SDK returns it: snake_case keys become camelCase. Each
 * renamed field keeps its wire name as a non-enumerable, deprecated getter, so
 * code written for the old names still reads them while JSON output and
 * spreads show the camelCase names only.
 */
export function fromWire<T>(value: unknown): T {
  if (Array.isArray(value)) return value.map((v) => fromWire(v)) as T;
  if (!isPlainObject(value)) return value as T;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const name = toCamel(key);
    out[name] = OPAQUE.has(key) ? field : fromWire(field);
    if (name !== key) {
      Object.defineProperty(out, key, {
        get: () => out[name],
        enumerable: false,
        configurable: true,
      });
    }
  }
  return out as T;
}

/** The value of an option under its camelCase name, or under its deprecated snake_case alias. */
export function option<T>(options: object | undefined, name: string): T | undefined {
  if (!options) return undefined;
  const record = options as Record<string, unknown>;
  const value = record[name] !== undefined ? record[name] : record[toSnake(name)];
  return value as T | undefined;
}

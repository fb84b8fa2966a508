/**
 * Checks a filter and turns it into a Condition tree. The first problem found is
 * thrown as a FilterError naming its path from the caller's prefix
 * (`routes[2].filter.body.amount.$gte must be a number or a string`).
 */
import {
  LOGIC_OPERATORS,
  MAX_FILTER_BYTES,
  PARTS,
  VALUE_OPERATORS,
  type Condition,
  type Json,
  type Part,
  type ValueOperator,
} from './language';

export class FilterError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path} ${problem}`);
    this.name = 'FilterError';
  }
}

/** Where an object sits: the top of a filter, the headers (lower-case names), or any value. */
type Level = 'top' | 'headers' | 'value';

const OPERATOR_LIST = [...VALUE_OPERATORS, ...LOGIC_OPERATORS].join(', ');
const TOP_KEYS = [...PARTS, ...LOGIC_OPERATORS].join(', ');

const isPart = (key: string): key is Part => (PARTS as readonly string[]).includes(key);
const isValueOperator = (key: string): key is ValueOperator =>
  (VALUE_OPERATORS as readonly string[]).includes(key);

/** A JSON object: the only kind of object a filter holds (no class instances). */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function checkSize(filter: Record<string, unknown>, path: string): void {
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(filter));
  } catch {
    // nested too deeply to serialize: far beyond the limit
    bytes = Infinity;
  }
  if (bytes > MAX_FILTER_BYTES) {
    const size = Number.isFinite(bytes) ? `${bytes} bytes` : 'too large';
    throw new FilterError(
      path,
      `is ${size} as compact JSON; the limit is ${MAX_FILTER_BYTES} bytes`,
    );
  }
}

/** The filter's condition tree, or a FilterError naming the first problem. */
export function validateFilter(filter: unknown, path: string): Condition {
  if (!isJsonObject(filter)) throw new FilterError(path, 'must be an object');
  checkSize(filter, path);
  return objectCondition(filter, path, 'top');
}

function condition(value: unknown, path: string, level: Level): Condition {
  if (isJsonObject(value)) return objectCondition(value, path, level);
  if (level === 'top') throw new FilterError(path, 'must be an object');
  if (Array.isArray(value)) {
    return { kind: 'every', items: value.map((v, i) => condition(v, `${path}[${i}]`, 'value')) };
  }
  if (isLiteral(value)) return { kind: 'literal', value };
  throw new FilterError(path, 'must be a JSON value');
}

function isLiteral(value: unknown): value is null | boolean | number | string {
  return (
    value === null ||
    typeof value === 'boolean' ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** An object in a filter: all of its keys must hold, plain keys and operators alike. */
function objectCondition(object: Record<string, unknown>, path: string, level: Level): Condition {
  const fields: { key: string; condition: Condition }[] = [];
  const parts: { part: Part; condition: Condition }[] = [];
  const others: Condition[] = [];
  for (const key of Object.keys(object)) {
    const at = `${path}.${key}`;
    const value = object[key];
    if (key === '$or' || key === '$and') {
      if (!Array.isArray(value) || value.length === 0) {
        throw new FilterError(at, 'must be a non-empty array');
      }
      const conditions = value.map((v, i) => condition(v, `${at}[${i}]`, level));
      others.push({ kind: key === '$or' ? 'or' : 'and', conditions });
    } else if (key === '$not') {
      others.push({ kind: 'not', condition: condition(value, at, level) });
    } else if (level === 'top') {
      if (!isPart(key)) throw new FilterError(at, `is not a filter key; use ${TOP_KEYS}`);
      parts.push({
        part: key,
        condition: condition(value, at, key === 'headers' ? 'headers' : 'value'),
      });
    } else if (key.startsWith('$')) {
      if (!isValueOperator(key))
        throw new FilterError(at, `is not an operator; use ${OPERATOR_LIST}`);
      others.push({ kind: 'operator', operator: key, operand: operand(key, value, at) });
    } else {
      if (level === 'headers' && key !== key.toLowerCase()) {
        throw new FilterError(at, 'must be a lower-case header name');
      }
      fields.push({ key, condition: condition(value, at, 'value') });
    }
  }
  // the body may need a parse: the other parts first, so that a filter that fails on them never parses it
  parts.sort((a, b) => PARTS.indexOf(a.part) - PARTS.indexOf(b.part));
  const all: Condition[] = [];
  if (parts.length > 0) all.push({ kind: 'parts', parts });
  if (fields.length > 0) all.push({ kind: 'fields', fields });
  all.push(...others);
  return all.length === 1 ? all[0] : { kind: 'and', conditions: all };
}

function operand(operator: ValueOperator, value: unknown, path: string): Json {
  switch (operator) {
    case '$exist':
      if (typeof value !== 'boolean') throw new FilterError(path, 'must be a boolean');
      return value;
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
        return value;
      }
      throw new FilterError(path, 'must be a number or a string');
    case '$startsWith':
    case '$endsWith':
    case '$contains':
      if (typeof value !== 'string') throw new FilterError(path, 'must be a string');
      return value;
    case '$in':
    case '$nin':
      if (!Array.isArray(value)) throw new FilterError(path, 'must be an array');
      return json(value, path);
    case '$eq':
    case '$neq':
      return json(value, path);
  }
}

/** A JSON value compared as it is: operators inside it are plain keys. */
function json(value: unknown, path: string): Json {
  if (Array.isArray(value)) value.forEach((v, i) => json(v, `${path}[${i}]`));
  else if (isJsonObject(value))
    for (const key of Object.keys(value)) json(value[key], `${path}.${key}`);
  else if (!isLiteral(value)) throw new FilterError(path, 'must be a JSON value');
  return value as Json;
}

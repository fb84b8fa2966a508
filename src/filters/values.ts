/**
 * How a filter reads the message's JSON values: own fields only (a data key such as
 * `__proto__` or `constructor` is a plain key, and nothing inherited is ever read),
 * type-strict equality, and the any-element rule for arrays.
 */
import type { Json } from './language';

/** A test of one value; `undefined` stands for an absent field. */
export type Test = (value: unknown) => boolean;

const hasOwn = (object: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(object, key);

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value's own field `key`; undefined when absent or when the value is no object. */
export function fieldOf(value: unknown, key: string): unknown {
  return isObject(value) && hasOwn(value, key) ? value[key] : undefined;
}

/** A field whose value is an array matches when the array, or any of its elements, does. */
export function anyElement(test: Test): Test {
  return (value) => test(value) || (Array.isArray(value) && value.some((item) => test(item)));
}

/** Type-strict deep equality of JSON values ("100" is not 100; key order does not count). */
export function sameJson(a: unknown, b: Json): boolean {
  if (a === b) return true;
  if (typeof b !== 'object' || b === null || typeof a !== 'object' || a === null) return false;
  if (Array.isArray(b)) {
    return Array.isArray(a) && a.length === b.length && b.every((item, i) => sameJson(a[i], item));
  }
  if (!isObject(a)) return false;
  const keys = Object.keys(b);
  return (
    keys.length === Object.keys(a).length &&
    keys.every((key) => hasOwn(a, key) && sameJson(a[key], b[key]))
  );
}

/**
 * One test per value operator ($eq ... $contains), its operand already checked by
 * validate.ts. Every operator but $exist is false on an absent field; $neq and $nin
 * are the negations of $eq and $in on a present one (on an array: no element equals).
 */
import type { Json, Literal, ValueOperator } from './language';
import { anyElement, sameJson, type Test } from './values';

const isLiteral = (x: Json): x is Literal => x === null || typeof x !== 'object';

/** The value, or any of its elements, equals one of `options`. */
function oneOf(options: Json[]): Test {
  if (options.every(isLiteral)) {
    // a Set compares like ===: type-strict
    const set = new Set<unknown>(options);
    return anyElement((value) => set.has(value));
  }
  return anyElement((value) => options.some((option) => sameJson(value, option)));
}

const present =
  (test: Test): Test =>
  (value) =>
    value !== undefined && test(value);
const presentAndNot =
  (test: Test): Test =>
  (value) =>
    value !== undefined && !test(value);

/** Like compares with like: a number with a number, a string with a string (code-unit order). */
function ordered(operand: Json, holds: (order: number) => boolean): Test {
  if (typeof operand === 'number') {
    return anyElement(
      (v) => typeof v === 'number' && holds(v < operand ? -1 : v > operand ? 1 : 0),
    );
  }
  const text = operand as string;
  return anyElement((v) => typeof v === 'string' && holds(v < text ? -1 : v > text ? 1 : 0));
}

function text(test: (value: string) => boolean): Test {
  return anyElement((v) => typeof v === 'string' && test(v));
}

export function operatorTest(operator: ValueOperator, operand: Json): Test {
  switch (operator) {
    case '$exist':
      return operand === true ? (v) => v !== undefined : (v) => v === undefined;
    case '$eq':
      return present(oneOf([operand]));
    case '$neq':
      return presentAndNot(oneOf([operand]));
    case '$in':
      return present(oneOf(operand as Json[]));
    case '$nin':
      return presentAndNot(oneOf(operand as Json[]));
    case '$gt':
      return ordered(operand, (order) => order > 0);
    case '$gte':
      return ordered(operand, (order) => order >= 0);
    case '$lt':
      return ordered(operand, (order) => order < 0);
    case '$lte':
      return ordered(operand, (order) => order <= 0);
    case '$startsWith': {
      const prefix = operand as string;
      return text((v) => v.startsWith(prefix));
    }
    case '$endsWith': {
      const suffix = operand as string;
      return text((v) => v.endsWith(suffix));
    }
    case '$contains': {
      const part = operand as string;
      return text((v) => v.includes(part));
    }
  }
}

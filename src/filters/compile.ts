/**
 * Turns a condition tree into one function of the message, built once per filter:
 * a route's filter is evaluated for every send, a history search for every record.
 */
import type { Condition } from './language';
import { operatorTest } from './operators';
import { anyElement, fieldOf, type Test } from './values';

const every =
  (tests: Test[]): Test =>
  (value) => {
    for (const test of tests) if (!test(value)) return false;
    return true;
  };

export function compile(condition: Condition): Test {
  switch (condition.kind) {
    case 'literal': {
      const literal = condition.value;
      return anyElement((value) => value === literal);
    }
    case 'every': {
      const items = condition.items.map(compile);
      return anyElement(
        (value) => Array.isArray(value) && items.every((item) => value.some((v) => item(v))),
      );
    }
    case 'fields': {
      const all = every(
        condition.fields.map(({ key, condition: field }) => {
          const test = compile(field);
          return (value: unknown) => test(fieldOf(value, key));
        }),
      );
      // on an array, one element must hold every field (Hookdeck's nested array match)
      return (value) => (Array.isArray(value) ? value.some((item) => all(item)) : all(value));
    }
    case 'parts':
      // the top of a filter reads the named parts of a FilterInput (getters, parsed on first use)
      return every(
        condition.parts.map(({ part, condition: inPart }) => {
          const test = compile(inPart);
          return (input: unknown) => test((input as Record<typeof part, unknown>)[part]);
        }),
      );
    case 'and':
      return every(condition.conditions.map(compile));
    case 'or': {
      const tests = condition.conditions.map(compile);
      return (value) => tests.some((test) => test(value));
    }
    case 'not': {
      const test = compile(condition.condition);
      return (value) => !test(value);
    }
    case 'operator':
      return operatorTest(condition.operator, condition.operand);
  }
}

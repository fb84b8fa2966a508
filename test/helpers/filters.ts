/** Evaluating a filter against a message built in the test (test/unit/filter*.test.ts). */
import { matches, parseFilter, type FilterInput } from '../../src/filters';

export const input = (parts: Partial<FilterInput> = {}): FilterInput => ({
  body: undefined,
  headers: {},
  query: {},
  metadata: {},
  ...parts,
});

/** Whether `{"body": condition}` matches a message whose JSON body is `body` (undefined: no JSON body). */
export const onBody = (condition: unknown, body: unknown): boolean =>
  matches(parseFilter({ body: condition }, 'filter'), input({ body }));

/** Whether `{"body": {"x": condition}}` matches the body `{"x": value}` (undefined: x absent). */
export const onX = (condition: unknown, value: unknown): boolean =>
  onBody({ x: condition }, value === undefined ? { other: 1 } : { x: value });

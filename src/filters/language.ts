/**
 * The filter language's words (docs/api/filters.md): the parts of a message a filter
 * reads, its operators, and the tree a valid filter becomes (validate.ts builds it,
 * compile.ts turns it into one function).
 */

/** A filter's compact JSON may be at most this long (bytes). */
export const MAX_FILTER_BYTES = 4096;

/** The parts of a message, in the order a filter tests them: the body, which may need a parse, last. */
export const PARTS = ['headers', 'query', 'metadata', 'body'] as const;
export type Part = (typeof PARTS)[number];

export const VALUE_OPERATORS = [
  '$eq',
  '$neq',
  '$in',
  '$nin',
  '$exist',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$startsWith',
  '$endsWith',
  '$contains',
] as const;
export type ValueOperator = (typeof VALUE_OPERATORS)[number];

export const LOGIC_OPERATORS = ['$or', '$and', '$not'] as const;

export type Literal = null | boolean | number | string;
export type Json = Literal | Json[] | { [key: string]: Json };

/** A condition on one value of the message; `undefined` stands for an absent field. */
export type Condition =
  /** a literal in the filter: type-strict equality */
  | { kind: 'literal'; value: Literal }
  /** an array in the filter: the field's array holds a match for every item */
  | { kind: 'every'; items: Condition[] }
  /** an object's plain keys: each field of the value matches */
  | { kind: 'fields'; fields: { key: string; condition: Condition }[] }
  /** the top of a filter: each named part of the message matches */
  | { kind: 'parts'; parts: { part: Part; condition: Condition }[] }
  | { kind: 'operator'; operator: ValueOperator; operand: Json }
  | { kind: 'and' | 'or'; conditions: Condition[] }
  | { kind: 'not'; condition: Condition };

/**
 * The one filter matcher that routes (issue 27) and history search (issue 28) share;
 * the language is docs/api/filters.md. Pure: no Redis, no HTTP. parseFilter checks and
 * compiles a filter once; matches evaluates it against a message as often as needed.
 */
import { compile } from './compile';
import type { FilterInput } from './input';
import { mayMatchTexts, textNeeds, type MessageTexts } from './texts';
import { validateFilter } from './validate';

export { MAX_FILTER_BYTES } from './language';
export { FilterError } from './validate';
export { filterInputOf, type FilterInput, type StoredMessage } from './input';
export type { MessageTexts } from './texts';

export interface Filter {
  /** the filter as it was given (what GET returns) */
  readonly source: Readonly<Record<string, unknown>>;
  readonly test: (input: FilterInput) => boolean;
  /**
   * False when the stored message cannot match, read from its JSON texts without parsing
   * them (texts.ts); true says only "test it".
   */
  readonly mayMatch: (message: MessageTexts) => boolean;
}

/**
 * A checked, compiled filter. path: where the filter sits in the request
 * (`routes[2].filter`, `filter`), the prefix of every FilterError's path.
 */
export function parseFilter(value: unknown, path: string): Filter {
  const condition = validateFilter(value, path);
  const needs = textNeeds(condition);
  return {
    source: value as Record<string, unknown>,
    test: compile(condition),
    mayMatch: (message) => mayMatchTexts(needs, message),
  };
}

export function matches(filter: Filter, input: FilterInput): boolean {
  return filter.test(input);
}

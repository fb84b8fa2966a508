/**
 * The query protocol's requests (`Action=SendMessage&QueueUrl=...`, a form
 * body or a GET's query string) read into the action's JSON input, by the
 * names in queryShapes.ts. Integers arrive as text: a whole number becomes a
 * number, anything else stays text for the action to refuse by name, as it
 * refuses a JSON value of the wrong type. Unknown parameters are ignored, as in
 * the JSON protocol.
 */
import { missingParameter } from '../errors';
import type { Input } from '../params';
import { QUERY_INPUTS, type Members, type Shape } from './queryShapes';

export type QueryParams = ReadonlyMap<string, string>;

/** The query string's parameters, then the form body's (a parameter in both: the body's). */
export function queryParams(search: string, body: Buffer | undefined): Map<string, string> {
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(search)) params.set(name, value);
  if (body && body.length > 0) {
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) params.set(name, value);
  }
  return params;
}

/** The numbers under each list or map prefix (`Attribute` -> 1, 2; `Attribute.1.Value.X` -> ...). */
function indexOf(params: QueryParams): Map<string, number[]> {
  const found = new Map<string, Set<number>>();
  for (const name of params.keys()) {
    const parts = name.split('.');
    for (let i = 1; i < parts.length; i++) {
      if (!/^[1-9]\d{0,8}$/.test(parts[i])) continue;
      const prefix = parts.slice(0, i).join('.');
      let numbers = found.get(prefix);
      if (!numbers) found.set(prefix, (numbers = new Set()));
      numbers.add(Number(parts[i]));
    }
  }
  const index = new Map<string, number[]>();
  for (const [prefix, numbers] of found)
    index.set(
      prefix,
      [...numbers].sort((a, b) => a - b),
    );
  return index;
}

class Reader {
  private readonly index: Map<string, number[]>;

  constructor(private readonly params: QueryParams) {
    this.index = indexOf(params);
  }

  /** The value of the shape whose parameters start with `name`, or undefined when none is sent. */
  read(shape: Shape, name: string): unknown {
    switch (shape.kind) {
      case 'string':
        return this.params.get(name);
      case 'integer': {
        const text = this.params.get(name);
        return text !== undefined && /^[+-]?\d{1,15}$/.test(text) ? Number(text) : text;
      }
      case 'list': {
        const numbers = this.index.get(name);
        if (!numbers) {
          // one item without a number (`AttributeName=All`, as kombu sends it)
          const one = shape.of.kind === 'structure' ? undefined : this.read(shape.of, name);
          return one === undefined ? undefined : [one];
        }
        return numbers.map((n) => this.read(shape.of, `${name}.${n}`));
      }
      case 'map': {
        const numbers = this.index.get(name);
        if (!numbers) return undefined;
        // no prototype: a key named __proto__ is a key like any other
        const out = Object.create(null) as Record<string, unknown>;
        for (const n of numbers) {
          const key = this.params.get(`${name}.${n}.${shape.key}`);
          if (key === undefined) throw missingParameter(`${name}.${n}.${shape.key}`);
          const value = this.read(shape.of, `${name}.${n}.${shape.value}`);
          if (value === undefined) throw missingParameter(`${name}.${n}.${shape.value}`);
          out[key] = value;
        }
        return out;
      }
      case 'structure':
        return this.structure(shape.members, `${name}.`);
    }
  }

  /** A structure's members; `prefix` is '' or ends with a dot. */
  structure(members: Members, prefix: string): Input {
    const out: Input = {};
    for (const [member, shape] of Object.entries(members)) {
      const name =
        shape.kind === 'list' ? shape.member : shape.kind === 'map' ? shape.entry : member;
      let value = this.read(shape, `${prefix}${name}`);
      // an empty list is sent as the member's own name with no value (`Entries=`)
      if (
        value === undefined &&
        shape.kind === 'list' &&
        this.params.get(`${prefix}${member}`) === ''
      ) {
        value = [];
      }
      if (value !== undefined) out[member] = value;
    }
    return out;
  }
}

/** The action's JSON input from its query parameters. */
export function queryInput(action: string, params: QueryParams): Input {
  const members = QUERY_INPUTS[action];
  return members === undefined ? {} : new Reader(params).structure(members, '');
}

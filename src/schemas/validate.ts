/**
 * One ajv instance, schemas compiled once at start-up, and the translation of
 * ajv's first error into one plain sentence that names the field:
 * `messages[3].delay_seconds must be at most 86400`.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { invalidField } from '../errors';

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });

/** `/messages/3/delay_seconds` -> `messages[3].delay_seconds` */
export function fieldPath(instancePath: string): string {
  let out = '';
  for (const raw of instancePath.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  integer: 'an integer',
  string: 'a string',
  object: 'a JSON object',
  array: 'an array',
  boolean: 'true or false',
  null: 'null',
};

function describeType(type: string | string[]): string {
  const types = Array.isArray(type) ? type : type.split(',');
  return types.map((t) => TYPE_WORDS[t] ?? t).join(' or ');
}

export function describeError(error: ErrorObject, root: string): string {
  const path = fieldPath(error.instancePath);
  const at = (field: string) => (path === '' ? field : `${path}.${field}`);
  const subject = path === '' ? root : path;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `required field ${at(String(p.missingProperty))} is missing`;
    case 'additionalProperties':
      return `unknown field ${at(String(p.additionalProperty))}`;
    case 'type':
      return `${subject} must be ${describeType(p.type as string)}`;
    case 'maximum':
      return `${subject} must be at most ${p.limit}`;
    case 'minimum':
      return `${subject} must be at least ${p.limit}`;
    case 'maxItems':
      return `${subject} must have at most ${p.limit} entries`;
    case 'minItems':
      return `${subject} must have at least ${p.limit} ${p.limit === 1 ? 'entry' : 'entries'}`;
    case 'maxLength':
      return `${subject} must be at most ${p.limit} characters`;
    case 'minLength':
      return `${subject} must be at least ${p.limit} characters`;
    case 'enum':
      return `${subject} must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return `${subject} must be 1 to 128 characters of A-Z a-z 0-9 _ - . and must not start with a dot`;
    case 'uniqueItems':
      return `${subject} must not repeat an entry`;
    case 'maxProperties':
      return `${subject} must have at most ${p.limit} fields`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}`;
  }
}

export interface Validator<T> {
  (value: unknown): T;
  /** The JSON Schema it checks with (the OpenAPI document's request schema is this object). */
  readonly schema: object;
}

/** Compiles a schema; the returned function returns the value typed, or throws a 400. */
export function compile<T>(schema: object, root = 'request body'): Validator<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  const check = (value: unknown): T => {
    if (!validate(value)) {
      throw invalidField(describeError((validate.errors ?? [])[0], root));
    }
    return value as T;
  };
  return Object.assign(check, { schema });
}

/**
 * Message attributes: validated as SQS does on send, kept in the relay
 * message's metadata under `sqs_attributes` (so that relay API consumers see
 * them), and selected by MessageAttributeNames on receive.
 */
import { invalidParameter } from './errors';
import { isAll } from './names';
import type { Input } from './params';

export interface MessageAttribute {
  DataType: string;
  StringValue?: string;
  /** base64, as the JSON protocol carries blobs */
  BinaryValue?: string;
}

/** Where a message's SQS attributes live in the relay message's metadata. */
export const METADATA_FIELD = 'sqs_attributes';
export const MAX_ATTRIBUTES = 10;

const NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const DATA_TYPE = /^(String|Number|Binary)(\.[^\s]{1,250})?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function checkName(name: string): void {
  if (
    !NAME.test(name) ||
    name.startsWith('.') ||
    name.endsWith('.') ||
    name.includes('..') ||
    /^(aws|amazon)\./i.test(name)
  ) {
    throw invalidParameter(
      `Message attribute name '${name}' is invalid: use 1 to 256 of A-Z a-z 0-9 _ - ., ` +
        `not starting or ending with a period, without '..', not starting with AWS. or Amazon.`,
    );
  }
}

function checkAttribute(name: string, value: unknown): MessageAttribute {
  checkName(name);
  const a = (value ?? {}) as Input;
  if (typeof a.DataType !== 'string' || !DATA_TYPE.test(a.DataType)) {
    throw invalidParameter(
      `Message attribute '${name}' must have a DataType of String, Number or Binary (optionally with a .custom suffix).`,
    );
  }
  const hasList =
    (Array.isArray(a.StringListValues) && a.StringListValues.length > 0) ||
    (Array.isArray(a.BinaryListValues) && a.BinaryListValues.length > 0);
  if (hasList) {
    throw invalidParameter(
      `Message attribute '${name}': StringListValues and BinaryListValues are not supported.`,
    );
  }
  const type = a.DataType.split('.')[0];
  if (type === 'Binary') {
    if (typeof a.BinaryValue !== 'string' || a.BinaryValue === '' || !BASE64.test(a.BinaryValue)) {
      throw invalidParameter(
        `Message attribute '${name}' must contain a non-empty BinaryValue (base64) for type Binary.`,
      );
    }
    return { DataType: a.DataType, BinaryValue: a.BinaryValue };
  }
  if (typeof a.StringValue !== 'string' || a.StringValue === '') {
    throw invalidParameter(
      `Message attribute '${name}' must contain a non-empty StringValue for type ${type}.`,
    );
  }
  if (type === 'Number' && !NUMBER.test(a.StringValue)) {
    throw invalidParameter(
      `Message attribute '${name}' of type Number must hold a number, got ${JSON.stringify(a.StringValue)}.`,
    );
  }
  return { DataType: a.DataType, StringValue: a.StringValue };
}

/**
 * A map of attributes by name with no prototype: an attribute named `__proto__` (or
 * `constructor`) is an attribute like any other, kept, and counted in its MD5.
 */
const attributeMap = (): Record<string, MessageAttribute> =>
  Object.create(null) as Record<string, MessageAttribute>;

/** The validated MessageAttributes of a send, or undefined when there are none. */
export function validateMessageAttributes(
  value: Input | undefined,
): Record<string, MessageAttribute> | undefined {
  if (value === undefined) return undefined;
  const names = Object.keys(value);
  if (names.length === 0) return undefined;
  if (names.length > MAX_ATTRIBUTES) {
    throw invalidParameter(
      `Number of message attributes [${names.length}] exceeds the allowed maximum [${MAX_ATTRIBUTES}].`,
    );
  }
  const out = attributeMap();
  for (const name of names) out[name] = checkAttribute(name, value[name]);
  return out;
}

/** A stored message's attributes, read back from its metadata (malformed entries skipped). */
export function attributesFromMetadata(metadata: unknown): Record<string, MessageAttribute> {
  const stored = (metadata as Input | null)?.[METADATA_FIELD];
  const out = attributeMap();
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return out;
  for (const [name, value] of Object.entries(stored as Input)) {
    try {
      out[name] = checkAttribute(name, value);
    } catch {
      // written by a relay API sender in another shape: not an SQS attribute
    }
  }
  return out;
}

/** The attributes MessageAttributeNames asks for: All (any case), .*, a prefix ending in .*, or names. */
export function selectAttributes(
  all: Record<string, MessageAttribute>,
  names: string[] | undefined,
): Record<string, MessageAttribute> {
  if (names === undefined || names.length === 0) return {};
  const wanted = (name: string) =>
    names.some((n) =>
      isAll(n) || n === '.*'
        ? true
        : n.endsWith('.*')
          ? name.startsWith(n.slice(0, -1))
          : n === name,
    );
  const out = attributeMap();
  for (const name of Object.keys(all)) if (wanted(name)) out[name] = all[name];
  return out;
}

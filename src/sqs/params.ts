/**
 * Reading an action's JSON input. SQS's JSON protocol sends typed values
 * (strings, integers, lists, maps); a missing required member is
 * MissingParameter and a wrong or out-of-range one InvalidParameterValue, each
 * naming the parameter as SQS does. Members relayq does not know are ignored,
 * as AWS services do, so that newer SDKs keep working.
 */
import { invalidParameter, missingParameter } from './errors';

export type Input = Record<string, unknown>;

const invalid = (name: string, value: unknown, reason: string) =>
  invalidParameter(
    `Value ${JSON.stringify(value)} for parameter ${name} is invalid. Reason: ${reason}`,
  );

export function optionalString(input: Input, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(name, value, 'must be a string.');
  return value;
}

export function requiredString(input: Input, name: string): string {
  const value = optionalString(input, name);
  if (value === undefined || value === '') throw missingParameter(name);
  return value;
}

export function optionalInteger(
  input: Input,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw invalid(name, value, 'must be a whole number.');
  }
  if (value < min || value > max) {
    throw invalid(name, value, `must be between ${min} and ${max}, if provided.`);
  }
  return value;
}

export function requiredInteger(input: Input, name: string, min: number, max: number): number {
  const value = optionalInteger(input, name, min, max);
  if (value === undefined) throw missingParameter(name);
  return value;
}

export function optionalStringList(input: Input, name: string): string[] | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw invalid(name, value, 'must be a list of strings.');
  }
  return value as string[];
}

export function optionalMap(input: Input, name: string): Input | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(name, value, 'must be a map.');
  }
  return value as Input;
}

/** A map of string to string, as SQS's queue Attributes and tags. */
export function optionalStringMap(input: Input, name: string): Record<string, string> | undefined {
  const map = optionalMap(input, name);
  if (map === undefined) return undefined;
  for (const [key, value] of Object.entries(map)) {
    if (typeof value !== 'string') throw invalid(`${name}.${key}`, value, 'must be a string.');
  }
  return map as Record<string, string>;
}

/** A list of objects (batch entries). */
export function requiredObjectList(input: Input, name: string): Input[] {
  const value = input[name];
  if (value === undefined || value === null) throw missingParameter(name);
  if (
    !Array.isArray(value) ||
    value.some((v) => v === null || typeof v !== 'object' || Array.isArray(v))
  ) {
    throw invalid(name, '...', 'must be a list of entries.');
  }
  return value as Input[];
}

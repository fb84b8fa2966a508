/**
 * How one configuration setting is declared: its environment variable, how a
 * value is read and checked, and what the configuration reference says about
 * it (docs/configuration.md is generated from these declarations). Reads no
 * environment itself: src/config.ts passes the raw value in.
 */

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface Setting<T> {
  env: string;
  /** the type as the reference shows it */
  type: string;
  /** the default as the reference shows it */
  default: string;
  /** accepted values beyond the type, as the reference shows them ('' for none) */
  bounds: string;
  description: string;
  /** the value of a raw variable; undefined or '' gives the default */
  parse(raw: string | undefined): T;
}

interface Doc {
  description: string;
}

const unset = (raw: string | undefined): raw is undefined => raw === undefined || raw === '';

export function integer(
  env: string,
  o: Doc & { default: number; min: number; max: number; unit?: string },
): Setting<number> {
  return {
    env,
    type: o.unit ? `integer (${o.unit})` : 'integer',
    default: String(o.default),
    bounds: `${o.min} to ${o.max}`,
    description: o.description,
    parse(raw) {
      if (unset(raw)) return o.default;
      if (!/^\d+$/.test(raw.trim()))
        throw new ConfigError(`${env} must be a whole number, got "${raw}"`);
      const value = Number(raw.trim());
      if (value < o.min || value > o.max) {
        throw new ConfigError(`${env} must be between ${o.min} and ${o.max}, got ${value}`);
      }
      return value;
    },
  };
}

export function oneOf<V extends string>(
  env: string,
  o: Doc & { values: readonly V[]; default: V },
): Setting<V> {
  return {
    env,
    type: 'one of',
    default: o.default,
    bounds: o.values.map((v) => `\`${v}\``).join(' '),
    description: o.description,
    parse(raw) {
      if (unset(raw)) return o.default;
      if (!o.values.includes(raw as V))
        throw new ConfigError(`${env} must be one of ${o.values.join(', ')}`);
      return raw as V;
    },
  };
}

/** A setting whose reading is its own (URLs, lists, JSON); `read` gets a set value only. */
export function custom<T>(
  env: string,
  o: Doc & { type: string; default: string; bounds?: string; whenUnset: T; read(raw: string): T },
): Setting<T> {
  return {
    env,
    type: o.type,
    default: o.default,
    bounds: o.bounds ?? '',
    description: o.description,
    parse: (raw) => (unset(raw) ? o.whenUnset : o.read(raw)),
  };
}

/** Channel and account ids: 1 to 128 of A-Z a-z 0-9 _ - . not starting with a dot. */
export const ID_PATTERN = /^(?!\.)[A-Za-z0-9_.-]{1,128}$/;
export const ID_PATTERN_SOURCE = '^(?!\\.)[A-Za-z0-9_.-]{1,128}$';

export function isValidId(id: unknown): id is string {
  return typeof id === 'string' && ID_PATTERN.test(id);
}

export function describeIdRule(what: string): string {
  return `${what} must be 1 to 128 characters of A-Z a-z 0-9 _ - . and must not start with a dot`;
}

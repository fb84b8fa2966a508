/**
 * Reading message records (layout in lua/lib/common.lua) into the JSON a
 * consumer receives. Bodies and metadata are stored as JSON text and spliced
 * into the response as they are: never parsed and re-serialised on the way out.
 */

/** Characters of the fixed part after the lease head: uuid 22, sent 9, expiry 9, content type 1. */
const UUID_CHARS = 22;
const TIME_DIGITS = 9;
const FIXED_CHARS = UUID_CHARS + 2 * TIME_DIGITS + 1;

/** The content type letters of lua/lib/common.lua's CONTENT_CODES. */
const CONTENT_TYPES: Record<string, string> = { j: 'json', t: 'text', b: 'bytes', v: 'v8' };

export interface RecordHeader {
  attempts: number;
  uuid: string;
  timestampMs: number;
  contentType: string;
  sourceChannel: string;
  sourceAttempts: number;
  /** the message's group id ('' for none) */
  groupId: string;
  /** its FIFO sequence number ('' for none) */
  sequenceNumber: string;
  metadataJson: string;
  bodyJson: string;
}

function malformed(): never {
  throw new Error('malformed message record');
}

/**
 * A UUID as its 16 bytes in 22 base64url characters, the form records and the dedup
 * index store and the send script takes (converted here, on the pod, not in Lua).
 */
export function compactUuid(uuid: string): string {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');
}

/** 22 base64url characters (16 bytes) as the UUID's usual 36 characters. */
export function uuidText(compact: string): string {
  const hex = Buffer.from(compact, 'base64url').toString('hex');
  if (hex.length !== 32) malformed();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The index of the next `|` at or after from, or a malformed-record error. */
function bar(record: string, from: number): number {
  const at = record.indexOf('|', from);
  if (at < 0) malformed();
  return at;
}

export function parseRecord(record: string): RecordHeader {
  const attemptsEnd = bar(record, 0);
  const fixed = bar(record, attemptsEnd + 1) + 1;
  const tail = fixed + FIXED_CHARS;
  const contentType = CONTENT_TYPES[record[tail - 1]] ?? malformed();
  // meta_len (base 36) ends at '|', or at ':' when src|src_attempts|size| follows, or at ';'
  // when src|src_attempts|size|group|fifo_seq| follows
  let markAt = tail;
  while (
    markAt < record.length &&
    record[markAt] !== '|' &&
    record[markAt] !== ':' &&
    record[markAt] !== ';'
  )
    markAt++;
  if (markAt === tail || markAt >= record.length) malformed();
  const metaLen = parseInt(record.slice(tail, markAt), 36);
  let sourceChannel = '';
  let sourceAttempts = 0;
  let groupId = '';
  let sequenceNumber = '';
  let start = markAt + 1;
  if (record[markAt] === ':' || record[markAt] === ';') {
    const srcEnd = bar(record, start);
    const attemptsAt = bar(record, srcEnd + 1);
    sourceChannel = record.slice(start, srcEnd);
    sourceAttempts = Number(record.slice(srcEnd + 1, attemptsAt) || 0);
    start = bar(record, attemptsAt + 1) + 1;
    if (record[markAt] === ';') {
      const groupEnd = bar(record, start);
      const seqEnd = bar(record, groupEnd + 1);
      groupId = record.slice(start, groupEnd);
      sequenceNumber = record.slice(groupEnd + 1, seqEnd);
      start = seqEnd + 1;
    }
  }
  return {
    attempts: Number(record.slice(0, attemptsEnd)),
    uuid: uuidText(record.slice(fixed, fixed + UUID_CHARS)),
    timestampMs: parseInt(record.slice(fixed + UUID_CHARS, fixed + UUID_CHARS + TIME_DIGITS), 36),
    contentType,
    sourceChannel,
    sourceAttempts,
    groupId,
    sequenceNumber,
    metadataJson: record.slice(start, start + metaLen),
    bodyJson: record.slice(start + metaLen),
  };
}

/** The pulled message (docs/api/messages.md, "Pull messages"; dead_letter when dead-lettered) as JSON text. */
export function pulledMessageJson(leaseId: string, record: string): string {
  const r = parseRecord(record);
  const deadLetter = r.sourceChannel
    ? `,"dead_letter":{"source_channel":"${r.sourceChannel}","attempts":${r.sourceAttempts}}`
    : '';
  // group ids are of [A-Za-z0-9_.:/=+@-]: nothing to escape
  const group =
    (r.groupId ? `,"group_id":"${r.groupId}"` : '') +
    (r.sequenceNumber ? `,"sequence_number":"${r.sequenceNumber}"` : '');
  return (
    `{"body":${r.bodyJson},"id":"${r.uuid}","timestamp_ms":${r.timestampMs},` +
    `"attempts":${r.attempts},"metadata":${r.metadataJson},"lease_id":"${leaseId}",` +
    `"content_type":"${r.contentType}"${group}${deadLetter}}`
  );
}

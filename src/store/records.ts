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

/** A record's part from its content type on: fixed at send (what history keeps of it). */
export interface RecordPayload {
  contentType: string;
  sourceChannel: string;
  sourceAttempts: number;
  /** the message's group id ('' for none) */
  groupId: string;
  /** its FIFO sequence number ('' for none) */
  sequenceNumber: string;
  /** the bytes it counts for storage when that is not the payload's length, else null */
  sizeField: number | null;
  metadataJson: string;
  bodyJson: string;
}

export interface RecordHeader extends RecordPayload {
  attempts: number;
  uuid: string;
  timestampMs: number;
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

/** Where a full record's uuid starts (after its lease head `attempts|nonce|`). */
export function recordFixedAt(record: string): number {
  return bar(record, bar(record, 0) + 1) + 1;
}

/** Characters from the uuid to the content type letter. */
export const PAYLOAD_OFFSET = FIXED_CHARS - 1;

const CODE_0 = 48;
const CODE_9 = 57;

/** The payload of a record whose content type letter is at `at` (full record: fixed + 40). */
export function parsePayload(record: string, at: number): RecordPayload {
  const contentType = CONTENT_TYPES[record[at]] ?? malformed();
  // meta_len (base 36) ends at '|', or at ':' when src|src_attempts|size| follows, or at ';'
  // when src|src_attempts|size|group|fifo_seq| follows
  const tail = at + 1;
  let markAt = tail;
  let mark = record[markAt];
  while (markAt < record.length && mark !== '|' && mark !== ':' && mark !== ';') {
    mark = record[++markAt];
  }
  if (markAt === tail || markAt >= record.length) malformed();
  const metaLen = parseInt(record.slice(tail, markAt), 36);
  let sourceChannel = '';
  let sourceAttempts = 0;
  let groupId = '';
  let sequenceNumber = '';
  let sizeField: number | null = null;
  let start = markAt + 1;
  if (mark === ':' || mark === ';') {
    const srcEnd = bar(record, start);
    const attemptsAt = bar(record, srcEnd + 1);
    sourceChannel = record.slice(start, srcEnd);
    sourceAttempts = Number(record.slice(srcEnd + 1, attemptsAt) || 0);
    const sizeEnd = bar(record, attemptsAt + 1);
    let size = 0;
    for (let i = attemptsAt + 1; i < sizeEnd; i++) {
      const c = record.charCodeAt(i);
      if (c < CODE_0 || c > CODE_9) malformed();
      size = size * 10 + c - CODE_0;
    }
    if (sizeEnd > attemptsAt + 1) sizeField = size;
    start = sizeEnd + 1;
    if (mark === ';') {
      const groupEnd = bar(record, start);
      const seqEnd = bar(record, groupEnd + 1);
      groupId = record.slice(start, groupEnd);
      sequenceNumber = record.slice(groupEnd + 1, seqEnd);
      start = seqEnd + 1;
    }
  }
  return {
    contentType,
    sourceChannel,
    sourceAttempts,
    groupId,
    sequenceNumber,
    sizeField,
    metadataJson: record.slice(start, start + metaLen),
    bodyJson: record.slice(start + metaLen),
  };
}

export function parseRecord(record: string): RecordHeader {
  const attemptsEnd = bar(record, 0);
  const fixed = recordFixedAt(record);
  const header = parsePayload(record, fixed + PAYLOAD_OFFSET) as RecordHeader;
  header.attempts = Number(record.slice(0, attemptsEnd));
  header.uuid = uuidText(record.slice(fixed, fixed + UUID_CHARS));
  header.timestampMs = parseInt(
    record.slice(fixed + UUID_CHARS, fixed + UUID_CHARS + TIME_DIGITS),
    36,
  );
  return header;
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

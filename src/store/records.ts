/**
 * Reading message records (layout in lua/lib/common.lua) into the JSON a
 * consumer receives. Bodies and metadata are stored as JSON text and spliced
 * into the response as they are: never parsed and re-serialised on the way out.
 */

const HEADER_FIELDS = 10;

export interface RecordHeader {
  attempts: number;
  uuid: string;
  timestampMs: number;
  size: number;
  contentType: string;
  sourceChannel: string;
  sourceAttempts: number;
  metadataJson: string;
  bodyJson: string;
}

export function parseRecord(record: string): RecordHeader {
  const fields: string[] = [];
  let start = 0;
  for (let i = 0; i < HEADER_FIELDS; i++) {
    const bar = record.indexOf('|', start);
    if (bar < 0) throw new Error('malformed message record');
    fields.push(record.slice(start, bar));
    start = bar + 1;
  }
  const metaLen = Number(fields[7]);
  return {
    attempts: Number(fields[0]),
    uuid: fields[2],
    timestampMs: Number(fields[3]),
    size: Number(fields[5]),
    contentType: fields[6],
    sourceChannel: fields[8],
    sourceAttempts: Number(fields[9] || 0),
    metadataJson: record.slice(start, start + metaLen),
    bodyJson: record.slice(start + metaLen),
  };
}

/** The pulled message (spec 2.3 plus content_type, and dead_letter when dead-lettered) as JSON text. */
export function pulledMessageJson(leaseId: string, record: string): string {
  const r = parseRecord(record);
  const deadLetter = r.sourceChannel
    ? `,"dead_letter":{"source_channel":"${r.sourceChannel}","attempts":${r.sourceAttempts}}`
    : '';
  return (
    `{"body":${r.bodyJson},"id":"${r.uuid}","timestamp_ms":${r.timestampMs},` +
    `"attempts":${r.attempts},"metadata":${r.metadataJson},"lease_id":"${leaseId}",` +
    `"content_type":"${r.contentType}"${deadLetter}}`
  );
}

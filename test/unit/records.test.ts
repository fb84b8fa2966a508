/** Message records (layout in lua/lib/common.lua) read into pulled-message JSON. */
import { parseRecord, pulledMessageJson } from '../../src/store/records';

const UUID = '0b7e3c1a-4f2d-4a7b-9c1e-2d3f4a5b6c7d';

function record(fields: {
  attempts?: number;
  metadata?: string;
  body?: string;
  src?: string;
  srcAttempts?: string;
  contentType?: string;
}): string {
  const metadata = fields.metadata ?? '{}';
  const body = fields.body ?? '{"a":1}';
  return (
    [
      fields.attempts ?? 1,
      'NONCE',
      UUID,
      1700000000123,
      1700086400123,
      body.length + metadata.length,
      fields.contentType ?? 'json',
      metadata.length,
      fields.src ?? '',
      fields.srcAttempts ?? '',
    ].join('|') +
    '|' +
    metadata +
    body
  );
}

test('parseRecord splits the header and the payload', () => {
  const r = parseRecord(record({ attempts: 2, metadata: '{"k":"a|b"}', body: '"x|y"' }));
  expect(r).toEqual({
    attempts: 2,
    uuid: UUID,
    timestampMs: 1700000000123,
    size: 16,
    contentType: 'json',
    sourceChannel: '',
    sourceAttempts: 0,
    metadataJson: '{"k":"a|b"}',
    bodyJson: '"x|y"',
  });
});

test('metadata length is in UTF-16 units, so non-ASCII metadata splits right', () => {
  const metadata = '{"ü":"✓😀"}';
  const r = parseRecord(record({ metadata, body: '["é"]' }));
  expect(r.metadataJson).toBe(metadata);
  expect(r.bodyJson).toBe('["é"]');
});

test('pulledMessageJson: spec 2.3 fields plus content_type, body and metadata spliced as stored', () => {
  const json = pulledMessageJson(
    'LEASE',
    record({ attempts: 3, metadata: '{"m":[1]}', body: 'null', contentType: 'text' }),
  );
  expect(JSON.parse(json)).toEqual({
    body: null,
    id: UUID,
    timestamp_ms: 1700000000123,
    attempts: 3,
    metadata: { m: [1] },
    lease_id: 'LEASE',
    content_type: 'text',
  });
});

test('a dead-lettered record carries dead_letter', () => {
  const json = pulledMessageJson('L', record({ src: 'orders', srcAttempts: '3' }));
  expect(JSON.parse(json).dead_letter).toEqual({ source_channel: 'orders', attempts: 3 });
});

test('a malformed record throws', () => {
  expect(() => parseRecord('1|2|3')).toThrow('malformed message record');
});

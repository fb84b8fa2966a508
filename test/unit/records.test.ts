/** Message records (layout in lua/lib/common.lua) read into pulled-message JSON. */
import { parseRecord, pulledMessageJson } from '../../src/store/records';

const UUID = '0b7e3c1a-4f2d-4a7b-9c1e-2d3f4a5b6c7d';
const COMPACT = Buffer.from(UUID.replace(/-/g, ''), 'hex').toString('base64url');
const SENT = 1700000000123;

function record(fields: {
  attempts?: number;
  nonce?: string;
  metadata?: string;
  body?: string;
  src?: string;
  srcAttempts?: string;
  size?: string;
  contentCode?: string;
  group?: string;
  sequence?: string;
}): string {
  const metadata = fields.metadata ?? '{}';
  const body = fields.body ?? '{"a":1}';
  const marked = `${fields.src ?? ''}|${fields.srcAttempts ?? ''}|${fields.size ?? ''}|`;
  const extras =
    fields.group !== undefined || fields.sequence !== undefined
      ? `;${marked}${fields.group ?? ''}|${fields.sequence ?? ''}|`
      : fields.src !== undefined || fields.size !== undefined
        ? `:${marked}`
        : '|';
  return (
    `${fields.attempts ?? 1}|${fields.nonce ?? 'n'.repeat(22)}|${COMPACT}` +
    SENT.toString(36).padStart(9, '0') +
    (SENT + 86_400_000).toString(36).padStart(9, '0') +
    (fields.contentCode ?? 'j') +
    metadata.length.toString(36) +
    extras +
    metadata +
    body
  );
}

test('the uuid takes 22 characters and the times 9 base-36 digits each', () => {
  expect(COMPACT).toHaveLength(22);
  expect(record({}).indexOf('|', 25) - 25).toBe(22 + 9 + 9 + 1 + 1);
});

test('parseRecord splits the header and the payload', () => {
  const r = parseRecord(record({ attempts: 2, metadata: '{"k":"a|b"}', body: '"x|y"' }));
  expect(r).toEqual({
    attempts: 2,
    uuid: UUID,
    timestampMs: SENT,
    contentType: 'json',
    sourceChannel: '',
    sourceAttempts: 0,
    groupId: '',
    sequenceNumber: '',
    sizeField: null,
    metadataJson: '{"k":"a|b"}',
    bodyJson: '"x|y"',
  });
  // a record whose stored size is not its payload's length says so
  expect(parseRecord(record({ size: '123' })).sizeField).toBe(123);
});

test('a grouped record (;src|src_attempts|size|group|fifo_seq|) shows group_id and sequence_number', () => {
  const rec = record({ metadata: '{"k":"a|b"}', body: '"x|y"', group: 'cus_1', sequence: '10007' });
  const r = parseRecord(rec);
  expect([r.groupId, r.sequenceNumber, r.metadataJson, r.bodyJson, r.sourceChannel]).toEqual([
    'cus_1',
    '10007',
    '{"k":"a|b"}',
    '"x|y"',
    '',
  ]);
  const dead = parseRecord(record({ src: 'orders', srcAttempts: '3', group: 'g/1' }));
  expect([dead.groupId, dead.sourceChannel, dead.sourceAttempts]).toEqual(['g/1', 'orders', 3]);
  const json = JSON.parse(pulledMessageJson('LEASE', rec));
  expect([json.group_id, json.sequence_number]).toEqual(['cus_1', '10007']);
  expect('group_id' in JSON.parse(pulledMessageJson('LEASE', record({})))).toBe(false);
});

test('a record without a lease (empty nonce) parses', () => {
  const r = parseRecord(record({ attempts: 0, nonce: '' }));
  expect([r.attempts, r.uuid, r.bodyJson]).toEqual([0, UUID, '{"a":1}']);
});

test('metadata length is in UTF-16 units (base 36), so non-ASCII metadata splits right', () => {
  const metadata = `{"ü":"✓😀","k":"${'x'.repeat(40)}"}`;
  const r = parseRecord(record({ metadata, body: '["é"]' }));
  expect(r.metadataJson).toBe(metadata);
  expect(r.bodyJson).toBe('["é"]');
});

test.each([
  ['j', 'json'],
  ['t', 'text'],
  ['b', 'bytes'],
  ['v', 'v8'],
])('content type letter %s reads as %s', (code, name) => {
  expect(parseRecord(record({ contentCode: code })).contentType).toBe(name);
});

test('pulledMessageJson: the documented pull fields, body and metadata spliced as stored', () => {
  const json = pulledMessageJson(
    'LEASE',
    record({ attempts: 3, metadata: '{"m":[1]}', body: 'null', contentCode: 't' }),
  );
  expect(JSON.parse(json)).toEqual({
    body: null,
    id: UUID,
    timestamp_ms: SENT,
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

test('a record with an explicit size (and no source) has no dead_letter', () => {
  const r = parseRecord(record({ size: '120', metadata: '{"w":1}', body: '"YWJj"' }));
  expect([r.sourceChannel, r.metadataJson, r.bodyJson]).toEqual(['', '{"w":1}', '"YWJj"']);
});

test.each([['1|2|3'], [`0||${COMPACT}`], [record({ contentCode: 'z' })]])(
  'a malformed record throws: %s',
  (text) => {
    expect(() => parseRecord(text)).toThrow('malformed message record');
  },
);

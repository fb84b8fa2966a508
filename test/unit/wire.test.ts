/** The SDK's one naming rule: camelCase in the SDK, snake_case on the wire, user data untouched. */
import { fromWire, toWire } from '@relayq/client';

test('toWire: camelCase keys become snake_case, deep; bodies and metadata are left as they are', () => {
  expect(
    toWire({
      messages: [{ body: { userId: 1, nested_key: 2 }, contentType: 'json', dedupId: 'a' }],
      delaySeconds: 5,
      metadata: { traceId: 't' },
      retries: [{ leaseId: 'l', delaySeconds: 0 }],
      skipped: undefined,
    }),
  ).toEqual({
    messages: [{ body: { userId: 1, nested_key: 2 }, content_type: 'json', dedup_id: 'a' }],
    delay_seconds: 5,
    metadata: { traceId: 't' },
    retries: [{ lease_id: 'l', delay_seconds: 0 }],
  });
});

test('toWire: the deprecated snake_case names pass; with both spellings, camelCase wins', () => {
  expect(toWire({ batch_size: 3, wait_ms: 10 })).toEqual({ batch_size: 3, wait_ms: 10 });
  expect(toWire({ batch_size: 3, batchSize: 7 })).toEqual({ batch_size: 7 });
  expect(toWire({ batchSize: 7, batch_size: 3 })).toEqual({ batch_size: 7 });
});

test('fromWire: snake_case keys become camelCase, deep, with the old names as hidden getters', () => {
  const result = fromWire<Record<string, unknown>>({
    message_backlog_count: 1,
    messages: [
      {
        id: 'm',
        body: { some_field: 1 },
        metadata: { trace_id: 't' },
        lease_id: 'l',
        dead_letter: { source_channel: 'orders', attempts: 3 },
      },
    ],
  });
  expect(JSON.parse(JSON.stringify(result))).toEqual({
    messageBacklogCount: 1,
    messages: [
      {
        id: 'm',
        body: { some_field: 1 },
        metadata: { trace_id: 't' },
        leaseId: 'l',
        deadLetter: { sourceChannel: 'orders', attempts: 3 },
      },
    ],
  });
  const [message] = result.messages as Record<string, unknown>[];
  expect(message.lease_id).toBe('l');
  expect(result.message_backlog_count).toBe(1);
  expect(Object.keys(message)).not.toContain('lease_id');
  expect(fromWire(null)).toBeNull();
  expect(fromWire([1, 'a'])).toEqual([1, 'a']);
});

/**
 * The relay API over supertest, as one account on one app: the message
 * endpoints (send, batch, pull, ack, retry, extend, purge, redrive) and the
 * channel settings. A plain call answers the response as it came; its `...Ok`
 * twin asserts a 200 (throwing the status and body otherwise) and answers
 * what a test wants of the result.
 */
import type { Response } from 'supertest';
import type { TestApp } from './app';

export interface PulledMessage {
  body: unknown;
  id: string;
  timestamp_ms: number;
  attempts: number;
  metadata: Record<string, unknown>;
  lease_id: string;
  content_type: string;
  /** only on a message in a dead-letter channel */
  dead_letter?: { source_channel: string; attempts: number };
}

export interface PullResult {
  message_backlog_count: number;
  messages: PulledMessage[];
}

export interface Retry {
  lease_id: string;
  delay_seconds?: number;
}

/** retried_count only when the request named retries */
export interface AckResult {
  acked_count: number;
  retried_count?: number;
}

/** An answer's status and envelope, for helpers that read responses without supertest. */
export interface Reply {
  status: number;
  body: {
    success: boolean;
    errors: { code: number; message: string }[];
    messages: unknown[];
    result: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const path = (channel: string, suffix = '') =>
  `/v1/relay/channels/${channel}/messages${suffix}`;

export type Client = ReturnType<typeof relay>;

export function relay(app: TestApp, auth: string) {
  const post = (url: string, body?: unknown): Promise<Response> => {
    const req = app.http.post(url).set('Authorization', auth);
    return body === undefined ? req : req.send(body as object);
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const ok = async (url: string, body: unknown): Promise<any> => {
    const res = await post(url, body);
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.result;
  };
  const ackBody = (acks: string[] | object) => (Array.isArray(acks) ? { lease_ids: acks } : acks);

  /** With lease ids: the acked count; with a body (lease_ids, retries): the whole result. */
  function ackOk(channel: string, leaseIds: string[]): Promise<number>;
  function ackOk(channel: string, body: object): Promise<AckResult>;
  async function ackOk(channel: string, acks: string[] | object): Promise<number | AckResult> {
    const result = (await ok(path(channel, '/ack'), ackBody(acks))) as AckResult;
    return Array.isArray(acks) ? result.acked_count : result;
  }

  return {
    path,
    post,
    send: (channel: string, message: unknown) => post(path(channel), message),
    batch: (channel: string, body: unknown) => post(path(channel, '/batch'), body),
    pull: (channel: string, body: unknown = {}) => post(path(channel, '/pull'), body),
    ack: (channel: string, acks: string[] | object) => post(path(channel, '/ack'), ackBody(acks)),
    extend: (channel: string, body: unknown) => post(path(channel, '/extend'), body),
    purge: (channel: string) => post(path(channel, '/purge'), {}),
    redrive: (channel: string, body: unknown = {}) => post(path(channel, '/redrive'), body),

    /** the new message's id */
    sendOk: async (channel: string, message: unknown): Promise<string> =>
      (await ok(path(channel), message)).id,
    /** the new messages' ids */
    batchOk: async (channel: string, body: unknown): Promise<string[]> =>
      (await ok(path(channel, '/batch'), body)).ids,
    pullOk: (channel: string, body: unknown = {}): Promise<PullResult> =>
      ok(path(channel, '/pull'), body),
    ackOk,
    /** acks nothing, retries these leases: both counts */
    retryOk: (channel: string, retries: Retry[]): Promise<AckResult> =>
      ok(path(channel, '/ack'), { retries }),
    extendOk: async (channel: string, body: unknown): Promise<number> =>
      (await ok(path(channel, '/extend'), body)).extended_count,
    purgeOk: async (channel: string): Promise<number> =>
      (await ok(path(channel, '/purge'), {})).purged_count,
    redriveOk: async (channel: string, body: unknown = {}): Promise<number> =>
      (await ok(path(channel, '/redrive'), body)).moved_count,

    /** PUT the channel's settings */
    configure: (channel: string, settings: object): Promise<Response> =>
      app.http.put(`/v1/relay/channels/${channel}`).set('Authorization', auth).send(settings),
    /** GET the channel's view (settings and counts) */
    channel: (channel: string): Promise<Response> =>
      app.http.get(`/v1/relay/channels/${channel}`).set('Authorization', auth),
  };
}

/** The error envelope of a response with the given status and message. */
export function errorEnvelope(status: number, message: string) {
  return { success: false, errors: [{ code: status, message }], messages: [], result: null };
}

/** Asserts an exact error response: status, envelope, JSON content type. */
export function expectError(res: Response, status: number, message: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: errorEnvelope(status, message),
  });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
}

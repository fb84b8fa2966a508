/** A small client over supertest for the four message endpoints (send, batch, pull, ack). */
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
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const path = (channel: string, suffix = '') =>
  `/v1/relay/channels/${channel}/messages${suffix}`;

export function relay(app: TestApp, auth: string) {
  const post = (url: string, body: unknown) => {
    const req = app.http.post(url).set('Authorization', auth);
    return body === undefined ? req : req.send(body as object);
  };
  return {
    send: (channel: string, message: unknown): Promise<Response> => post(path(channel), message),
    batch: (channel: string, body: unknown): Promise<Response> =>
      post(path(channel, '/batch'), body),
    pull: (channel: string, body: unknown = {}): Promise<Response> =>
      post(path(channel, '/pull'), body),
    ack: (channel: string, leaseIds: string[]): Promise<Response> =>
      post(path(channel, '/ack'), { lease_ids: leaseIds }),
    /** Sends and returns the new id, failing loudly on anything but a 200. */
    async sendOk(channel: string, message: unknown): Promise<string> {
      const res = await post(path(channel), message);
      if (res.status !== 200) throw new Error(`send failed: ${JSON.stringify(res.body)}`);
      return res.body.result.id as string;
    },
    /** Pulls and returns the result, failing loudly on anything but a 200. */
    async pullOk(
      channel: string,
      body: unknown = {},
    ): Promise<{ message_backlog_count: number; messages: PulledMessage[] }> {
      const res = await post(path(channel, '/pull'), body);
      if (res.status !== 200) throw new Error(`pull failed: ${JSON.stringify(res.body)}`);
      return res.body.result;
    },
    async ackOk(channel: string, leaseIds: string[]): Promise<number> {
      const res = await post(path(channel, '/ack'), { lease_ids: leaseIds });
      if (res.status !== 200) throw new Error(`ack failed: ${JSON.stringify(res.body)}`);
      return res.body.result.acked_count as number;
    },
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

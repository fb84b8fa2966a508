/** A small HTTP client over one test app for the extension tests (not a test file). */
import { ADMIN_TOKEN, accountWithToken, startApp, type TestApp } from '../../helpers/app';
import type { TestRedis } from '../../helpers/redis';
import { errorEnvelope, path, type PulledMessage } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

export interface Pulled extends PulledMessage {
  dead_letter?: { source_channel: string; attempts: number };
}

export interface Reply {
  status: number;
  body: {
    success: boolean;
    errors: { code: number; message: string }[];
    messages: unknown[];
    result: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
}

export function client(app: TestApp, auth: string) {
  const post = async (url: string, body: unknown): Promise<Reply> => {
    const res = await app.http
      .post(url)
      .set('Authorization', auth)
      .send(body as object);
    return { status: res.status, body: res.body };
  };
  const ok = async (url: string, body: unknown) => {
    const res = await post(url, body);
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.result;
  };
  return {
    post,
    send: async (channel: string, message: object): Promise<string> =>
      (await ok(path(channel), message)).id,
    sendBatch: async (channel: string, body: object): Promise<string[]> =>
      (await ok(path(channel, '/batch'), body)).ids,
    pull: async (
      channel: string,
      body: object = {},
    ): Promise<{ message_backlog_count: number; messages: Pulled[] }> =>
      ok(path(channel, '/pull'), body),
    ack: async (channel: string, body: object) => ok(path(channel, '/ack'), body),
    extend: async (channel: string, body: object): Promise<number> =>
      (await ok(path(channel, '/extend'), body)).extended_count,
    redrive: async (channel: string, body: object = {}): Promise<number> =>
      (await ok(path(channel, '/redrive'), body)).moved_count,
    configure: async (channel: string, body: object): Promise<Reply> => {
      const res = await app.http
        .put(`/v1/relay/channels/${channel}`)
        .set('Authorization', auth)
        .send(body);
      return { status: res.status, body: res.body };
    },
    channel: async (channel: string): Promise<Reply> => {
      const res = await app.http.get(`/v1/relay/channels/${channel}`).set('Authorization', auth);
      return { status: res.status, body: res.body };
    },
    path,
  };
}

/** The account's stored bytes, through the admin API. */
export async function storageBytes(app: TestApp, account: string): Promise<number> {
  const res = await app.http
    .get(`/v1/admin/accounts/${account}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return res.body.result.usage.storage_bytes;
}

export { errorEnvelope };

let counter = 0;
/** A fresh account id per test, so that tests never share state. */
export function accountId(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** The Redis and the two app instances ("pods") a test file runs against. */
export interface Pods<A extends TestApp = TestApp> {
  redis: TestRedis;
  a: A;
  b: TestApp;
}

/**
 * useRelay() with two pods and no flush between tests (each test makes its
 * own account); `startFirst` builds pod a (a listening one when needed).
 */
export function useTwoPods<A extends TestApp = TestApp>(
  startFirst: (redis: TestRedis) => Promise<A> = startApp as (redis: TestRedis) => Promise<A>,
): Pods<A> {
  const relay = useRelay({
    pods: 2,
    flush: false,
    start: (redis, pod): Promise<TestApp> => (pod === 0 ? startFirst(redis) : startApp(redis)),
  });
  // only these three, so that a test can spread them ({ ...pods, a: other })
  return {
    get redis() {
      return relay.redis;
    },
    get a() {
      return relay.a as A;
    },
    get b() {
      return relay.b;
    },
  };
}

/** A fresh account with a token, and a client for it on each pod. */
export async function accountOnPods(pods: Pods, prefix: string, options: { plan?: string } = {}) {
  const id = accountId(prefix);
  const { auth } = await accountWithToken(pods.a, id, options);
  return { id, auth, ca: client(pods.a, auth), cb: client(pods.b, auth) };
}

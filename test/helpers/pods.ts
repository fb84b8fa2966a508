/**
 * Two pods over one Redis with an account per test, for the tests of features
 * that must hold across pods (a setting made on one is seen by the other).
 */
import { accountWithToken, startApp, type TestApp } from './app';
import type { TestRedis } from './redis';
import { relay } from './relayClient';
import { useRelay } from './useRelay';

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
  const pods = useRelay({
    pods: 2,
    flush: false,
    start: (redis, pod): Promise<TestApp> => (pod === 0 ? startFirst(redis) : startApp(redis)),
  });
  // only these three, so that a test can spread them ({ ...pods, a: other })
  return {
    get redis() {
      return pods.redis;
    },
    get a() {
      return pods.a as A;
    },
    get b() {
      return pods.b;
    },
  };
}

/** A fresh account with a token, and a client for it on each pod. */
export async function accountOnPods(pods: Pods, prefix: string, options: { plan?: string } = {}) {
  const id = accountId(prefix);
  const { auth } = await accountWithToken(pods.a, id, options);
  return { id, auth, ca: relay(pods.a, auth), cb: relay(pods.b, auth) };
}

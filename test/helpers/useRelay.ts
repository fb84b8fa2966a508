/**
 * The set-up of an integration test file in one call. At a file's (or a
 * describe's) top level:
 *
 *   const rq = useRelay({ account: 'acme' });
 *   test('...', async () => {
 *     await rq.client.sendOk('orders', { body: 1 });
 *     expect(await rq.redis.keys('rq:{acme}:*')).not.toEqual([]);
 *   });
 *
 * registers the jest hooks itself:
 * - beforeAll: a private redis-server (startRedis(): one Redis, or the
 *   three-master Cluster in the "cluster" project) and `pods` app instances
 *   over it (two for cross-pod tests), each on a listening HTTP server with
 *   WebSockets when `listen` is set;
 * - beforeEach: FLUSHALL (unless `flush: false`), then, with `account`, that
 *   account (free plan) and a fresh token, made on the first pod;
 * - afterAll: the pods in start order, then the Redis. jest runs afterAll
 *   hooks in declaration order, so a file that must close something first
 *   (sockets, its own server) declares that afterAll before useRelay().
 * The handle's getters read the current values (and throw when there is
 * none yet), so keep the handle, not its fields, at the top level, and do not
 * spread it. Files that need a pod of their own start it with
 * startApp(rq.redis, env) and close it themselves.
 */
import {
  accountWithToken,
  startApp,
  startListeningApp,
  type ListeningApp,
  type TestApp,
} from './app';
import { startRedis, type TestRedis } from './redis';
import { relay } from './relayClient';

export interface RelayOptions<R extends TestRedis> {
  /** app instances over the one Redis (default 1; 0 for a Redis alone) */
  pods?: number;
  /** environment of every pod, on top of startApp()'s defaults */
  env?: Record<string, string>;
  /** each pod on a real HTTP server on port 0, with WebSockets attached */
  listen?: boolean;
  /** starts pod number `pod` (from 0) instead of env/listen, for pods that differ */
  start?: (redis: R, pod: number) => Promise<TestApp>;
  /** the Redis to start (default startRedis); startSingleRedis for pause/resume */
  redis?: () => Promise<R>;
  /** FLUSHALL before each test (default true) */
  flush?: boolean;
  /** an account (free plan) created before each test, with a fresh token (default none) */
  account?: string | false;
}

export interface Relay<A extends TestApp, R extends TestRedis> {
  readonly redis: R;
  readonly apps: readonly A[];
  /** the first pod; `a` and `b` name the first two in cross-pod tests */
  readonly app: A;
  readonly a: A;
  readonly b: A;
  /** supertest on the first pod */
  readonly http: TestApp['http'];
  readonly accountId: string;
  readonly token: string;
  readonly tokenId: string;
  /** `Bearer <token>` */
  readonly auth: string;
  /** the message endpoints on the first pod, as the current account */
  readonly client: ReturnType<typeof relay>;
}

export function useRelay<R extends TestRedis = TestRedis>(
  options: RelayOptions<R> & { listen: true },
): Relay<ListeningApp, R>;
export function useRelay<A extends TestApp, R extends TestRedis = TestRedis>(
  options: RelayOptions<R> & { start: (redis: R, pod: number) => Promise<A> },
): Relay<A, R>;
export function useRelay<R extends TestRedis = TestRedis>(
  options?: RelayOptions<R>,
): Relay<TestApp, R>;
export function useRelay<R extends TestRedis>(options: RelayOptions<R> = {}): Relay<TestApp, R> {
  const { pods = 1, env = {}, flush = true, account = false } = options;
  let redis: R | undefined;
  const apps: TestApp[] = [];
  let current: { token: string; auth: string; tokenId: string } | undefined;
  let client: ReturnType<typeof relay> | undefined;

  const startPod = (r: R, pod: number): Promise<TestApp> => {
    if (options.start) return options.start(r, pod);
    return options.listen ? startListeningApp(r, env) : startApp(r, env);
  };

  beforeAll(async () => {
    redis = await (options.redis ?? (startRedis as () => Promise<R>))();
    for (let pod = 0; pod < pods; pod++) apps.push(await startPod(redis, pod));
  });
  beforeEach(async () => {
    if (flush) await redis!.flush();
    if (account === false) return;
    current = await accountWithToken(apps[0], account);
    client = relay(apps[0], current.auth);
  });
  afterAll(async () => {
    for (const app of apps.splice(0)) await app.close();
    await redis?.stop();
  });

  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useRelay: ${what}`);
    return value;
  };
  const pod = (n: number) =>
    need(apps[n], n < pods ? 'the pods start in beforeAll' : `pods: ${pods} has no pod ${n}`);
  const noAccount = account === false ? 'no account: pass useRelay({ account })' : '';
  const tokenOf = () => need(current, noAccount || 'the account is made in beforeEach');

  return {
    get redis() {
      return need(redis, 'the Redis starts in beforeAll');
    },
    apps,
    get app() {
      return pod(0);
    },
    get a() {
      return pod(0);
    },
    get b() {
      return pod(1);
    },
    get http() {
      return pod(0).http;
    },
    get accountId() {
      return need(account === false ? undefined : account, noAccount);
    },
    get token() {
      return tokenOf().token;
    },
    get tokenId() {
      return tokenOf().tokenId;
    },
    get auth() {
      return tokenOf().auth;
    },
    get client() {
      return need(client, noAccount || 'the account is made in beforeEach');
    },
  };
}

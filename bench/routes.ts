/**
 * Routes (issue 27): a send to a channel with 10 routes, and with 50, against a plain send,
 * in the same run (targets: ≤ 1.5x and ≤ 3x the plain send's p50), each still one Redis
 * call. Sequential sends, in turns (plain, 10, 50), so that all three see the same machine.
 * Each route filters on the body; a fifth of them match (2 copies of 10, 10 of 50).
 */
import { JsonClient } from './http';
import { summarize } from './stats';
import { body } from './workloads';
import { now } from './systems';
import type { RelayTarget } from './workloads';

export interface RoutedSendCase {
  p50_ms: number;
  p99_ms: number;
  copies: number;
}

export interface RoutesResult {
  plain: RoutedSendCase;
  routes_10: RoutedSendCase;
  routes_50: RoutedSendCase;
  /** p50 of a routed send / p50 of a plain send */
  ratio_10: number;
  ratio_50: number;
}

function routesOf(channel: string, n: number) {
  return {
    routes: Array.from({ length: n }, (_, i) => ({
      to: `${channel}-t${i}`,
      filter: {
        body: { i: { $gte: 0 }, p: { $startsWith: 'x' } },
        ...(i % 5 === 0 ? {} : { metadata: { kind: { $in: ['never', `k${i}`] } } }),
      },
    })),
  };
}

export async function runRoutes(r: RelayTarget, samples: number): Promise<RoutesResult> {
  const http = new JsonClient(r.port, r.auth, 4);
  const base = (ch: string) => `/v1/relay/channels/${ch}`;
  for (const [ch, n] of [
    ['rt10', 10],
    ['rt50', 50],
  ] as const) {
    await http.request('PUT', `${base(ch)}/routes`, JSON.stringify(routesOf(ch, n)));
  }
  const times: Record<'rtplain' | 'rt10' | 'rt50', number[]> = { rtplain: [], rt10: [], rt50: [] };
  const copies: Record<string, number> = {};
  // warm-up: each pod learns the routes (one ROUTES_CHANGED round), the scripts load
  for (const ch of ['rtplain', 'rt10', 'rt50'] as const) {
    for (let k = 0; k < 20; k++) await http.post(`${base(ch)}/messages`, `{"body":${body(k)}}`);
  }
  for (let k = 0; k < samples; k++) {
    for (const ch of ['rtplain', 'rt10', 'rt50'] as const) {
      const t = now();
      const reply = await http.post<{ result: { routed?: unknown[] } }>(
        `${base(ch)}/messages`,
        `{"body":${body(k)}}`,
      );
      times[ch].push(now() - t);
      copies[ch] = reply.result.routed?.length ?? 1;
    }
  }
  for (const ch of ['rtplain', 'rt10', 'rt50']) {
    await http.request('DELETE', base(ch), undefined, 120_000);
  }
  http.close();
  const one = (ch: 'rtplain' | 'rt10' | 'rt50'): RoutedSendCase => {
    const s = summarize(times[ch]);
    return { p50_ms: s.p50, p99_ms: s.p99, copies: copies[ch] };
  };
  const plain = one('rtplain');
  const routes10 = one('rt10');
  const routes50 = one('rt50');
  const ratio = (x: number) => Math.round((x / plain.p50_ms) * 100) / 100;
  return {
    plain,
    routes_10: routes10,
    routes_50: routes50,
    ratio_10: ratio(routes10.p50_ms),
    ratio_50: ratio(routes50.p50_ms),
  };
}

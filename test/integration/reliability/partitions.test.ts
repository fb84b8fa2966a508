/**
 * Pods share the due index's partitions: each partition has one owner, and
 * two pods end up with half each, so a due account is swept by one pod; the
 * partitions of a pod that stops or dies are taken over.
 */
import { eventually } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { duePartitionKeys } from '../../../src/store/keys';

const rq = useRelay({ pods: 3, env: { RELAY_SWEEP_PARTITIONS: '8' }, flush: false });

async function owners(): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (let p = 0; p < 8; p++) out.push(await rq.apps[0].redis.get(duePartitionKeys(p).owner));
  return out;
}

test('two pods own four of eight partitions each, and a stopped pod hands its share over', async () => {
  await rq.apps[2].relay.sweeper.stop();
  const [a, b] = rq.apps.map((pod) => pod.relay.sweeper.podId);
  await eventually(
    async () => {
      const now = await owners();
      return now.filter((o) => o === a).length === 4 && now.filter((o) => o === b).length === 4;
    },
    15_000,
    100,
  );
  await rq.apps[1].relay.sweeper.stop();
  await eventually(async () => (await owners()).every((o) => o === a), 15_000, 100);
}, 40_000);

test('the partitions of a pod that died (its leases left to expire) are taken over', async () => {
  rq.apps[2].relay.sweeper.start();
  const [a, , c] = rq.apps.map((pod) => pod.relay.sweeper.podId);
  await eventually(async () => (await owners()).some((o) => o === c), 15_000, 100);
  await rq.apps[2].relay.sweeper.stop(false);
  await eventually(async () => (await owners()).every((o) => o === a), 15_000, 100);
}, 40_000);

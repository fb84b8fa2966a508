/** A webhook's group_by: each delivery's group_id from a header or an RFC 6901 pointer. */
import { startApp } from '../../helpers/app';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { createHook, deliver, listenOnPods } from './hooks';

const pods = useTwoPods((redis) => startApp(redis));
listenOnPods(pods);

interface Pulled {
  body: unknown;
  group_id?: string;
}

test('group_by header: the header value is the group_id; missing or invalid: no group', async () => {
  const account = await accountOnPods(pods, 'wg');
  const hook = await createHook(pods.a, account.auth, 'in', { group_by: { header: 'X-Tenant' } });
  await deliver(pods.a, hook.path, 'a', { 'X-Tenant': 'acme' });
  await deliver(pods.b, hook.path, 'b', { 'X-Tenant': 'has space' });
  await deliver(pods.b, hook.path, 'c');
  const { messages } = await account.ca.pullOk('in');
  expect((messages as Pulled[]).map((m) => [m.body, m.group_id])).toEqual([
    ['a', 'acme'],
    ['b', undefined],
    ['c', undefined],
  ]);
  const list = await pods.a.http
    .get('/v1/relay/channels/in/webhooks')
    .set('Authorization', account.auth);
  expect(list.body.result.webhooks[0].group_by).toEqual({ header: 'x-tenant' });
});

test('group_by json_pointer (RFC 6901): Stripe events grouped by customer, in order', async () => {
  const account = await accountOnPods(pods, 'wj');
  const hook = await createHook(pods.a, account.auth, 'stripe', {
    group_by: { json_pointer: '/data/object/customer' },
  });
  const event = (type: string, customer?: string) =>
    JSON.stringify({ type, data: { object: customer === undefined ? {} : { customer } } });
  await deliver(pods.a, hook.path, event('customer.created', 'cus_1'));
  await deliver(pods.a, hook.path, event('customer.updated', 'cus_1'));
  await deliver(pods.a, hook.path, event('invoice.paid', 'cus_2'));
  await deliver(pods.a, hook.path, event('ping'));
  await deliver(pods.a, hook.path, 'not json');
  const first = (await account.ca.pullOk('stripe', { batch_size: 1 })).messages as Pulled[];
  expect(first.map((m) => m.group_id)).toEqual(['cus_1']);
  // cus_1 is locked while customer.created is in flight
  const rest = (await account.ca.pullOk('stripe', { batch_size: 10 })).messages as Pulled[];
  expect(rest.map((m) => m.group_id)).toEqual(['cus_2', undefined, undefined]);
  // the ~1 and ~0 escapes
  const escaped = await createHook(pods.a, account.auth, 'esc', {
    group_by: { json_pointer: '/a~1b/c~0d' },
  });
  await deliver(pods.a, escaped.path, JSON.stringify({ 'a/b': { 'c~d': 'k' } }));
  const got = (await account.ca.pullOk('esc')).messages as Pulled[];
  expect(got.map((m) => m.group_id)).toEqual(['k']);
});

test('a bad group_by is a 400 naming it', async () => {
  const account = await accountOnPods(pods, 'wb');
  for (const group_by of [
    { json_pointer: 'data/customer' },
    { json_pointer: '/a~2' },
    { header: 'bad header' },
    {},
    { header: 'x', json_pointer: '/a' },
  ]) {
    const res = await pods.a.http
      .post('/v1/relay/channels/in/webhooks')
      .set('Authorization', account.auth)
      .send({ group_by });
    expect([group_by, res.status]).toEqual([group_by, 400]);
    expect(res.body.errors[0].message).toContain('group_by');
  }
});

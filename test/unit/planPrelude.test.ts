/** The plan prelude compiled into every script (src/store/scripts/plans.ts). */
import { parsePlans } from '../../src/config/plans';
import { planPrelude } from '../../src/store/scripts/plans';

test('every configured plan is a row of its limits and derived figures; the default is named', () => {
  const plans = parsePlans(
    '{"team":{"max_storage_bytes":5000,"max_channels":7,"retention_seconds":60,"rate_limit_per_second":10,"rate_limit_burst":50,"max_webhook_bytes":2000000}}',
  );
  const lua = planPrelude({ plans, defaultPlan: 'team' });
  expect(lua).toContain('local DEFAULT_PLAN = "team"');
  const row = /\["team"\] = \{ ([^}]*) \}/.exec(lua)![1];
  const fields = Object.fromEntries(row.split(', ').map((f) => f.split(' = ')));
  expect(fields).toMatchObject({
    max_storage_bytes: '5000',
    max_channels: '7',
    retention_ms: '60000',
    // 50 requests per 5 s window (rate 10 with a burst of 50)
    rate_limit: '50',
    rate_window_ms: '5000',
    // a plan whose webhook bodies may pass 1 MiB stores messages that large
    storage_ceiling: String(2 * 2_000_000 + 65_536),
  });
  for (const name of Object.keys(plans)) expect(lua).toContain(`["${name}"] = {`);
});

test('a default plan that is not configured is refused', () => {
  expect(() => planPrelude({ plans: parsePlans(undefined), defaultPlan: 'gold' })).toThrow(
    'the default plan gold is not among the plans',
  );
});

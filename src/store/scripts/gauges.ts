/** lua/gauges_fold.lua and lua/gauges_read.lua: the service-wide gauges. */
import { defineScript, type NoArgs } from './define';

export interface GaugesFoldArgs {
  account: string;
  version_us: number;
  queued: number;
  delayed: number;
  in_flight: number;
  dead_letter: number;
  storage_bytes: number;
  channels: number;
  /** '' for none */
  oldest_ms: number | '';
  /** '' for none */
  next_expiry_ms: number | '';
  /** message groups not blocked (docs/api/groups.md) */
  groups_ready: number;
  /** message groups whose head is in flight or waiting for a retry */
  groups_blocked: number;
}

export const gaugesFoldScript = defineScript<GaugesFoldArgs>({
  name: 'gauges_fold',
  keys: ['fold'],
  argv: [
    'account',
    'version_us',
    'queued',
    'delayed',
    'in_flight',
    'dead_letter',
    'storage_bytes',
    'channels',
    'oldest_ms',
    'next_expiry_ms',
    'groups_ready',
    'groups_blocked',
  ],
});

export const gaugesReadScript = defineScript<NoArgs>({
  name: 'gauges_read',
  keys: ['totals'],
  argv: [],
});

/** lua/channel_configure.lua: set a channel's configuration and settings, creating it if needed. */
import { defineScript } from './define';

/** A setting change: '' keeps it, '-' resets it to the default, else the value. */
export type SettingChange = number | '' | '-';

export interface ChannelConfigureArgs {
  channel: string;
  /** '' keeps the current value */
  max_attempts: number | '';
  /** '' keeps the current value */
  dedup_window_seconds: number | '';
  dlq_mode: 'keep' | 'clear' | 'set';
  /** with 'set' */
  dead_letter_channel: string;
  /** '' keeps it */
  paused: '' | '0' | '1';
  visibility_timeout_ms: SettingChange;
  delay_ms: SettingChange;
  retention_ms: SettingChange;
  receive_wait_ms: SettingChange;
}

/** The named settings to change follow as the tail, each 'name=value' ('name=' removes it). */
export const channelConfigureScript = defineScript<ChannelConfigureArgs>({
  name: 'channel_configure',
  keys: ['account', 'channel', 'history'],
  argv: [
    'channel',
    'max_attempts',
    'dedup_window_seconds',
    'dlq_mode',
    'dead_letter_channel',
    'paused',
    'visibility_timeout_ms',
    'delay_ms',
    'retention_ms',
    'receive_wait_ms',
  ],
});

/** the config string (lua/lib/common.lua) */
export type ChannelConfigureReply = string;

/** Every typed script module's spec (test/unit/luaHeaders.test.ts checks them against lua/). */
import { ackScript } from './ack';
import { accountGaugesScript } from './accountGauges';
import {
  accountCreateScript,
  accountDeleteScript,
  accountForgetScript,
  accountGetScript,
  accountSetPlanScript,
} from './accounts';
import { announceChannelScript } from './announceChannel';
import { authorizeScript } from './authorize';
import { channelConfigureScript } from './channelConfigure';
import { channelDeleteScript } from './channelDelete';
import { channelPurgeScript } from './channelPurge';
import { channelStatsScript } from './channelStats';
import { channelTagsScript } from './channelTags';
import type { AnyScriptSpec } from './define';
import {
  destinationDeleteScript,
  destinationRedriveScript,
  destinationResultScript,
  destinationSaveScript,
  destinationTakeScript,
} from './destinations';
import { claimDueAccountsScript, lowerDueAccountScript, releaseDueAccountScript } from './dueIndex';
import { extendScript } from './extend';
import { gaugesFoldScript, gaugesReadScript } from './gauges';
import { holderAcquireScript, holderRefreshScript, holderReleaseScript } from './holders';
import { pullScript } from './pull';
import { deadLetterSourcesScript, redriveScript } from './redrive';
import { releaseScript } from './release';
import { routesSetScript } from './routesSet';
import { replayCancelScript, replayClaimScript, replayProgressScript } from './replays';
import { sendScript } from './send';
import { sendRoutedScript } from './sendRouted';
import { dueChannelsScript, sweepChannelScript } from './sweep';
import { tokenCreateScript, tokenRevokeScript } from './tokens';
import { webhookRefusedScript } from './webhook_refused';
import { webhookCreateScript, webhookDeleteScript, webhookLookupScript } from './webhooks';

export const ALL_SCRIPTS: readonly AnyScriptSpec[] = [
  sendScript,
  sendRoutedScript,
  routesSetScript,
  pullScript,
  ackScript,
  extendScript,
  releaseScript,
  sweepChannelScript,
  dueChannelsScript,
  announceChannelScript,
  claimDueAccountsScript,
  releaseDueAccountScript,
  lowerDueAccountScript,
  authorizeScript,
  accountCreateScript,
  accountGetScript,
  accountSetPlanScript,
  accountDeleteScript,
  accountForgetScript,
  tokenCreateScript,
  tokenRevokeScript,
  channelStatsScript,
  channelConfigureScript,
  channelPurgeScript,
  channelDeleteScript,
  channelTagsScript,
  deadLetterSourcesScript,
  redriveScript,
  holderAcquireScript,
  holderReleaseScript,
  holderRefreshScript,
  accountGaugesScript,
  gaugesFoldScript,
  gaugesReadScript,
  webhookCreateScript,
  webhookDeleteScript,
  webhookLookupScript,
  webhookRefusedScript,
  replayClaimScript,
  replayProgressScript,
  replayCancelScript,
  destinationSaveScript,
  destinationDeleteScript,
  destinationRedriveScript,
  destinationTakeScript,
  destinationResultScript,
];

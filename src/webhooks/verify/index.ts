/** Checks a delivery against its webhook's verification settings. */
import type { WebhookVerify } from '../../relay';
import { verifyHmacSha256 } from './generic';
import { verifyGithub } from './github';
import { verifyStandardWebhooks } from './standardWebhooks';
import { verifyStripe } from './stripe';
import type { Delivery, Refusal } from './types';

export type { Delivery, Refusal } from './types';

/** null when the delivery is signed as it should be, else the check that failed. */
export function verifyDelivery(verify: WebhookVerify, delivery: Delivery): Refusal {
  switch (verify.scheme) {
    case 'github':
      return verifyGithub(verify.secret, delivery);
    case 'stripe':
      return verifyStripe(verify.secret, delivery);
    case 'standard-webhooks':
      return verifyStandardWebhooks(verify.secret, delivery);
    case 'hmac-sha256':
      return verifyHmacSha256(
        verify.secret,
        {
          header: verify.header ?? '',
          encoding: verify.encoding ?? 'hex',
          prefix: verify.prefix ?? '',
        },
        delivery,
      );
  }
}

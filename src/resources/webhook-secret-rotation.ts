/** A rotated webhook signing secret as the API shows it: the schema and view of WHKROTO, with the new secret. */
import { Type, type Static } from 'typebox';
import type { WebhookRotateResponse } from '../backend/copybooks/index.ts';
import { Timestamp } from './schemas/common.ts';
import { SubscriptionId } from './webhook-subscription.ts';

/** The answer to a rotation: the only one that shows the new secret. */
export const RotatedSecret = Type.Object({
  subscriptionId: SubscriptionId,
  secret: Type.String({
    pattern: '^whsec_',
    description: 'The new signing secret (Standard Webhooks): shown only in this answer',
  }),
  secretRotatedAt: Timestamp,
  previousSecretExpiresAt: Type.String({
    format: 'date-time',
    description: 'Until when deliveries carry a signature with the secret before too (now, when it stopped at once)',
  }),
});
export type RotatedSecret = Static<typeof RotatedSecret>;

/** WHKROTO and the new plain secret (which never crossed the transport) → API answer. */
export function rotatedSecretFromRecord(r: WebhookRotateResponse, secret: string): RotatedSecret {
  return {
    subscriptionId: r.whkoSubscriptionId,
    secret,
    secretRotatedAt: r.whkoSecretRotatedAt,
    previousSecretExpiresAt: r.whkoPreviousExpiresAt,
  };
}

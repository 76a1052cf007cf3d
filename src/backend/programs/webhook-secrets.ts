/**
 * WHKROT, rotating a subscription's signing secret with an overlap: the secret it replaces still signs, beside
 * the new one, until the overlap ends, so a receiver can switch without missing a delivery. The overlap's length
 * is the service's (WEBHOOK_SECRET_OVERLAP, in the request); a caller may shorten it, down to none.
 */
import type { WebhookRotateResponse } from '../copybooks/records.ts';
import { RC } from '../message.ts';
import { fail, ok, text, type Program } from '../program.ts';
import { writeAudit } from '../store/journal.ts';
import { findOwnSubscription, rotateSecret, type PreviousSecret } from '../store/webhooks.ts';
import { SEALED_SECRET } from './webhook-records.ts';

/** The previous secret a delivery is signed with too: only while its overlap lasts, blank after. */
export function previousSecretInForce(previous: PreviousSecret | null, now: string): string {
  return previous !== null && Date.parse(previous.expiresAt) > Date.parse(now) ? previous.secret : '';
}

export const rotateSubscriptionSecret: Program<'WHKROT'> = async (ctx, req) => {
  const s = await findOwnSubscription(ctx.tx, ctx.caller.principal, text(req.whkrSubscriptionId));
  if (!s) return fail(RC.NOT_FOUND, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found');
  const secret = text(req.whkrSecret);
  if (!SEALED_SECRET.test(secret)) {
    return fail(RC.INVALID_INPUT, 'SECRET_NOT_SEALED', 'a rotation needs the new signing secret in the sealed form');
  }
  const overlap = Math.trunc(req.whkrOverlapSeconds);
  if (!(overlap >= 0)) return fail(RC.INVALID_INPUT, 'INVALID_OVERLAP', 'a rotation needs the overlap in seconds');
  let seconds = overlap;
  if (text(req.whkrExpireGiven) === 'Y') {
    seconds = Math.trunc(req.whkrExpireInSeconds);
    if (!(seconds >= 0 && seconds <= overlap)) {
      return fail(
        RC.INVALID_INPUT,
        'EXPIRE_IN_OUT_OF_RANGE',
        `expireCurrentIn must be 0 to ${overlap} seconds (the longest overlap this service keeps)`,
      );
    }
  }
  const expiresAt = new Date(Date.parse(ctx.now) + seconds * 1000).toISOString();
  // No overlap: the old secret is dropped now rather than kept with an expiry already passed.
  await rotateSecret(ctx.tx, s.subscriptionId, secret, seconds > 0 ? expiresAt : null, ctx.now);
  await writeAudit(ctx, 'webhook-subscription', s.subscriptionId, `secret rotated, previous until ${expiresAt}`);
  return ok<WebhookRotateResponse>({
    whkoSubscriptionId: s.subscriptionId,
    whkoSecretRotatedAt: ctx.now,
    whkoPreviousExpiresAt: expiresAt,
  });
};

/**
 * A delivery's history for the caller that owns its subscription: one delivery (WHDINQ) and its attempts, newest
 * first (WHALST). Another owner's subscription or delivery is "not found", as everywhere else.
 */
import type { WebhookDeliveryAttempt } from '../copybooks/records.ts';
import { RC, recordSegment } from '../message.ts';
import { fail, ok, text, type Program, type ProgramContext } from '../program.ts';
import { findDelivery, findOwnSubscription, listDeliveryAttempts, type DeliveryAttempt } from '../store/webhooks.ts';
import { pageSize, segmentPage } from './lists.ts';
import { deliveryRecord } from './webhook-records.ts';

function attemptRecord(a: DeliveryAttempt): WebhookDeliveryAttempt {
  return {
    whdaAttemptNumber: a.attemptNumber,
    whdaAttemptedAt: a.attemptedAt,
    whdaDurationMs: Math.min(a.durationMs, 9_999_999),
    whdaStatus: a.statusCode ?? 0,
    whdaError: (a.error ?? '').slice(0, 120),
    whdaResponseBody: (a.responseBody ?? '').slice(0, 1024),
    whdaNextAttemptAt: a.nextAttemptAt ?? '',
  };
}

/** The caller's delivery of the caller's subscription, or none. */
async function ownDelivery(ctx: ProgramContext, subscriptionId: string, deliveryId: string) {
  const s = await findOwnSubscription(ctx.tx, ctx.caller.principal, text(subscriptionId));
  return s ? await findDelivery(ctx.tx, s.subscriptionId, text(deliveryId)) : undefined;
}

const notFound = () => fail(RC.NOT_FOUND, 'DELIVERY_NOT_FOUND', 'delivery not found');

export const inquireDelivery: Program<'WHDINQ'> = async (ctx, req) => {
  const d = await ownDelivery(ctx, req.whkkSubscriptionId, req.whkkDeliveryId);
  return d ? ok(deliveryRecord(d)) : notFound();
};

export const listAttemptsProgram: Program<'WHALST'> = async (ctx, req) => {
  const d = await ownDelivery(ctx, req.whalSubscriptionId, req.whalDeliveryId);
  if (!d) return notFound();
  const limit = pageSize(req.whalMaxItems);
  const before = Math.trunc(req.whalBeforeSeq ?? 0) || 0;
  const rows = await listDeliveryAttempts(ctx.tx, d.deliveryId, before, limit + 1);
  return segmentPage(rows, limit, (a) => recordSegment('WHDAREC', attemptRecord(a)));
};

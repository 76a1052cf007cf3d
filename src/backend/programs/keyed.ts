/**
 * Exactly-once for a call whose effect has no row of its own to carry the caller's idempotency key (a webhook test
 * event, a recover): its OK reply is kept under the key in the same transaction, and a retry gets that reply.
 */
import { hash } from 'node:crypto';
import { KEY_REUSED_REASON, RC } from '../message.ts';
import { fail, replayed, type ProgramContext, type ProgramReply } from '../program.ts';
import { findKeyedReply, insertKeyedReply } from '../store/keyed-replies.ts';

/** A request's business fields, in a fixed order (what an idempotency key stands for), as the hash kept with it. */
export function businessRequestHash(fields: readonly (string | number)[]): string {
  return hash('sha256', JSON.stringify(fields), 'base64url');
}

/**
 * Runs `run` once per caller and key. `request`: the request's business fields, in a fixed order (what the key
 * stands for); the same key with other fields, or for another transaction, is refused.
 */
export async function oncePerKey<R>(
  ctx: ProgramContext,
  request: readonly string[],
  run: () => Promise<ProgramReply<R>>,
): Promise<ProgramReply<R>> {
  const key = ctx.idempotencyKey;
  if (!key) return run();
  const requestHash = businessRequestHash(request);
  const earlier = await findKeyedReply(ctx.tx, ctx.caller.principal, key);
  if (earlier) {
    if (earlier.tranCode !== ctx.tranCode || earlier.requestHash !== requestHash) {
      return fail(RC.CONFLICT, KEY_REUSED_REASON, 'this idempotency key was used for a different request');
    }
    return replayed({ returnCode: RC.OK, body: JSON.parse(earlier.replyJson) as R });
  }
  const reply = await run();
  // Only an OK keeps its writes (dispatch.ts): a refusal leaves nothing to answer again.
  if (reply.returnCode === RC.OK) {
    await insertKeyedReply(ctx.tx, {
      principal: ctx.caller.principal,
      idempotencyKey: key,
      tranCode: ctx.tranCode,
      requestHash,
      replyJson: JSON.stringify(reply.body),
      createdAt: ctx.now,
    });
  }
  return reply;
}

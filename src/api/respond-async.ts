/**
 * Requests that may run later (RFC 7240 `Prefer: respond-async`): put on the back-end's durable queue (OPSUBM),
 * answered 202 with `Location: /v1/operations/{id}`; the runner (src/operations/runner.ts) runs them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AsyncTranCode, RequestRecord } from '../backend/copybooks/index.ts';
import type { RecordPointers } from '../client/refusal.ts';
import type { RequestBackend } from './backend.ts';

/** The preference header of a request that may run later; `Vary: Prefer` goes on their answers. */
export const PreferHeader = Type.Optional(
  Type.String({
    description: '`respond-async`: answer 202 at once and run the request later (RFC 7240)',
  }),
);

/**
 * Does the request ask to be answered before it has run? (RFC 7240: preferences by commas, parameters by semicolons.)
 */
export function prefersAsync(req: FastifyRequest): boolean {
  const header = req.headers['prefer'];
  const values = Array.isArray(header) ? header : header ? [header] : [];
  return values.some((v) => v.split(',').some((p) => p.split(';')[0]!.trim().toLowerCase() === 'respond-async'));
}

/** Puts the request on the queue and answers 202 with where to look. */
export async function respondAsync<T extends AsyncTranCode>(
  backend: RequestBackend,
  tran: T,
  req: FastifyRequest,
  reply: FastifyReply,
  record: RequestRecord<T>,
  pointers: RecordPointers,
) {
  const out = await backend.submit(tran, req, record, pointers);
  const operationId = out.body.oprOperationId;
  return reply
    .code(202)
    .headers({ 'preference-applied': 'respond-async', location: `/v1/operations/${operationId}`, vary: 'Prefer' })
    .send({ operationId, status: out.body.oprStatus });
}

/**
 * Operations run later (contract §1.5; RFC 7240 `Prefer: respond-async`). POST /v1/payments and
 * POST /v1/loan-applications with that preference put the request on the back-end's durable queue (OPSUBM) and
 * answer 202 with `Location: /v1/operations/{id}`; GET there (OPINQ) answers pending, or the outcome: `result`,
 * exactly the body the synchronous call would have answered, or `problem`, the error it would have answered.
 * The runner (src/operations/runner.ts) runs them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isResourceRecord, type AsyncTranCode, type MessageCatalog, type RequestRecord } from '../../backend/copybooks/index.ts';
import { RC, segmentReader } from '../../backend/message.ts';
import { resourceView } from '../../events/cloud-event.ts';
import { errorFor, type BackendClient, type RecordPointers } from '../backend-client.ts';
import { toProblem } from '../errors.ts';
import { ROUTES } from '../route-table.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

const OperationId = Type.String({ pattern: '^OP-[0-9A-F]{16}$', maxLength: 19, description: 'Operation identifier' });
const Status = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);

export const OperationAccepted = Type.Object({ operationId: OperationId, status: Status });

const Operation = Type.Object({
  operationId: OperationId,
  status: Status,
  result: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'When succeeded: the body the synchronous call answers (a Payment, a LoanDecision)' })),
  problem: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'When failed: the problem+json the synchronous call answers' })),
});

/** The preference header of a request that may run later; `Vary: Prefer` goes on their answers. */
export const PreferHeader = Type.Optional(Type.String({ description: '`respond-async`: answer 202 at once and run the request later (RFC 7240)' }));

/** Does the request ask to be answered before it has run? (RFC 7240: preferences separated by commas, parameters by semicolons.) */
export function prefersAsync(req: FastifyRequest): boolean {
  const header = req.headers['prefer'];
  const values = Array.isArray(header) ? header : header ? [header] : [];
  return values.some((v) => v.split(',').some((p) => p.split(';')[0]!.trim().toLowerCase() === 'respond-async'));
}

/** Puts the request on the queue and answers 202 with where to look. */
export async function respondAsync<T extends AsyncTranCode>(
  backend: BackendClient, tran: T, req: FastifyRequest, reply: FastifyReply, record: RequestRecord<T>, pointers: RecordPointers,
) {
  const out = await backend.submit(tran, req, record, pointers);
  const operationId = out.body.oprOperationId;
  return reply.code(202).headers({ 'preference-applied': 'respond-async', location: `/v1/operations/${operationId}`, vary: 'Prefer' })
    .send({ operationId, status: out.body.oprStatus });
}

/** Where each kind of operation came in: the `instance` of its problem. */
const PATHS: Record<AsyncTranCode, string> = { PAYCRT: ROUTES.createPayment.url, LNAPPL: ROUTES.createLoanApplication.url };

export function operationRoutes(app: Api, { backend, catalog }: RouteDeps & { catalog: MessageCatalog }): void {
  app.route({
    ...fromTable('getOperation'),
    schema: {
      ...protectedErrors(['operations'], 'getOperation', 'Read an operation that runs later, and its outcome'),
      params: Type.Object({ operationId: OperationId }, { additionalProperties: false }),
      response: { 200: { description: 'Success', ...Operation }, ...STANDARD_ERRORS },
    },
    handler: async (req) => {
      const out = await backend.call('OPINQ', req, { opkOperationId: req.params.operationId });
      const r = out.body;
      const operationId = r.oprOperationId;
      const status = r.oprStatus as 'pending' | 'succeeded' | 'failed';
      if (status === 'pending') return { operationId, status };
      const returnCode = r.oprReturnCode;
      const recordName = r.oprResultRecord;
      if ((returnCode === RC.OK || returnCode === RC.REJECTED) && isResourceRecord(recordName)) {
        return { operationId, status, result: resourceView(recordName, segmentReader(catalog, out.segments)(recordName), req.principal!.role) };
      }
      const error = errorFor({ returnCode, reasonCode: r.oprReasonCode, reasonText: r.oprReasonText });
      const tran = r.oprTranCode as AsyncTranCode;
      return { operationId, status, problem: toProblem(error, PATHS[tran], r.oprCorrelationId) };
    },
  });
}

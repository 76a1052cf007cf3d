/**
 * /v1/operations/{id} (OPINQ): an operation run later (`Prefer: respond-async`) — pending, or the outcome:
 * `result`, exactly the body the synchronous call would have answered, or `problem`, the error it would have
 * answered.
 */
import { Type } from 'typebox';
import type { AsyncTranCode, MessageCatalog } from '../../backend/copybooks/index.ts';
import { Operation, OperationId, operationFromRecord } from '../../resources/operation.ts';
import { ROUTES } from '../route-table.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

/** Where each kind of operation came in: the `instance` of its problem. */
const PATHS: Record<AsyncTranCode, string> = {
  PAYCRT: ROUTES.createPayment.url,
  LNAPPL: ROUTES.createLoanApplication.url,
};

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
      const instance = PATHS[out.body.oprTranCode as AsyncTranCode];
      return operationFromRecord(catalog, out.body, out.segments, req.principal!.role, instance);
    },
  });
}

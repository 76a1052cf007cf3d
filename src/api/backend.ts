/** The back-end client as routes use it: the call context taken from the Fastify request. */
import type { FastifyRequest } from 'fastify';
import type { AsyncTranCode, RequestRecord, ResponseRecord, TranCode } from '../backend/copybooks/index.ts';
import { READ_ONLY_TRANSACTIONS } from '../backend/copybooks/index.ts';
import type { BackendClient, BackendOutcome } from '../client/backend-client.ts';
import type { CallContext } from '../client/call-context.ts';
import type { RecordPointers } from '../client/refusal.ts';
import { requestTraceparent } from '../observability/index.ts';

export interface RequestBackend {
  call<T extends TranCode>(
    tran: T,
    req: FastifyRequest,
    record: RequestRecord<T>,
    pointers?: RecordPointers,
  ): Promise<BackendOutcome<ResponseRecord<T>>>;
  submit<T extends AsyncTranCode>(
    tran: T,
    req: FastifyRequest,
    record: RequestRecord<T>,
    pointers?: RecordPointers,
  ): Promise<BackendOutcome<ResponseRecord<'OPSUBM'>>>;
}

/** The call context of a request: its caller, X-Request-ID, idempotency key and trace; its log line gets the facts. */
export function requestContext(req: FastifyRequest): CallContext {
  const principal = req.principal;
  if (!principal) throw new Error('back-end call without an authenticated caller');
  const facts = { tran: '', rc: null, reason: undefined, ms: 0 };
  req.backendCall = facts;
  return {
    caller: principal,
    correlationId: req.id,
    idempotencyKey: req.idempotency?.key ?? '',
    traceparent: requestTraceparent(req),
    span: req.traceSpan,
    log: req.log,
    facts,
  };
}

/** `afterChange`: told the transaction code once one that changes data has been answered (the relay looks at once). */
export function requestBackend(client: BackendClient, afterChange?: (tran: TranCode) => void): RequestBackend {
  const changed = (tran: TranCode) => {
    if (afterChange && !READ_ONLY_TRANSACTIONS.has(tran)) afterChange(tran);
  };
  return {
    async call(tran, req, record, pointers) {
      const out = await client.call(requestContext(req), tran, record, pointers ? { pointers } : {});
      changed(tran);
      return out;
    },
    async submit(tran, req, record, pointers) {
      const out = await client.submit(requestContext(req), tran, record, pointers);
      changed('OPSUBM');
      return out;
    },
  };
}

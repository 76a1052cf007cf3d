/**
 * The service's own transactions (systemCaller, src/api/backend-client.ts) with their records typed by the
 * transaction's copybooks, for the event relay, the webhook dispatcher and the operation runner: a renamed
 * copybook field fails the type check here too.
 */
import { systemCaller } from '../api/backend-client.ts';
import type { MessageCatalog, RequestRecord, ResponseRecord, TranCode } from '../backend/copybooks/index.ts';
import type { Transport } from '../transport/transport.ts';

/** Sends transaction `tran` as the SYSTEM caller; anything but OK rejects. `segment`: a record after the request record. */
export type SystemCall = <T extends TranCode>(tran: T, record: RequestRecord<T>, segment?: Buffer) => Promise<{ body: ResponseRecord<T>; segments: Buffer }>;

export function typedSystemCaller(transport: Transport, catalog: MessageCatalog, principal: string): SystemCall {
  const call = systemCaller(transport, catalog, principal);
  return async <T extends TranCode>(tran: T, record: RequestRecord<T>, segment?: Buffer) => {
    // systemCaller takes and answers untyped records: the request is encoded, and the response decoded, by the
    // layouts of the same copybooks records.ts is generated from.
    const out = await call(tran, record as unknown as Record<string, unknown>, segment);
    return { body: out.body as unknown as ResponseRecord<T>, segments: out.segments };
  };
}

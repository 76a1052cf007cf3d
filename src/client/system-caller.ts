/** The service's own transactions (the relay's, the dispatcher's, the runner's), sent as the SYSTEM caller. */
import { randomUUID } from 'node:crypto';
import type { RequestRecord, ResponseRecord, TranCode } from '../backend/copybooks/index.ts';
import type { BackendClient } from './backend-client.ts';
import { systemContext } from './call-context.ts';

/**
 * Calls under `subject`, each with a correlation id of its own; anything but OK is an error. `joinNextBatch`:
 * background turns that may wait a few milliseconds to share the next batch. `segment`: a record after the request's.
 */
export function systemCaller(backend: BackendClient, subject: string, joinNextBatch = false) {
  let calls = 0;
  const prefix = `${subject}-${randomUUID()}`;
  return async <T extends TranCode>(
    tran: T,
    record: RequestRecord<T>,
    segment?: Buffer,
  ): Promise<{ body: ResponseRecord<T>; segments: Buffer }> => {
    const ctx = systemContext(subject, `${prefix}-${++calls}`, joinNextBatch);
    const out = await backend.call(ctx, tran, record, segment ? { segment } : {});
    if (out.rejected) throw new Error(`${tran} answered REJECTED ${out.reasonCode}`);
    return out;
  };
}

/**
 * Carries encoded transaction messages between the API layer and the back-end. Only bytes cross it,
 * so a network (TCP + mutual TLS) or queue transport can replace the in-process one.
 */
export interface Transport {
  /**
   * Sends one request message and resolves with the response message. A transport may read `request` as late
   * as the end of the current event-loop turn (the worker batches a turn's calls): do not change it after.
   */
  call(request: Buffer, options?: CallOptions): Promise<Buffer>;
  /** Can the back-end serve right now? */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Background work that can wait a few milliseconds (the event relay's turn): a transport that batches may
   * hold the call until it sends the next one, so that both cross together and, in the worker, share one
   * group commit instead of paying an fsync each. Others send it at once.
   */
  joinNextBatch?: boolean;
}

export class TransportError extends Error {
  override readonly name: string = 'TransportError';
}

/** The call was not sent, so nothing of it ran: it may go to another back-end at once. */
export class CallNotStartedError extends TransportError {
  override readonly name = 'CallNotStartedError';
}

/**
 * Sends a readiness ping and waits for its answer, registered under `id` in `waiting` (where the answer's
 * handler finds it); no answer within `timeoutMs` counts as not ready.
 */
export function ping(
  waiting: Map<number, (ready: boolean) => void>,
  id: number,
  timeoutMs: number,
  send: () => void,
): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      resolve(false);
    }, timeoutMs);
    timer.unref();
    waiting.set(id, (ready) => {
      clearTimeout(timer);
      resolve(ready);
    });
    send();
  });
}

/** The back-end did not answer within the call's time limit. */
export class TransportTimeoutError extends TransportError {
  override readonly name = 'TransportTimeoutError';
  /** What the back-end's LinkHost contract looks for (src/backend/links.ts), without importing this layer. */
  readonly timedOut = true;
}

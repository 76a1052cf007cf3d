/**
 * The responses of one event-loop turn are written together, at the turn's end (setImmediate runs after the
 * turn's I/O callbacks). Written one by one, between the requests of the turn, each response would wake a reader
 * that had gone back to sleep: on one host (a proxy, a sidecar, a load generator on loopback) that wake-up
 * runs in the writing thread's system call. Written back to back, they find the reader mostly awake, and its
 * next requests arrive together. A turn with one request waits for nothing but the turn's end.
 */
import type { FastifyInstance, onSendHookHandler } from 'fastify';

type Done = Parameters<onSendHookHandler>[3];

export function installResponsesPerTurn(app: FastifyInstance): void {
  let dones: Done[] = [];
  let payloads: unknown[] = [];
  const writeAll = (): void => {
    const turn = dones;
    const bodies = payloads;
    dones = [];
    payloads = [];
    for (let i = 0; i < turn.length; i++) {
      const done = turn[i]!;
      // As Fastify's hook runner does for a hook that throws: the error goes to the error handler, and
      // the other responses of the turn are still written.
      try {
        done(null, bodies[i]);
      } catch (error) {
        done(error as Error);
      }
    }
  };
  app.addHook('onSend', (_req, _reply, payload, done) => {
    payloads.push(payload);
    if (dones.push(done) === 1) setImmediate(writeAll);
  });
}

/**
 * Writes the responses of one event-loop turn together at the turn's end, so a reader on the same host is woken
 * once per batch rather than once per response (that wake-up runs in the writing thread's system call).
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

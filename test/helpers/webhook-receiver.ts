/** A real HTTP endpoint on 127.0.0.1 that records what Corebridge POSTs to it and answers as the test says. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How the next requests are answered (status, headers); after the list runs out, `otherwise`. */
  answers: Array<{ status: number; headers?: Record<string, string>; delayMs?: number }>;
  otherwise: { status: number; headers?: Record<string, string>; delayMs?: number };
  /** Stops listening (connections are refused) until `listen` again, on the same port. */
  stop(): Promise<void>;
  listen(): Promise<void>;
  /** The settings that let the app deliver to it (http, loopback, its port). */
  env: Record<string, string>;
}

export async function startReceiver(t: TestContext, path = '/hooks'): Promise<Receiver> {
  const received: Received[] = [];
  let server: Server | null = null;
  const receiver: Receiver = {
    url: '',
    port: 0,
    received,
    answers: [],
    otherwise: { status: 204 },
    env: {},
    async stop() {
      const s = server;
      server = null;
      if (s)
        await new Promise<void>((done) => {
          s.close(() => done());
          s.closeAllConnections();
        });
    },
    async listen() {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push({
            path: req.url ?? '',
            headers: req.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            at: Date.now(),
          });
          const answer = receiver.answers.shift() ?? receiver.otherwise;
          setTimeout(() => res.writeHead(answer.status, answer.headers ?? {}).end(), answer.delayMs ?? 0);
        });
      });
      await new Promise<void>((done) => s.listen(receiver.port, '127.0.0.1', () => done()));
      server = s;
      receiver.port = (s.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}${path}`;
      receiver.env = {
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
        WEBHOOK_ALLOWED_PORTS: String(receiver.port),
      };
    },
  };
  await receiver.listen();
  t.after(() => receiver.stop());
  return receiver;
}

/**
 * A recording HTTP proxy in front of the real app, for the SDK tests: it sees every attempt the client makes
 * (method, path, headers, arrival time) and, per attempt, forwards it, forwards it and then drops the client's
 * connection instead of relaying the answer (the answer is lost after the server acted), answers by itself
 * (a 503 from a balancer, say), or never answers.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { TestContext } from 'node:test';

export type Behaviour =
  | 'forward'
  /** Forward, read the app's whole answer, then destroy the client's socket without relaying it. */
  | 'drop-answer'
  /** Hold the request and never answer. */
  | 'hang'
  | { status: number; headers?: Record<string, string>; body?: unknown };

export interface Attempt {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** performance.now() when the request reached the proxy. */
  at: number;
  behaviour: Behaviour;
  /** The app's answer, when the attempt was forwarded (relayed or dropped). */
  upstream?: { status: number; headers: IncomingHttpHeaders; body: string };
}

export interface Proxy {
  url: string;
  attempts: Attempt[];
}

/** `plan(n)` says what to do with the n-th request (1-based); by default everything is forwarded. */
export async function startProxy(
  t: TestContext,
  target: string,
  plan: (n: number) => Behaviour = () => 'forward',
): Promise<Proxy> {
  const upstream = new URL(target);
  const attempts: Attempt[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const behaviour = plan(attempts.length + 1);
      const attempt: Attempt = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        at: performance.now(),
        behaviour,
      };
      attempts.push(attempt);
      if (behaviour === 'hang') return;
      if (typeof behaviour === 'object') {
        res.writeHead(behaviour.status, { 'content-type': 'application/problem+json', ...behaviour.headers });
        res.end(behaviour.body === undefined ? '' : JSON.stringify(behaviour.body));
        return;
      }
      forward(
        req,
        Buffer.concat(chunks),
        upstream,
        (answer) => {
          attempt.upstream = answer;
          if (behaviour === 'drop-answer') req.socket.destroy();
          else relay(res, answer);
        },
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, attempts };
}

function forward(
  req: IncomingMessage,
  body: Buffer,
  target: URL,
  done: (answer: NonNullable<Attempt['upstream']>) => void,
  failed: () => void,
): void {
  const out = httpRequest(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host },
    },
    (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () =>
        done({ status: answer.statusCode ?? 0, headers: answer.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    },
  );
  out.on('error', failed);
  out.end(body);
}

function relay(res: ServerResponse, answer: NonNullable<Attempt['upstream']>): void {
  const headers = { ...answer.headers };
  delete headers['transfer-encoding'];
  delete headers['connection'];
  delete headers['keep-alive'];
  res.writeHead(answer.status, { ...headers, 'content-length': String(Buffer.byteLength(answer.body)) });
  res.end(answer.body);
}

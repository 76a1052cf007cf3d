/**
 * The round-robin front of `npm run stack` (node:http) over the API instances; one that fails is skipped for a
 * second. A refused request or a read goes to the next instance; a write that failed once sent answers 503
 * problem+json with Retry-After, since it may have run: the client retries under its Idempotency-Key.
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApiError, toProblem } from '../errors.ts';
import { SAFE_METHODS } from '../http-methods.ts';
import { roundRobin } from '../round-robin.ts';

export interface Front {
  port: number;
  close(): Promise<void>;
}

const SKIP_MS = 1000;
/** Far above the API's own body limit, which answers 413 itself: only a guard for the front's memory. */
const MAX_BODY_BYTES = 8 << 20;

export async function startFront(options: {
  host: string;
  port: number;
  upstreams: readonly number[];
}): Promise<Front> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const skippedUntil = new Map<number, number>();
  const nextUpstream = roundRobin(options.upstreams);

  /** An instance that failed within SKIP_MS is taken only when every other one not yet tried failed too. */
  function next(exclude: ReadonlySet<number>): number | undefined {
    const now = Date.now();
    return nextUpstream(
      (port) => !exclude.has(port),
      (port) => (skippedUntil.get(port) ?? 0) > now,
    );
  }

  /** Like the API's own 5xx answers: no detail for the client. */
  function unavailable(req: IncomingMessage, res: ServerResponse): void {
    if (res.headersSent) return void res.destroy();
    const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : randomUUID();
    const body = JSON.stringify(toProblem(new ApiError('SERVICE_UNAVAILABLE'), req.url ?? '/', requestId));
    res.writeHead(503, {
      'content-type': 'application/problem+json',
      'retry-after': '1',
      'x-request-id': requestId,
      'cache-control': 'no-store',
    });
    res.end(body);
  }

  function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, tried: Set<number>): void {
    const port = next(tried);
    if (port === undefined) return unavailable(req, res); // no instance reachable
    tried.add(port);
    const target = { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent };
    const upstream = request(target, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      skippedUntil.set(port, Date.now() + SKIP_MS);
      // Refused: the request never reached that instance, so another may take it. A read may go elsewhere
      // whatever happened to it; a write may have run, so only the client's retry with its key may repeat it.
      if (error.code === 'ECONNREFUSED' || SAFE_METHODS.has(req.method ?? '')) return forward(req, res, body, tried);
      unavailable(req, res);
    });
    upstream.end(body);
  }

  const server: Server = createServer((req, res) => {
    // Bodies are small (the API refuses large ones); buffered so a refused connection can be retried elsewhere.
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return void req.destroy();
      chunks.push(chunk);
    });
    req.on('end', () => forward(req, res, Buffer.concat(chunks), new Set()));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

/**
 * The Prometheus scrape endpoint on a listener of its own (METRICS_HOST:METRICS_PORT, loopback by default),
 * apart from the API: no API hooks, limits or authentication on it, and nothing of it reachable where the
 * API is published. GET /metrics answers the registry in Prometheus text format; anything else 404.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsListener {
  /** The bound port (the one asked for, or the system's pick for 0 in tests). */
  port: number;
  close(): Promise<void>;
}

export async function listenMetrics(registry: Registry, host: string, port: number): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404, {
        'content-type': 'text/plain; charset=utf-8',
        ...(path === '/metrics' ? { allow: 'GET, HEAD' } : {}),
      });
      res.end(path === '/metrics' ? 'method not allowed\n' : 'not found: the metrics are at /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`metrics could not be collected: ${(error as Error).message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

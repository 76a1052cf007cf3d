/**
 * server.ts as a process: the startup banner (one JSON line with LOG_FORMAT=json, a short block with
 * pretty), pretty lines from the back-end worker thread too, and /metrics on its own listener.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { freePort } from '../../support/free-port.ts';
import { credentialsFile } from '../../src/identity/credentials.ts';
import { parsePrometheusText, total } from './prometheus-text.ts';

async function startServer(
  t: TestContext,
  env: Record<string, string>,
): Promise<{ port: number; dataDir: string; output: () => string; stop(): Promise<number | null> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-output-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const child = spawn(process.execPath, ['src/server.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '0.0.0.0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(() => child.kill('SIGKILL'));
  // Ready once it has said so (the banner is its last startup line).
  for (let i = 0; i < 200 && !/corebridge ready|Corebridge is ready/.test(out); i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.match(out, /corebridge ready|Corebridge is ready/, 'the server printed its banner');
  return {
    port,
    dataDir,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

test('LOG_FORMAT=json: the banner is one structured line with the URLs a user opens; /metrics answers on its own listener', async (t) => {
  const metricsPort = await freePort();
  const server = await startServer(t, { LOG_FORMAT: 'json', METRICS_PORT: String(metricsPort) });
  assert.equal((await fetch(`http://127.0.0.1:${server.port}/health/live`)).status, 200);

  // The request is counted once its answer has left (onResponse), which another connection may overtake: read until it
  // shows.
  const scrape = async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(await res.text());
  };
  const live = { http_route: '/health/live', http_response_status_code: '200' };
  let samples = await scrape();
  for (let i = 0; i < 50 && total(samples, 'http_server_request_duration_seconds_count', live) === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    samples = await scrape();
  }
  assert.equal(total(samples, 'http_server_request_duration_seconds_count', live), 1);
  assert.ok(total(samples, 'process_resident_memory_bytes') > 0);
  assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/`)).status, 404);
  // The API does not serve the metrics: they are only on their own (loopback) listener.
  assert.equal((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status, 404);

  assert.equal(await server.stop(), 0);
  // Only JSON on stdout.
  const lines = server
    .output()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const banner = lines.find((l) => l['msg'] === 'corebridge ready');
  assert.ok(banner, 'one banner line');
  assert.ok(
    lines.some((l) => l['msg'] === 'effective configuration' && l['level'] === 30),
    'the effective configuration is logged at info, for machines',
  );
  const url = `http://localhost:${server.port}`;
  assert.deepEqual(banner['startup'], {
    url,
    docs: `${url}/docs`,
    openapi: `${url}/openapi.json`,
    // The settings the token command must share with this server (not the defaults), written into it.
    tokenCommand: `PORT=${server.port} DATA_DIR=${server.dataDir} npm run token -- <ada|alan|grace|clerk|acme-shop>`,
    credentialsFile: credentialsFile(server.dataDir),
    issuer: `http://localhost:${server.port}/oauth`,
    metrics: `http://127.0.0.1:${metricsPort}/metrics`,
    tracesEndpoint: null,
  });
});

test("LOG_FORMAT=pretty: readable lines (the back-end worker's too) and the banner as a short block; METRICS_PORT=0 turns the metrics off", async (t) => {
  const server = await startServer(t, { LOG_FORMAT: 'pretty', LOG_LEVEL: 'debug', METRICS_PORT: '0' });
  // The event relay's turns run EVTNXT in the worker thread, whose debug line says so: wait for one.
  for (let i = 0; i < 100 && !/DEBUG.*transaction ended.*EVTNXT/.test(server.output()); i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.equal((await fetch(`http://127.0.0.1:${server.port}/health/live`)).status, 200);
  for (let i = 0; i < 50 && !/GET \/health\/live/.test(server.output()); i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.equal(await server.stop(), 0);
  // eslint-disable-next-line no-control-regex -- the terminal's colour codes start with ESC
  const out = server.output().replace(/\x1b\[[0-9;]*m/g, '');
  assert.ok(!out.split('\n').some((line) => line.startsWith('{')), 'no JSON lines');
  // The whole configuration is for debugging: not among the lines a person reads at info.
  assert.match(out, /DEBUG.*: effective configuration/);
  assert.doesNotMatch(out, /INFO.*: effective configuration/);
  // The request line in words: status, method, path, duration, request id.
  assert.match(out, /^\[[\d:.]+\] INFO: 200 GET \/health\/live \d+(\.\d)? ms req=[\w-]+$/m);
  assert.match(out, /DEBUG.*: transaction ended.*"tran":"EVTNXT"/, "the worker thread's lines are pretty too");
  const block = /Corebridge is ready\n((?: {2}.*\n)+)/.exec(out);
  assert.ok(block, 'the banner block');
  assert.match(block[1]!, new RegExp(`^ {2}API +http://localhost:${server.port}$`, 'm'));
  assert.match(block[1]!, new RegExp(`^ {2}Docs +http://localhost:${server.port}/docs$`, 'm'));
  assert.match(block[1]!, /^ {2}Token +PORT=\d+ DATA_DIR=\S+ npm run token -- <ada\|/m);
  assert.match(
    block[1]!,
    new RegExp(`^ {2}Demo logins +${credentialsFile(server.dataDir).replaceAll('/', '\\/')}$`, 'm'),
  );
  assert.match(block[1]!, /^ {2}Metrics +off \(METRICS_PORT=0\)$/m);
});

test('LOG_FORMAT=pretty at info: `npm run token` adds no server line; the banner names the metrics port bound', async (t) => {
  const metricsPort = await freePort();
  const server = await startServer(t, { LOG_FORMAT: 'pretty', METRICS_PORT: String(metricsPort) });
  const before = server.output();
  const token = spawnSync(process.execPath, ['src/cli/token.ts', 'ada'], {
    env: { ...process.env, PORT: String(server.port), DATA_DIR: server.dataDir },
    encoding: 'utf8',
  });
  assert.equal(token.status, 0, token.stderr);
  assert.equal(token.stderr, '', 'the command found this server and checked its key');
  assert.equal(await server.stop(), 0);
  // The discovery and key documents the command read are logged at debug: no line about them at info.
  const after = server.output().slice(before.length);
  assert.match(after, /shutting down/);
  assert.doesNotMatch(after, /oauth/);
  const out = server.output();
  assert.match(out, new RegExp(`^ {2}Metrics +http://127\\.0\\.0\\.1:${metricsPort}/metrics$`, 'm'));
});

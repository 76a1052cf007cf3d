/** Builds the real app in-process on a fresh DATA_DIR (real SQLite files) and closes it after the test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { ROLE_SCOPES, findDemoIdentity } from '../../src/api/auth/roles.ts';
import { loadConfig, type Config } from '../../src/config.ts';

export interface TestApp {
  app: App;
  config: Config;
  dataDir: string;
  /** Every log line written so far, parsed. */
  logs: Array<Record<string, unknown>>;
  token(subject: string, options?: { scopes?: string[]; ttlSeconds?: number; issuedAt?: number; audience?: string }): Promise<string>;
  request(options: {
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    url: string;
    as?: string;
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
  }): Promise<LightMyRequestResponse>;
}

export interface StartOptions {
  /**
   * Runs on the fresh DATA_DIR before the app is built (for example to write the identity credentials);
   * may return more environment variables (paths of files it wrote there).
   */
  beforeBuild?(dataDir: string): Record<string, string> | void;
}

export async function startApp(t: TestContext, env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-test-'));
  const extraEnv = options.beforeBuild?.(dataDir) ?? {};
  // Event-loop-delay shedding is off unless a test turns it on: tests block the loop on purpose (spawnSync of
  // the CLI) on a loaded 2-core machine, which is not the overload the protection is for.
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', ...env, ...extraEnv });
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = await buildApp(config, { logger: createLogger(config, sink) });
  t.after(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const token: TestApp['token'] = async (subject, options = {}) => {
    const identity = findDemoIdentity(subject);
    if (!identity) throw new Error(`no demo identity ${subject}`);
    return app.devIssuer.sign(
      {
        subject,
        role: identity.role,
        ...(identity.customerId ? { customerId: identity.customerId } : {}),
        ...(identity.kind === 'client' ? { clientId: subject } : {}),
        scopes: options.scopes ?? ROLE_SCOPES[identity.role],
      },
      {
        ...(options.ttlSeconds !== undefined ? { ttlSeconds: options.ttlSeconds } : {}),
        ...(options.issuedAt !== undefined ? { issuedAt: options.issuedAt } : {}),
        ...(options.audience !== undefined ? { audience: options.audience } : {}),
      },
    );
  };

  const tokens = new Map<string, string>();
  const request: TestApp['request'] = async ({ method, url, as, token: given, body, headers = {} }) => {
    let bearer = given;
    if (!bearer && as) {
      bearer = tokens.get(as) ?? (await token(as));
      tokens.set(as, bearer);
    }
    return app.inject({
      method,
      url,
      headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
  };

  return { app, config, dataDir, logs, token, request };
}

/**
 * The app listening on a real loopback port with the embedded identity provider as its issuer, its
 * demo passwords and client secret created here at run time (never committed), for OAuth clients that
 * speak real HTTP.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TestContext } from 'node:test';
import { credentialsFile, type IdentityCredentials } from '../../src/identity/credentials.ts';
import { startApp, type TestApp } from './app.ts';
import { freePort } from '../../support/free-port.ts';

export interface IdentityServer extends TestApp {
  /** http://127.0.0.1:<port> */
  origin: string;
  issuer: string;
  credentials: IdentityCredentials;
}

export function testCredentials(): IdentityCredentials {
  const secret = () => randomBytes(18).toString('base64url');
  return {
    passwords: { ada: secret(), alan: secret(), grace: secret(), clerk: secret() },
    clientSecrets: { 'acme-shop': secret() },
    cookieKeys: [secret()],
  };
}

export async function startIdentityServer(
  t: TestContext,
  env: Record<string, string> = {},
  prepare?: (dataDir: string) => Record<string, string>,
): Promise<IdentityServer> {
  // The issuer names the port, so the port is chosen before the app is built; a connection the app opens meanwhile
  // may take that port from the same ephemeral range, and then another port is tried.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const credentials = testCredentials();
    const h = await startApp(
      t,
      { PORT: String(port), AUTH_ISSUER: `${origin}/oauth`, ...env },
      {
        beforeBuild(dataDir) {
          const file = credentialsFile(dataDir);
          mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
          writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
          return prepare?.(dataDir);
        },
      },
    );
    try {
      await h.app.listen({ port, host: '127.0.0.1' });
      return { ...h, origin, issuer: `${origin}/oauth`, credentials };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 3) throw error;
      await h.app.close();
    }
  }
}

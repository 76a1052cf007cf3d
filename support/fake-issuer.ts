/**
 * An external OpenID issuer on loopback, for tests and scripts: a discovery document and a JWKS, ending in
 * /realms/bank as Keycloak's do, its keys published at will.
 */
import { createServer } from 'node:http';
import type { JWK } from 'jose';

export interface FakeIssuer {
  /** `iss`, ending in /realms/bank. */
  issuer: string;
  /** How often the JWKS was fetched. */
  readonly jwksFetches: number;
  /** Replaces the published keys. */
  publish(keys: JWK[]): void;
  close(): Promise<void>;
}

/** `jwksPath`: where under the issuer the JWKS is served (Keycloak's is /protocol/openid-connect/certs). */
export async function serveFakeIssuer(jwksPath = '/certs'): Promise<FakeIssuer> {
  let keys: JWK[] = [];
  let jwksFetches = 0;
  let issuer = '';
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/realms/bank/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}${jwksPath}`, response_types_supported: ['code'] }));
    } else if (req.url === `/realms/bank${jwksPath}`) {
      jwksFetches++;
      res.end(JSON.stringify({ keys }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}/realms/bank`;
  return {
    issuer,
    get jwksFetches() {
      return jwksFetches;
    },
    publish(next) {
      keys = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Routes without a token: health, the development issuer's discovery documents, the OpenAPI document. */
import { Type } from 'typebox';
import type { DevIssuer } from '../../auth/dev-issuer.ts';
import { openIdConfiguration } from '../../auth/dev-issuer.ts';
import { SCOPES } from '../../auth/roles.ts';
import { ApiError } from '../../errors.ts';
import { problem } from '../schemas/problem.ts';
import type { Api } from './common.ts';

const PUBLIC = { public: true } as const;
// Not rate-limited: /health/ready's back-end check is bounded by its `ready` (src/api/protection/probes.ts).
const PROBE = { public: true, probe: true } as const;
const Health = Type.Object({ status: Type.Literal('ok') });

/**
 * `ready`: can the back-ends serve (the transport, and the COBOL program host of declared services)? Any caller
 * may ask it, as often as it likes: it must bound its own cost. `issuer` is null when an external issuer is
 * configured: then this server publishes no keys of its own.
 */
export function publicRoutes(
  app: Api,
  deps: { ready: () => Promise<boolean>; issuer: DevIssuer | null; isClosing: () => boolean },
): void {
  app.get(
    '/health/live',
    {
      // Overload sheds every other request, but not this one: an orchestrator restarts an instance whose liveness
      // fails, and a restart under load only makes the load worse. Readiness answers 503 instead.
      config: { ...PROBE, pressureHandler: () => undefined },
      schema: { tags: ['health'], summary: 'The process is up', response: { 200: Health } },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/health/ready',
    {
      config: PROBE,
      schema: {
        tags: ['health'],
        summary: 'The service can serve requests',
        response: { 200: Health, 503: problem('Not ready') },
      },
    },
    async () => {
      if (deps.isClosing() || !(await deps.ready()))
        throw new ApiError('BACKEND_UNAVAILABLE', undefined, { headers: { 'retry-after': '5' } });
      return { status: 'ok' as const };
    },
  );

  const issuer = deps.issuer;
  if (issuer) {
    app.get('/.well-known/jwks.json', { config: PUBLIC, schema: { hide: true } }, async (_req, reply) => {
      return reply.header('cache-control', 'public, max-age=300').send(issuer.jwks);
    });

    app.get('/.well-known/openid-configuration', { config: PUBLIC, schema: { hide: true } }, async () =>
      openIdConfiguration(issuer.issuer, SCOPES),
    );
  }

  app.get('/openapi.json', { config: PUBLIC, schema: { hide: true } }, async () => app.swagger());
}

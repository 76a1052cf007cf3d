/** OpenAPI 3.1 document options; the paths come from the route schemas themselves. */
import { SCOPE_DESCRIPTIONS as DESCRIPTIONS, SCOPES } from '../auth/roles.ts';
import { documentOperation } from './openapi-operation.ts';
import { eventWebhooks } from './routes/events.ts';

const SCOPE_DESCRIPTIONS: Record<string, string> = Object.fromEntries(
  SCOPES.map((scope) => [scope, DESCRIPTIONS[scope]]),
);

/** With the embedded provider, the OAuth 2.0 flows it offers; with an external issuer, bearer tokens only. */
export function openApiOptions(issuer: string, embeddedProvider = true) {
  const oauth2 = {
    type: 'oauth2' as const,
    description:
      'Authorization code with PKCE (S256) for apps; client credentials for partners and services. Access tokens are RFC 9068 JWTs.',
    flows: {
      authorizationCode: {
        authorizationUrl: `${issuer}/auth`,
        tokenUrl: `${issuer}/token`,
        refreshUrl: `${issuer}/token`,
        scopes: SCOPE_DESCRIPTIONS,
      },
      clientCredentials: { tokenUrl: `${issuer}/token`, scopes: SCOPE_DESCRIPTIONS },
    },
  };
  return {
    transform: documentOperation,
    // Shared schemas (Problem) appear under components/schemas by their $id.
    refResolver: {
      buildLocalReference: (json: Record<string, unknown>, _base: unknown, _fragment: unknown, i: number) =>
        String(json['$id'] ?? `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Corebridge API',
        version: '1.0.0',
        description:
          'JSON-over-HTTP API in front of a record-based transaction system. A business rejection is answered ' +
          'with 200 and status REJECTED in the body: check the body as well as the HTTP status. Errors are RFC 9457 ' +
          'problem+json. Send X-Request-ID to correlate a request across every log.',
      },
      servers: [{ url: '/' }],
      tags: [
        { name: 'orders' },
        { name: 'customers' },
        { name: 'accounts' },
        { name: 'payments' },
        { name: 'loans' },
        { name: 'events', description: 'The events feed: CloudEvents in commit order' },
        {
          name: 'Webhook subscriptions',
          description: 'Events POSTed to your URL: the subscriptions (what arrives: see Webhooks)',
        },
        { name: 'health' },
      ],
      webhooks: eventWebhooks(),
      components: {
        securitySchemes: {
          // the same name either way, so operations reference it whatever the issuer
          oauth2: embeddedProvider
            ? oauth2
            : {
                type: 'openIdConnect' as const,
                openIdConnectUrl: `${issuer}/.well-known/openid-configuration`,
                description: 'Tokens from the configured external issuer',
              },
          bearerAuth: {
            type: 'http' as const,
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: `Access token (RFC 9068) from ${issuer}; scopes: ${SCOPES.join(', ')}`,
          },
        },
      },
    },
  };
}

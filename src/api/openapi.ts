/** OpenAPI 3.1 document options; the paths come from the route schemas themselves. */
import { SCOPES } from './auth/roles.ts';

export function openApiOptions(issuer: string) {
  return {
    // Shared schemas (Problem) appear under components/schemas by their $id.
    refResolver: { buildLocalReference: (json: Record<string, unknown>, _base: unknown, _fragment: unknown, i: number) => String(json['$id'] ?? `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Corebridge API',
        version: '1.0.0',
        description:
          'JSON-over-HTTP API in front of a record-based transaction system. A business rejection is answered '
          + 'with 200 and status REJECTED in the body: check the body as well as the HTTP status. Errors are RFC 9457 '
          + 'problem+json. Send X-Request-ID to correlate a request across every log.',
      },
      servers: [{ url: '/' }],
      tags: [
        { name: 'orders' }, { name: 'customers' }, { name: 'accounts' }, { name: 'payments' }, { name: 'loans' }, { name: 'health' },
      ],
      components: {
        securitySchemes: {
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

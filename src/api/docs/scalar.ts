/**
 * The interactive API reference at /docs (Scalar), served from the installed package with nothing reaching the
 * internet, reading /openapi.json; "Authorize" signs in with code + PKCE as the public demo client.
 */
import { randomBytes } from 'node:crypto';
import scalar, { type ApiReferenceConfiguration } from '@scalar/fastify-api-reference';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { docsPageCsp } from '../protection/security-headers.ts';

export const DOCS_PATH = '/docs';
const SCRIPT_PATH = `${DOCS_PATH}/js/scalar.js`;

/** The docs page's redirect URI: the page itself, on the issuer's origin (the origin users open). */
export function docsRedirectUri(issuer: string): string {
  return `${new URL(issuer).origin}${DOCS_PATH}`;
}

export interface DocsSignIn {
  /** The public client the page signs in as. */
  clientId: string;
  /** Scopes selected for the sign-in: a demo customer's. */
  scopes: readonly string[];
}

/**
 * The plugin writes its one configured nonce into the page; each response replaces this per-process mark
 * with a nonce of its own, the one its CSP allows.
 */
const NONCE_MARK = `nonce${randomBytes(18).toString('base64url')}`;

function configuration(options: { signIn: DocsSignIn | null; issuer: string }): Partial<ApiReferenceConfiguration> {
  const signIn = options.signIn;
  return {
    url: '/openapi.json',
    pageTitle: 'Corebridge API reference',
    nonce: NONCE_MARK,
    // Nothing from the internet: no web fonts, no telemetry, no request proxy, no AI agent or MCP service.
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    persistAuth: false,
    documentDownloadType: 'json',
    // Its "Open API Client" leads to Scalar's hosted client.
    hideClientButton: true,
    ...(signIn
      ? {
          oauth2RedirectUri: docsRedirectUri(options.issuer),
          authentication: {
            preferredSecurityScheme: 'oauth2',
            securitySchemes: {
              oauth2: {
                flows: {
                  authorizationCode: {
                    'x-scalar-client-id': signIn.clientId,
                    'x-usePkce': 'SHA-256',
                    selectedScopes: [...signIn.scopes],
                  },
                },
              },
            },
          },
        }
      : {}),
  } as Partial<ApiReferenceConfiguration>;
}

/**
 * The plugin answers `/docs` with a redirect to `/docs/` that drops the query: the provider's redirect back to
 * `/docs?code=…&state=…` must keep it, for the page that opened the sign-in window to read the code.
 */
async function keepQueryOnRedirect(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (req.routeOptions.url !== DOCS_PATH) return;
  const query = req.url.indexOf('?');
  await reply.redirect(`${DOCS_PATH}/${query === -1 ? '' : req.url.slice(query)}`, 301);
}

export async function installScalarReference(
  docs: FastifyInstance,
  options: { signIn: DocsSignIn | null; issuer: string },
): Promise<void> {
  // The plugin's routes carry no route-table entry: each is a public page of this encapsulated context.
  const route = docs.route.bind(docs);
  docs.route = ((opts: RouteOptions) =>
    route({ ...opts, config: { ...(opts.config as object | undefined), public: true } })) as typeof docs.route;

  const csp = docsPageCsp([new URL(options.issuer).origin]);
  docs.addHook('onSend', (req, reply, payload, done) => {
    if (typeof payload === 'string' && payload.includes(NONCE_MARK)) {
      const nonce = randomBytes(16).toString('base64');
      reply.header('content-security-policy', csp(nonce));
      done(null, payload.replaceAll(NONCE_MARK, nonce));
      return;
    }
    // 4 MB of script, the same for a given installed version.
    if (req.routeOptions.url === SCRIPT_PATH && reply.statusCode === 200)
      reply.header('cache-control', 'public, max-age=3600');
    done(null, payload);
  });

  await docs.register(scalar, {
    routePrefix: DOCS_PATH,
    hooks: { onRequest: keepQueryOnRedirect },
    configuration: configuration(options),
  });
}

/**
 * The interactive API reference at /docs (Scalar), served from the installed package with nothing reaching the
 * internet, reading the contract (/openapi.json) as /docs/document.json with what only the page needs; "Authorize"
 * signs in with code + PKCE as the public demo client.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import scalar, { type ApiReferenceConfiguration } from '@scalar/fastify-api-reference';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { docsPageCsp } from '../protection/security-headers.ts';
import { isLoopbackAddress, isLoopbackHostname } from '../../loopback.ts';

export const DOCS_PATH = '/docs';
const SCRIPT_PATH = `${DOCS_PATH}/js/scalar.js`;
/** The document as the page shows it; /openapi.json stays the contract, the same for everyone. */
const DOCUMENT_PATH = `${DOCS_PATH}/document.json`;

/** The docs page's redirect URI: the page itself, on the issuer's origin (the origin users open). */
export function docsRedirectUri(issuer: string): string {
  return `${new URL(issuer).origin}${DOCS_PATH}`;
}

export interface DemoUser {
  user: string;
  role: string;
  customerId?: string;
  password: string;
}

export interface DocsSignIn {
  /** The public client the page signs in as. */
  clientId: string;
  /** Scopes selected for the sign-in: a demo customer's. */
  scopes: readonly string[];
  /** The demo users, shown beside the sign-in (development only: never with the operator's accounts). */
  demoUsers?: { users: readonly DemoUser[]; file: string } | null;
}

/**
 * The plugin writes its one configured nonce into the page; each response replaces this per-process mark
 * with a nonce of its own, the one its CSP allows.
 */
const NONCE_MARK = `nonce${randomBytes(18).toString('base64url')}`;

function configuration(options: { signIn: DocsSignIn | null; issuer: string }): Partial<ApiReferenceConfiguration> {
  const signIn = options.signIn;
  return {
    url: DOCUMENT_PATH,
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
    // The reference always offers a client secret for the code flow; the docs client is public (PKCE, no secret).
    customCss: HIDE_CLIENT_SECRET,
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

/** The client secret row of the sign-in form (the reference names no class for it: its placeholder is the mark). */
const HIDE_CLIENT_SECRET = `
tr:has(input[placeholder="XYZ123"]) { display: none !important; }
`;

/**
 * The demo users beside the sign-in. Their passwords are in an owner-only file: the page shows them only to a
 * browser on the same machine, anyone else is told where the file is.
 */
function demoUsersHint(demo: NonNullable<DocsSignIn['demoUsers']>, sameMachine: boolean): string {
  const rows = demo.users.map(
    (u) =>
      `| \`${u.user}\` | ${u.role}${u.customerId ? ` (customer ${u.customerId})` : ''} | ${sameMachine ? `\`${u.password}\`` : 'see the file'} |`,
  );
  return [
    '## Sign in with a demo user',
    '',
    `Development only: **Authorize** opens the sign-in; use one of these demo users. Their passwords were generated at first start into \`${demo.file}\`.`,
    '',
    '| User | Role | Password |',
    '| --- | --- | --- |',
    ...rows,
  ].join('\n');
}

type OpenApiDocument = {
  info: { description?: string };
  paths?: Record<string, Record<string, { parameters?: Array<{ in?: string; name?: string; example?: unknown }> }>>;
};

/**
 * The contract as the page shows it: a fresh Idempotency-Key for each page load (one intended operation per
 * key; a retry from the same page reuses it), and the demo users beside the sign-in.
 */
function pageDocument(
  contract: unknown,
  signIn: DocsSignIn | null,
  opened: { sameMachine: boolean; otherOrigin: string | null },
): OpenApiDocument {
  const document = structuredClone(contract) as OpenApiDocument;
  for (const operations of Object.values(document.paths ?? {}))
    for (const operation of Object.values(operations))
      for (const parameter of operation.parameters ?? [])
        if (parameter.in === 'header' && parameter.name?.toLowerCase() === 'idempotency-key')
          parameter.example = randomUUID();
  const notes: string[] = [];
  // Sign-in comes back to the issuer's origin only (see issuerOriginFor): say so where it cannot.
  if (signIn && opened.otherOrigin)
    notes.push(
      `**Sign-in works only on ${opened.otherOrigin}/docs**: open the page there (or set AUTH_ISSUER to this address).`,
    );
  if (signIn?.demoUsers) notes.push(demoUsersHint(signIn.demoUsers, opened.sameMachine));
  if (notes.length > 0) document.info.description = [...notes, document.info.description ?? ''].join('\n\n');
  return document;
}

/**
 * The page signs in only on the issuer's origin: the sign-in window must come back to the origin that opened it,
 * and the provider's pages (Cross-Origin-Opener-Policy: same-origin) cut a window opened from another origin off
 * its opener. A page opened by another loopback name of this server (127.0.0.1 for localhost) moves there.
 */
function issuerOriginFor(req: FastifyRequest, issuer: string): string | null {
  const target = new URL(issuer);
  const opened = URL.parse(`http://${req.host}`);
  if (!opened || opened.host === target.host) return null;
  const sameServer = opened.port === target.port && isLoopbackHostname(opened.hostname);
  return sameServer && isLoopbackHostname(target.hostname) ? target.origin : null;
}

/**
 * The plugin answers `/docs` with a redirect to `/docs/` that drops the query: the provider's redirect back to
 * `/docs?code=…&state=…` must keep it, for the page that opened the sign-in window to read the code.
 */
function pageRedirects(options: { signIn: DocsSignIn | null; issuer: string }) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const url = req.routeOptions.url;
    if (url !== DOCS_PATH && url !== `${DOCS_PATH}/`) return;
    const query = req.url.indexOf('?') === -1 ? '' : req.url.slice(req.url.indexOf('?'));
    const origin = options.signIn ? issuerOriginFor(req, options.issuer) : null;
    if (origin) await reply.redirect(`${origin}${DOCS_PATH}/${query}`, 302);
    else if (url === DOCS_PATH) await reply.redirect(`${DOCS_PATH}/${query}`, 301);
  };
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

  docs.get(DOCUMENT_PATH, { config: { public: true }, schema: { hide: true } }, async (req, reply) =>
    reply.header('cache-control', 'no-store').send(
      pageDocument(docs.swagger(), options.signIn, {
        sameMachine: isLoopbackAddress(req.socket.remoteAddress ?? ''),
        otherOrigin: req.host === new URL(options.issuer).host ? null : new URL(options.issuer).origin,
      }),
    ),
  );

  await docs.register(scalar, {
    routePrefix: DOCS_PATH,
    hooks: { onRequest: pageRedirects(options) },
    configuration: configuration(options),
  });
}

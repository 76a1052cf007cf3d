/**
 * The human pages, outside the /v1 context (they pay nothing for its hooks) and hidden from the OpenAPI
 * document (they are not part of the API): the interactive reference at /docs (Scalar, from the
 * installed package), `/` leading there, a page per problem `type` URI, and the pages' stylesheet.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError, ERROR_CODES } from '../../errors.ts';
import { ERROR_HELP, errorCodeForSlug } from '../error-help.ts';
import { escapeHtml, htmlPage, PAGE_CSP, STYLESHEET, STYLESHEET_PATH } from '../../pages/page.ts';
import { installScalarReference, type DocsSignIn } from './scalar.ts';

const PUBLIC = { public: true } as const;
const HIDDEN = { hide: true } as const;

/** The help texts write header and field names as `code`: escaped first, then marked up. */
function prose(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function problemPage(slug: string): string | null {
  const code = errorCodeForSlug(slug);
  if (!code) return null;
  const { status, title } = ERROR_CODES[code];
  const help = ERROR_HELP[code];
  return htmlPage(
    title,
    `
<p class="muted">HTTP ${status} · <code>${code}</code> · <code>/problems/${escapeHtml(slug)}</code></p>
<h2>What it means</h2>
<p>${prose(help.meaning)}</p>
<h2>What to do</h2>
<p>${prose(help.remedy)}</p>
<p>Every error answer is <code>application/problem+json</code> (RFC 9457); its <code>requestId</code> finds the request in the service's log.
See the <a href="/docs">API reference</a>.</p>`,
  );
}

export interface DocsRouteOptions {
  /** The embedded provider's sign-in for the reference's "Authorize"; null with an external issuer. */
  signIn: DocsSignIn | null;
  /** Where the reference's "Try it" requests may go beside this origin (the issuer's token endpoint). */
  issuer: string;
}

export async function docsRoutes(app: FastifyInstance, options: DocsRouteOptions): Promise<void> {
  app.get('/', { config: PUBLIC, schema: HIDDEN }, async (_req, reply) => reply.redirect('/docs', 302));

  app.get(STYLESHEET_PATH, { config: PUBLIC, schema: HIDDEN }, async (_req, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  );

  app.get('/problems/:slug', { config: PUBLIC, schema: HIDDEN }, async (req, reply) => {
    const { slug } = req.params as { slug: string };
    const page = problemPage(slug);
    if (!page) throw new ApiError('NOT_FOUND', `no problem type ${slug.slice(0, 64)}`);
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'public, max-age=3600')
      .send(page);
  });

  await app.register(async (docs) => installScalarReference(docs, options));
}

/**
 * The embedded provider under /oauth: its own endpoints (discovery, JWKS, token…) get the raw request unparsed;
 * the login and consent pages are plain HTML forms served here. All are public: the provider checks its callers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { LoginThrottle } from './login-throttle.ts';
import { SCOPE_DESCRIPTIONS } from '../auth/roles.ts';
import { escapeHtml, htmlPage, PAGE_CSP } from '../pages/page.ts';
import { scopesForAccount, type IdentityAccounts } from './accounts.ts';

export const MOUNT_PATH = '/oauth';
const INTERACTION_PATH = `${MOUNT_PATH}/interaction/:uid`;

class InteractionGone extends Error {
  override readonly name = 'InteractionGone';
}
const PUBLIC = { public: true } as const;
const FORM_LIMIT = 4096;
const LOGIN_ERROR = 'Wrong user name or password.';
const USERNAME_ATTRIBUTES =
  'id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false"';

/** Where a form of the interaction `uid` posts its step (login, confirm, abort). */
function interactionAction(uid: string, step: string): string {
  return `${MOUNT_PATH}/interaction/${escapeHtml(uid)}/${step}`;
}

/**
 * The sign-in form. After a failed attempt the user name stays filled in, both fields are marked invalid and
 * described by the message beside them, and the focus goes to the password (the field to type again);
 * otherwise it starts on the first field.
 */
function loginPage(uid: string, clientName: string, failed?: { username: string }): string {
  const invalid = failed ? ' aria-invalid="true" aria-describedby="login-error"' : '';
  const usernameState = failed ? ` value="${escapeHtml(failed.username)}"` : ' autofocus';
  const passwordFocus = failed ? ' autofocus' : '';
  return htmlPage(
    'Sign in to Corebridge',
    `
<p><strong>${escapeHtml(clientName)}</strong> asks you to sign in.</p>
<form method="post" action="${interactionAction(uid, 'login')}">
<div class="field"><label for="username">User name</label>
<input ${USERNAME_ATTRIBUTES} required${usernameState}${invalid}></div>
<div class="field"><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${passwordFocus}${invalid}>
${failed ? `<p id="login-error" class="error" role="alert">${LOGIN_ERROR}</p>` : ''}</div>
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>
<form method="post" action="${interactionAction(uid, 'abort')}"><button type="submit">Cancel</button></form>`,
  );
}

/** The consent page: each requested scope by name and in words (SCOPE_DESCRIPTIONS). */
function consentPage(uid: string, clientName: string, scopes: readonly string[]): string {
  const rows = scopes
    .map((s) => `<tr><td><code>${escapeHtml(s)}</code></td><td>${escapeHtml(describeScope(s))}</td></tr>`)
    .join('\n');
  const confirm = interactionAction(uid, 'confirm');
  return htmlPage(
    'Allow access?',
    `
<p><strong>${escapeHtml(clientName)}</strong> asks to act for you with these permissions:</p>
<table><thead><tr><th scope="col">Permission</th><th scope="col">What it allows</th></tr></thead>
<tbody>${rows}</tbody></table>
<div class="actions">
<form method="post" action="${confirm}"><button type="submit" class="primary">Allow</button></form>
<form method="post" action="${interactionAction(uid, 'abort')}"><button type="submit">Deny</button></form>
</div>`,
  );
}

function describeScope(scope: string): string {
  return (SCOPE_DESCRIPTIONS as Record<string, string>)[scope] ?? 'A permission this service does not describe';
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('content-security-policy', PAGE_CSP).type('text/html; charset=utf-8').send(body);
}

/**
 * oidc-provider answers discovery and JWKS requests with `Access-Control-Allow-Origin: <any Origin>`.
 * The server's CORS allowlist decides instead: the provider may only repeat the origin the CORS plugin
 * already allowed for this request (then the token endpoint also checks it against the client).
 */
function keepCorsPolicy(reply: FastifyReply): void {
  const allowed = reply.getHeader('access-control-allow-origin');
  const raw = reply.raw;
  const setHeader = raw.setHeader.bind(raw);
  raw.setHeader = ((name: string, value: number | string | readonly string[]) => {
    if (name.toLowerCase() === 'access-control-allow-origin' && value !== allowed) return raw;
    return setHeader(name, value);
  }) as typeof raw.setHeader;
}

export interface IdentityRouteDeps {
  provider: Provider;
  /** Who may sign in (the demo identities, or the accounts file). */
  accounts: IdentityAccounts;
  /** The security headers of every answer but JSON: the provider's endpoints answer with pages and redirects too. */
  documentHeaders: Record<string, string>;
  loginThrottle: LoginThrottle;
}

export async function identityRoutes(app: FastifyInstance, deps: IdentityRouteDeps): Promise<void> {
  const { provider } = deps;

  // Login and consent pages: URL-encoded forms, parsed here.
  await app.register(async (pages) => {
    pages.removeAllContentTypeParsers();
    pages.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT },
      (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );

    const interaction = async (req: FastifyRequest, reply: FastifyReply) => {
      let details;
      try {
        details = await provider.interactionDetails(req.raw, reply.raw);
      } catch (error) {
        // No interaction cookie, or an expired interaction: nothing to sign in to.
        req.log.info({ reason: (error as Error).message }, 'login page without a valid interaction');
        throw new InteractionGone();
      }
      const { uid } = req.params as { uid: string };
      // The uid in the path must be the one bound to this browser's interaction cookie.
      if (details.uid !== uid) throw new InteractionGone();
      const client = await provider.Client.find(String(details.params['client_id']));
      return { details, clientName: client?.clientName ?? String(details.params['client_id']) };
    };
    pages.setErrorHandler(async (error, _req, reply) => {
      if (error instanceof InteractionGone) {
        const text = '<p>This sign-in request is unknown or expired; start again from the app.</p>';
        return html(reply, 400, htmlPage('Sign-in expired', text));
      }
      throw error;
    });

    pages.get(`${INTERACTION_PATH}`, { config: PUBLIC, schema: { hide: true } }, async (req, reply) => {
      const { details, clientName } = await interaction(req, reply);
      if (details.prompt.name === 'login') return html(reply, 200, loginPage(details.uid, clientName));
      const missing = (details.prompt.details['missingResourceScopes'] ?? {}) as Record<string, string[]>;
      const missingOidc = (details.prompt.details['missingOIDCScope'] as string[] | undefined) ?? [];
      const scopes = [...new Set([...missingOidc, ...Object.values(missing).flat()])];
      return html(reply, 200, consentPage(details.uid, clientName, scopes));
    });

    pages.post(`${INTERACTION_PATH}/login`, { config: PUBLIC, schema: { hide: true } }, async (req, reply) => {
      const { details, clientName } = await interaction(req, reply);
      const form = (req.body ?? {}) as Record<string, string>;
      const username = String(form['username'] ?? '');
      const known = deps.accounts.user(username) !== undefined;
      // A name refused after repeated failures gets the page a wrong password gets, known or not.
      const locked = await deps.loginThrottle.locked(username);
      if (locked || !(await deps.accounts.signIn(username, String(form['password'] ?? '')))) {
        if (!locked) await deps.loginThrottle.failed(username);
        // The user name is a claimed principal only; the password never reaches a log.
        req.log.warn(
          {
            reason: locked ? 'too many failures' : known ? 'wrong password' : 'unknown user',
            principal: username.slice(0, 64),
            clientId: details.params['client_id'],
          },
          'authentication failed',
        );
        return html(reply, 401, loginPage(details.uid, clientName, { username: username.slice(0, 64) }));
      }
      await deps.loginThrottle.succeeded(username);
      req.log.info({ principal: username, clientId: details.params['client_id'] }, 'user signed in');
      const result = { login: { accountId: username } };
      const returnTo = await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: false });
      return reply.redirect(returnTo, 303);
    });

    pages.post(`${INTERACTION_PATH}/confirm`, { config: PUBLIC, schema: { hide: true } }, async (req, reply) => {
      const { details } = await interaction(req, reply);
      const accountId = details.session?.accountId;
      if (details.prompt.name !== 'consent' || !accountId) {
        return html(reply, 400, htmlPage('Sign in first', '<p>This request has no signed-in user.</p>'));
      }
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId, clientId: String(details.params['client_id']) });
      if (!grant) return html(reply, 400, htmlPage('Expired', '<p>This request expired; start again.</p>'));
      const allowed = new Set(scopesForAccount(deps.accounts, accountId));
      const promptDetails = details.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (promptDetails.missingOIDCScope) grant.addOIDCScope(promptDetails.missingOIDCScope.join(' '));
      if (promptDetails.missingOIDCClaims) grant.addOIDCClaims(promptDetails.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(promptDetails.missingResourceScopes ?? {})) {
        // Least privilege: never more than the user's role allows, whatever was requested.
        grant.addResourceScope(indicator, scopes.filter((s) => allowed.has(s)).join(' '));
      }
      const grantId = await grant.save();
      const result = { consent: { grantId } };
      const returnTo = await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: true });
      return reply.redirect(returnTo, 303);
    });

    pages.post(`${INTERACTION_PATH}/abort`, { config: PUBLIC, schema: { hide: true } }, async (req, reply) => {
      await interaction(req, reply);
      const result = { error: 'access_denied', error_description: 'the user cancelled' };
      const returnTo = await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: false });
      return reply.redirect(returnTo, 303);
    });
  });

  // The provider's own endpoints: the body stays unread for oidc-provider to parse.
  await app.register(async (endpoints) => {
    endpoints.removeAllContentTypeParsers();
    endpoints.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    const callback = provider.callback();
    const handle = (req: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      const raw = req.raw as typeof req.raw & { originalUrl?: string };
      // Headers already set by the protection plugins (security headers, CORS) go out with the provider's response.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value as string);
      }
      for (const [name, value] of Object.entries(deps.documentHeaders)) reply.raw.setHeader(name, value);
      keepCorsPolicy(reply);
      reply.raw.setHeader('x-request-id', req.id);
      const url = raw.url!;
      raw.originalUrl = url;
      raw.url = url.slice(MOUNT_PATH.length) || '/';
      // The request log line (written on 'finish') names the URL as received.
      reply.raw.prependOnceListener('finish', () => {
        raw.url = url;
      });
      void callback(raw, reply.raw);
    };
    endpoints.route({
      method: ['GET', 'POST'],
      url: `${MOUNT_PATH}/*`,
      config: PUBLIC,
      schema: { hide: true },
      handler: handle,
    });
  });
}

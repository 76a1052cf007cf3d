/**
 * Would the running server accept a token signed here? Asks the server at the issuer URL (discovery and JWKS), so
 * `npm run token` refuses, naming the differing setting, instead of printing a token that fails with 401.
 */
import { Agent } from 'undici';

export interface ServerCheck {
  /** Why the server would refuse the token: the command prints this and exits non-zero. */
  refusal?: string;
  /** No server answered: the token may still be for a server started later with these settings. */
  warning?: string;
}

const TIME_LIMIT_MS = 3000;
/** Failures that mean no server is there (or none reachable), as opposed to another kind of server answering. */
const NOBODY_THERE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'TimeoutError']);

export async function checkServer(issuer: string, kid: string): Promise<ServerCheck> {
  const origin = new URL(issuer).origin;
  // Only public documents are read and nothing secret is sent, so a development certificate need not verify.
  const dispatcher = issuer.startsWith('https:') ? new Agent({ connect: { rejectUnauthorized: false } }) : undefined;
  const get = async (url: string) => {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(TIME_LIMIT_MS),
      ...(dispatcher ? { dispatcher } : {}),
    } as RequestInit);
    return { status: response.status, body: (await response.json().catch(() => null)) as unknown };
  };
  try {
    const discovery = await get(`${issuer}/.well-known/openid-configuration`);
    const metadata = discovery.body as { issuer?: unknown; jwks_uri?: unknown } | null;
    if (discovery.status !== 200 || typeof metadata?.issuer !== 'string' || typeof metadata.jwks_uri !== 'string') {
      return {
        refusal: `${origin} answers, but not as a Corebridge server with issuer ${issuer} (HTTP ${discovery.status} for its discovery document): set PORT or AUTH_ISSUER as the server has them`,
      };
    }
    if (metadata.issuer !== issuer) {
      return {
        refusal: `the server at ${origin} has issuer ${metadata.issuer}, not ${issuer}: run this command with the server's settings (PORT or AUTH_ISSUER, or its .env)`,
      };
    }
    const jwks = (await get(metadata.jwks_uri)).body as { keys?: Array<{ kid?: unknown }> } | null;
    if (!jwks?.keys?.some((key) => key.kid === kid)) {
      return {
        refusal: `the server at ${origin} does not publish the key this command signs with (kid ${kid}): run it with the server's DATA_DIR`,
      };
    }
    return {};
  } catch (error) {
    const { cause: reason } = error as { cause?: { code?: string; message?: string } };
    const cause = reason?.code ?? (error as Error).name;
    if (!NOBODY_THERE.has(cause)) {
      return {
        refusal: `${origin} answers, but not as a Corebridge server (${reason?.message ?? cause}): set PORT or AUTH_ISSUER as the server has them`,
      };
    }
    return {
      warning: `no server answers at ${origin} (${cause}): the token is for a server started with these settings (issuer ${issuer}); if yours runs on another PORT, set PORT (or AUTH_ISSUER) here too`,
    };
  } finally {
    await dispatcher?.close();
  }
}

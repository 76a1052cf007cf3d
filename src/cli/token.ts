/**
 * npm run token -- <user|client> [--scope "orders:read orders:write"] [--ttl 10m]
 * Prints an access token for a demo identity, for development and tests, signed and shaped like the embedded
 * provider's own tokens (settings from the environment and .env), after checking that the server would accept it.
 */
import { parseArgs } from 'node:util';
import { openDevIssuer } from '../auth/dev-issuer.ts';
import { DEMO_IDENTITIES, findDemoIdentity, isScope, ROLE_SCOPES } from '../auth/roles.ts';
import { ConfigError, loadConfig, processEnv } from '../config.ts';
import { exitWithUsageIfAsked } from './help.ts';
import { checkServer } from './token-server-check.ts';

const USAGE = `usage: npm run token -- <identity> [--scope "scope ..."] [--ttl 10m]
identities: ${DEMO_IDENTITIES.map((i) => `${i.subject} (${i.kind}, ${i.role})`).join(', ')}
Reads the server's settings (PORT, AUTH_ISSUER, DATA_DIR, from the environment and .env) and checks
that the server answering there would accept the token.`;

function fail(message: string): never {
  process.stderr.write(`token: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** "90s", "10m", "1h" or plain seconds → seconds (1 s to 24 h). */
export function parseTtl(text: string): number {
  const match = /^([0-9]+)(s|m|h)?$/.exec(text);
  if (!match) throw new Error(`--ttl must look like 90s, 10m or 1h, got "${text}"`);
  const seconds = Number(match[1]) * ({ s: 1, m: 60, h: 3600 }[match[2] as 's' | 'm' | 'h'] ?? 1);
  if (seconds < 1 || seconds > 86_400) throw new Error('--ttl must be between 1s and 24h');
  return seconds;
}

async function main(): Promise<void> {
  exitWithUsageIfAsked(process.argv.slice(2), USAGE);
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { scope: { type: 'string' }, ttl: { type: 'string', default: '10m' } },
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const subject = parsed.positionals[0];
  if (!subject || parsed.positionals.length > 1) fail('name exactly one identity');
  const identity = findDemoIdentity(subject);
  if (!identity) fail(`unknown identity "${subject}"`);
  const allowed = ROLE_SCOPES[identity.role];
  const scopes = parsed.values.scope === undefined ? [...allowed] : parsed.values.scope.split(/[\s,]+/).filter(Boolean);
  for (const scope of scopes) {
    if (!isScope(scope)) fail(`unknown scope "${scope}"`);
    if (!allowed.includes(scope)) fail(`the ${identity.role} role may not hold ${scope}`);
  }
  let ttlSeconds: number;
  try {
    ttlSeconds = parseTtl(parsed.values.ttl);
  } catch (error) {
    fail((error as Error).message);
  }
  let config;
  try {
    config = loadConfig(processEnv());
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  if (config.auth.external) fail('AUTH_EXTERNAL_ISSUER is set: tokens come from that issuer, not from this command');
  // The demo identities are not served then: a token for one would be a back door beside the accounts file.
  if (config.auth.accountsFile)
    fail('AUTH_ACCOUNTS_FILE is set: its users and clients sign in, the demo identities do not');
  if (config.production) fail('NODE_ENV=production: development tokens are not made in production mode');
  const issuer = await openDevIssuer({
    dataDir: config.dataDir,
    issuer: config.auth.issuer,
    audience: config.auth.audience,
  });
  const check = await checkServer(config.auth.issuer, issuer.jwks.keys[0]?.kid ?? '');
  if (check.refusal) {
    process.stderr.write(`token: ${check.refusal}\n`);
    process.exit(2);
  }
  if (check.warning) process.stderr.write(`token: ${check.warning}\n`);
  const token = await issuer.sign(
    {
      subject,
      role: identity.role,
      scopes,
      ...(identity.customerId ? { customerId: identity.customerId } : {}),
      ...(identity.kind === 'client' ? { clientId: subject } : {}),
    },
    { ttlSeconds },
  );
  process.stdout.write(`${token}\n`);
}

try {
  await main();
} catch (error) {
  // Whatever else fails (an unusable DATA_DIR, say) is said on one line: a stack trace, or nothing at all under
  // `npm run -s`, leaves a script's `TOKEN=$(npm run -s token …)` with an empty token and no reason.
  process.stderr.write(`token: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

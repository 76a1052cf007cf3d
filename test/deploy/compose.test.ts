/**
 * deploy/compose.yaml: it parses, every service has a health check, the front's HAProxy configuration passes
 * `haproxy -c` and keeps the rules of the stack's generated front, TRUST_PROXY names the front's network only,
 * secrets are files never committed, and production mode accepts what each Corebridge process is given.
 * (No compose-spec JSON schema is published on npm by a maintained package, so the structure is checked here.)
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { loadConfig, type Env } from '../../src/config.ts';
import { productionProblems, type ProcessRole } from '../../src/production.ts';
import { ApiError, toProblem } from '../../src/errors.ts';
import { ERROR_FILES_DIR, haproxyConfig, haproxyErrorFiles } from '../../scripts/stack/haproxy.ts';

const FILE = 'deploy/compose.yaml';
const HAPROXY_CFG = 'deploy/haproxy.cfg';

interface ServiceSecret {
  source: string;
  target?: string;
}
interface Service {
  image: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  secrets?: (string | ServiceSecret)[];
  healthcheck?: { test: string[]; interval?: string };
  networks?: string[];
  ports?: string[];
  volumes?: string[];
  deploy?: { replicas?: number };
}
interface Compose {
  services: Record<string, Service>;
  networks: Record<string, { internal?: boolean; ipam?: { config: { subnet: string }[] } } | null>;
  secrets: Record<string, { file?: string; environment?: string }>;
}

// Compose reads YAML merge keys (`<<: *corebridge`).
const compose = parse(readFileSync(FILE, 'utf8'), { merge: true }) as Compose;
const { services } = compose;
const corebridge = Object.entries(services).filter(([, s]) => s.image === 'localhost/corebridge:latest');
const secretsOf = (service: Service): ServiceSecret[] =>
  (service.secrets ?? []).map((s) => (typeof s === 'string' ? { source: s } : s));
/** Where a secret is mounted: /run/secrets/<target or name>, or the absolute target. */
const mountPath = (s: ServiceSecret) => (s.target?.startsWith('/') ? s.target : `/run/secrets/${s.target ?? s.source}`);
const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?error}` from the operator's variables. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Z_][A-Z0-9_]*)(?::([-?])([^}]*))?\}/g,
    (_all, name: string, op?: string, arg?: string) => {
      if (vars[name]) return vars[name];
      if (op === '?') throw new Error(`${name}: ${arg}`);
      return op === '-' ? arg! : '';
    },
  );
}
/** A service's environment as compose gives it, with the operator's variables. */
const environment = (service: Service, vars: Record<string, string>) =>
  Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]));
const OPERATOR = { AUTH_EXTERNAL_ISSUER: 'https://login.example.com/realms/bank' };

function haproxyCheck(file: string) {
  return spawnSync('haproxy', ['-c', '-f', file], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin` },
  });
}

test('the services: a front, two API replicas, two back-end services, PostgreSQL, Redis and RabbitMQ', () => {
  assert.deepEqual(Object.keys(services).sort(), [
    'api',
    'backend-1',
    'backend-2',
    'front',
    'postgres',
    'rabbitmq',
    'redis',
  ]);
  assert.equal(services.api!.deploy?.replicas, 2);
  assert.deepEqual(services.api!.command, ['node', 'src/server.ts']);
  for (const name of ['backend-1', 'backend-2'])
    assert.deepEqual(services[name]!.command, ['node', 'bin/corebridge.ts', 'backend', 'serve'], name);
  assert.deepEqual(corebridge.map(([name]) => name).sort(), ['api', 'backend-1', 'backend-2']);
  assert.equal(services.api!.environment?.BACKEND_URL, 'tls://backend-1:7443,tls://backend-2:7443');
});

test('every service has a health check', () => {
  for (const [name, service] of Object.entries(services)) {
    const check = service.healthcheck?.test;
    assert.ok(Array.isArray(check) && check.length >= 2, `${name}: healthcheck.test`);
    assert.match(check[0]!, /^CMD(-SHELL)?$/, name);
    assert.ok(service.healthcheck?.interval, `${name}: interval`);
  }
  assert.match(services.api!.healthcheck!.test.join(' '), /\/health\/ready/);
});

test("the front's configuration passes haproxy -c, and a broken one does not", (t) => {
  const front = services.front!;
  assert.ok(front.volumes?.includes('./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro'));
  // Its error files are read beside it (default-path config), in the container as here.
  assert.ok(front.volumes?.includes(`./${ERROR_FILES_DIR}:/usr/local/etc/haproxy/${ERROR_FILES_DIR}:ro`));
  const ok = haproxyCheck(HAPROXY_CFG);
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-compose-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join('deploy', ERROR_FILES_DIR), join(dir, ERROR_FILES_DIR), { recursive: true });
  const copy = join(dir, 'haproxy.cfg');
  writeFileSync(copy, readFileSync(HAPROXY_CFG, 'utf8'));
  assert.equal(haproxyCheck(copy).status, 0, 'the copy passes: only the broken line fails the next one');
  const broken = join(dir, 'haproxy.cfg');
  writeFileSync(broken, readFileSync(HAPROXY_CFG, 'utf8').replace('retry-on conn-failure', 'retry-on conn-flure'));
  assert.notEqual(haproxyCheck(broken).status, 0);
});

test("the front keeps the stack's rules: forwardfor, retries of reads only, ready checks, problem+json errors", () => {
  const cfg = readFileSync(HAPROXY_CFG, 'utf8').split('\n');
  const generated = haproxyConfig({ host: '0.0.0.0', port: 8080, apis: [8081], requestTimeoutMs: 5000 }).split('\n');
  // Only where the servers are differs: compose's DNS names the replicas instead of loopback ports.
  const missing = generated.filter(
    (line) => line && !line.startsWith('#') && !/^\s*server /.test(line) && !cfg.includes(line),
  );
  assert.deepEqual(missing, []);
  assert.ok(cfg.some((line) => /^\s*server-template api- 1-10 api:8080 check .*resolvers compose/.test(line)));
  assert.deepEqual(services.front!.ports, ['8080:8080']);
  // The front's health check asks HAProxy's monitor page, which fails while no replica is ready.
  assert.ok(cfg.includes('  monitor-uri /healthz') && cfg.includes('  monitor fail if { nbsrv(apis) lt 1 }'));
  assert.match(services.front!.healthcheck!.test.join(' '), /127\.0\.0\.1\/8404.*GET \/healthz/);
});

test("the front's error files are the stack's: a 400 MALFORMED_REQUEST problem+json, for HAProxy's 400 and 408", () => {
  const files = haproxyErrorFiles();
  assert.deepEqual(Object.keys(files).sort(), ['400.http', '408.http']);
  for (const [name, text] of Object.entries(files)) {
    assert.equal(readFileSync(join('deploy', ERROR_FILES_DIR, name), 'utf8'), text, name);
    const [head, body] = text.split('\r\n\r\n') as [string, string];
    const [statusLine, ...fields] = head.split('\r\n');
    assert.equal(statusLine, 'HTTP/1.1 400 Bad Request', name);
    const headers = Object.fromEntries(fields.map((f) => f.split(': ') as [string, string]));
    assert.equal(headers['content-type'], 'application/problem+json', name);
    assert.equal(Number(headers['content-length']), Buffer.byteLength(body), name);
    const detail = name === '400.http' ? 'the request could not be read' : 'the request did not arrive within 10 s';
    assert.deepEqual(JSON.parse(body), toProblem(new ApiError('MALFORMED_REQUEST', detail), '', ''), name);
  }
});

test("TRUST_PROXY on the APIs is the front's network, which holds the front and the APIs only", () => {
  const subnet = compose.networks.front?.ipam?.config[0]?.subnet;
  assert.ok(subnet);
  assert.equal(services.api!.environment?.TRUST_PROXY, subnet);
  const members = Object.entries(services)
    .filter(([, s]) => s.networks?.includes('front'))
    .map(([name]) => name);
  assert.deepEqual(members.sort(), ['api', 'front']);
  assert.equal(compose.networks.front?.internal, true);
  // Only the front is published, and the APIs are not on its public network.
  for (const [name, service] of Object.entries(services)) if (name !== 'front') assert.equal(service.ports, undefined);
  assert.ok(!services.api!.networks?.includes('edge'));
  // The back-end services are reachable on the APIs' network only.
  for (const [name, service] of Object.entries(services))
    if (service.networks?.includes('backend')) assert.match(name, /^(api|backend-[12])$/);
});

test('secrets are files under deploy/secrets, gitignored, and no setting holds a value that is secret', () => {
  for (const [name, secret] of Object.entries(compose.secrets)) {
    assert.match(secret.file ?? '', /^\.\/secrets\/[\w.-]+$/, name);
    const path = join('deploy', secret.file!);
    assert.equal(spawnSync('git', ['check-ignore', '-q', path]).status, 0, `${path} is gitignored`);
  }
  for (const [name, service] of Object.entries(services)) {
    for (const s of secretsOf(service)) assert.ok(compose.secrets[s.source], `${name}: secret ${s.source} is defined`);
    for (const [key, value] of Object.entries(service.environment ?? {})) {
      const secret = ['DATABASE_URL', 'REDIS_URL', 'BROKER_URL', 'WEBHOOK_SECRET_KEY', 'POSTGRES_PASSWORD'];
      assert.ok(!secret.includes(key), `${name}: ${key} comes from a secret file, not the compose file`);
      assert.doesNotMatch(String(value), /:\/\/[^/@]*:[^/@]*@/, `${name}: ${key} holds no credentials`);
    }
  }
});

test("the issuer is the operator's to give: compose stops without it", () => {
  assert.throws(() => environment(services.api!, {}), /^Error: AUTH_EXTERNAL_ISSUER: set AUTH_EXTERNAL_ISSUER/);
  const env = environment(services.api!, OPERATOR);
  assert.equal(env.AUTH_EXTERNAL_ISSUER, OPERATOR.AUTH_EXTERNAL_ISSUER);
  assert.equal(env.AUTH_AUDIENCE, 'urn:corebridge:api');
});

test('the settings given to Corebridge are settings it reads', () => {
  const listed = new Set(
    [...readFileSync('.env.example', 'utf8').matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]),
  );
  for (const [name, service] of corebridge) {
    const names = [
      ...Object.keys(service.environment ?? {}),
      ...secretsOf(service).flatMap((s) => (s.target && ENV_NAME.test(s.target) ? [s.target] : [])),
    ];
    assert.deepEqual(
      names.filter((n) => n !== 'NODE_ENV' && !listed.has(n)),
      [],
      name,
    );
  }
});

test('the entrypoint turns the secrets named like settings into variables, and only those', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-compose-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'REDIS_URL'), 'redis://:s3cr3t-value@redis:6379\n');
  writeFileSync(join(dir, 'tls.key'), 'not a variable\n');
  const [shell, flag, script, arg0] = services.api!.entrypoint!;
  assert.equal(shell, '/bin/sh');
  // Compose's $$ is a literal $.
  const local = script!.replaceAll('$$', '$').replaceAll('/run/secrets', dir);
  const out = execFileSync(shell, [flag!, local, arg0!, 'env'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  assert.match(out, /^REDIS_URL=redis:\/\/:s3cr3t-value@redis:6379$/m);
  assert.doesNotMatch(out, /not a variable/);
});

test('production mode accepts what each Corebridge process is given, with the secrets compose-secrets.sh makes', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-compose-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const secrets = join(dir, 'secrets');
  execFileSync('sh', ['deploy/compose-secrets.sh', secrets], { stdio: 'pipe' });
  // It makes every file the compose file names, and refuses to overwrite them.
  for (const secret of Object.values(compose.secrets)) readFileSync(join(dir, secret.file!));
  assert.notEqual(spawnSync('sh', ['deploy/compose-secrets.sh', secrets]).status, 0);
  for (const [name, service] of corebridge) {
    const role: ProcessRole = name === 'api' ? 'api' : 'backend';
    // The container's /run/secrets, as a directory of its own.
    const run = join(dir, `run-${name}`);
    const mounted = (path: string) => path.replace(/^\/run\/secrets/, run);
    const env: Env = { DATA_DIR: join(dir, `data-${name}`) };
    for (const s of secretsOf(service)) {
      const from = join(dir, compose.secrets[s.source]!.file!);
      cpSync(from, mounted(mountPath(s)));
      if (s.target && ENV_NAME.test(s.target)) env[s.target] = readFileSync(from, 'utf8').trimEnd();
    }
    for (const [key, value] of Object.entries(environment(service, OPERATOR))) env[key] = mounted(value);
    assert.equal(env.NODE_ENV, 'production');
    const problems = productionProblems(loadConfig(env), role, env);
    assert.deepEqual(problems, [], `${name}: production mode refuses ${JSON.stringify(problems)}`);
  }
});

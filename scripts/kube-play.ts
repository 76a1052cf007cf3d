/**
 * The Kubernetes manifests under `podman kube play`, a stage of npm run test:container. deploy/kubernetes/backend.yaml
 * and api.yaml run as written but for one replica each (on host networking the replicas would share the host's
 * ports), with the settings of deploy/kubernetes/configmap.yaml, of which only what host networking needs is changed:
 * loopback addresses, free ports, and the external issuer, a fake OpenID issuer on loopback. The Secrets are made per
 * run: a test PKI (not the development CA, which production mode refuses), a keyring, a new PostgreSQL database and a
 * RabbitMQ user of the run's own. It checks both pods running, /health/ready, and a customer read with the issuer's
 * token through the API pod over mutual TLS from the back-end pod's database; then `podman kube down`. Everything it
 * made is removed at the end, also on failure.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import pg from 'pg';
import { parseAllDocuments, stringify } from 'yaml';
import { createCertificateAuthority } from '../src/tls/dev-pki.ts';
import { until } from '../src/until.ts';
import { createTestDatabase, dropTestDatabases } from '../support/database.ts';
import { serveFakeIssuer, type FakeIssuer } from '../support/fake-issuer.ts';
import { freePort } from '../support/free-port.ts';
import { DEFAULT_TAG, ROOT } from './image.ts';

const MANIFESTS = join(ROOT, 'deploy/kubernetes');
/** What the manifests name, which podman keeps machine-wide: a run refuses to start while any of them exists. */
const PODS = ['corebridge-backend-pod-0', 'corebridge-api-pod-0'];
const SECRETS = ['corebridge-secrets', 'corebridge-api-tls', 'corebridge-backend-tls'];
// podman 4.3 makes each emptyDir a named volume called as the pod's volume, and each secret volume one called as
// the Secret: api and backend share `data` and `tmp` here.
const VOLUMES = ['data', 'tmp', 'corebridge-api-tls', 'corebridge-backend-tls'];
const CONTAINERS = { backend: 'corebridge-backend-pod-0-backend', api: 'corebridge-api-pod-0-api' };

export class KubePlayFailure extends Error {}

type Check = (condition: boolean, what: string) => asserts condition;

function podman(
  args: string[],
  env?: Record<string, string>,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('podman', args, { encoding: 'utf8', ...(env ? { env: { ...process.env, ...env } } : {}) });
  if (result.error) throw new KubePlayFailure(`podman: ${result.error.message}`);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function rabbitmqctl(args: string[], input?: string): void {
  const result = spawnSync('rabbitmqctl', args, { encoding: 'utf8', ...(input === undefined ? {} : { input }) });
  if (result.error || result.status !== 0)
    throw new KubePlayFailure(`rabbitmqctl ${args[0]}: ${result.error?.message ?? result.stderr.trim()}`);
}

/**
 * What this run made, for the clean-up to remove, and nothing else. Once the names the manifests use were found free
 * (`names`), the pods, volumes and Secrets of those names are this run's.
 */
const made = {
  names: false,
  dir: null as string | null,
  rabbitUser: null as string | null,
  database: false,
  issuer: null as FakeIssuer | null,
  tag: false,
};
/** Set once the clean-up has begun: the stage makes nothing more (a signal's clean-up runs while it waits). */
let stopping = false;
let cleaning: Promise<void> | null = null;

function notStopping(): void {
  if (stopping) throw new KubePlayFailure('interrupted');
}

/**
 * Removes what the stage made; safe to call again, and from a signal handler: a call during a clean-up waits for that
 * one, so a process exits only once the database is dropped.
 */
export function cleanUpKubePlay(): Promise<void> {
  stopping = true;
  cleaning ??= removeMade().finally(() => {
    cleaning = null;
  });
  return cleaning;
}

async function removeMade(): Promise<void> {
  if (made.names) {
    for (const pod of PODS) spawnSync('podman', ['pod', 'rm', '--force', '--time', '0', pod]);
    spawnSync('podman', ['volume', 'rm', '--force', ...VOLUMES]);
    spawnSync('podman', ['secret', 'rm', ...SECRETS]);
    made.names = false;
  }
  if (made.tag) {
    spawnSync('podman', ['untag', DEFAULT_TAG]);
    made.tag = false;
  }
  if (made.rabbitUser) {
    spawnSync('rabbitmqctl', ['delete_user', made.rabbitUser]);
    made.rabbitUser = null;
  }
  if (made.issuer) {
    const issuer = made.issuer;
    made.issuer = null;
    await issuer.close();
  }
  if (made.database) {
    made.database = false;
    await dropTestDatabases();
  }
  if (made.dir) rmSync(made.dir, { recursive: true, force: true });
  made.dir = null;
}

/** The last lines of each container's log, for a failure report. */
export function kubePlayLogs(): string {
  return Object.values(CONTAINERS)
    .map((name) => {
      const logs = podman(['logs', '--tail', '30', name]);
      return `--- last lines of ${name}'s log\n${logs.stdout}${logs.stderr}`;
    })
    .join('');
}

/** An OpenID provider on loopback (support/fake-issuer.ts) publishing one key of its own; tokens it signs. */
async function startIssuer(): Promise<{ issuer: string; sign: (claims: Record<string, unknown>) => Promise<string> }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'kube-play', alg: 'ES256', use: 'sig' };
  notStopping();
  const idp = await serveFakeIssuer();
  made.issuer = idp;
  idp.publish([jwk]);
  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid })
      .setIssuer(idp.issuer)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  return { issuer: idp.issuer, sign };
}

/**
 * A manifest file as written, but for what host networking cannot run: a second replica (it would share the first
 * one's ports) and the containers' `ports` (podman 4.3 publishes each on the host, which host networking refuses).
 */
function forHostNetwork(file: string): string {
  return parseAllDocuments(readFileSync(join(MANIFESTS, file), 'utf8'))
    .map((doc) => {
      type Deployment = { replicas?: number; template: { spec: { containers: { ports?: unknown }[] } } };
      const object = doc.toJS() as { kind: string; spec: Deployment };
      if (object.kind === 'Deployment') {
        object.spec.replicas = 1;
        for (const container of object.spec.template.spec.containers) delete container.ports;
      }
      return stringify(object);
    })
    .join('---\n');
}

function containerState(name: string): string {
  return podman(['inspect', '--format', '{{.State.Status}}', name]).stdout.trim() || 'missing';
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
      .once('connect', () => {
        socket.destroy();
        resolve(true);
      })
      .once('error', () => resolve(false));
  });
}

/** Waits for `check`, failing at once when a container of the stage is no longer running. */
async function waitRunning(what: string, names: string[], check: () => Promise<boolean>): Promise<void> {
  await until(
    what,
    async () => {
      for (const name of names) {
        const state = containerState(name);
        if (state !== 'running') throw new KubePlayFailure(`${name} is ${state}, not running`);
      }
      return check();
    },
    60_000,
    250,
  );
}

function play(file: string, configMap: string): void {
  notStopping();
  const result = podman(['kube', 'play', '--network', 'host', '--configmap', configMap, file]);
  if (result.status !== 0) throw new KubePlayFailure(`podman kube play ${file}: ${result.stderr.trim()}`);
}

export async function kubePlay(image: string, check: Check): Promise<void> {
  const taken = [
    ...PODS.filter((pod) => podman(['pod', 'exists', pod]).status === 0).map((pod) => `pod ${pod}`),
    ...SECRETS.filter((name) => podman(['secret', 'inspect', name]).status === 0).map((name) => `secret ${name}`),
    ...VOLUMES.filter((name) => podman(['volume', 'exists', name]).status === 0).map((name) => `volume ${name}`),
  ];
  if (taken.length > 0)
    throw new KubePlayFailure(`podman already has ${taken.join(', ')}: remove them (an earlier run's?) first`);
  made.names = true;
  // The manifests' `image: corebridge` is localhost/corebridge:latest to podman.
  const imageId = (name: string) => podman(['image', 'inspect', '--format', '{{.Id}}', name]).stdout.trim();
  const current = imageId(DEFAULT_TAG);
  if (current !== imageId(image)) {
    if (current !== '')
      throw new KubePlayFailure(`${DEFAULT_TAG} exists and is not ${image}: the manifests would run it instead`);
    notStopping();
    if (podman(['tag', image, DEFAULT_TAG]).status !== 0) throw new KubePlayFailure(`podman tag ${image} failed`);
    made.tag = true;
  }
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-kube-'));
  made.dir = dir;

  // The Secrets' values, made for this run.
  const ca = await createCertificateAuthority({ commonName: 'Corebridge kube play test CA', days: 1 });
  const backendCert = await ca.issue({
    commonName: 'corebridge-backend',
    usage: 'server',
    // The Service's name, as in a cluster, and the loopback address the API dials on host networking.
    dnsNames: ['corebridge-backend'],
    ipAddresses: ['127.0.0.1'],
    days: 1,
  });
  const apiCert = await ca.issue({
    commonName: 'corebridge-api',
    usage: 'client',
    dnsNames: ['corebridge-api'],
    days: 1,
  });
  notStopping();
  made.database = true;
  const databaseUrl = await createTestDatabase({ prefix: 'corebridge_kube' });
  const rabbitUser = `corebridge_kube_${randomBytes(4).toString('hex')}`;
  const rabbitPassword = randomBytes(18).toString('base64url');
  // The password on standard input, not on a command line.
  notStopping();
  rabbitmqctl(['add_user', rabbitUser], `${rabbitPassword}\n`);
  made.rabbitUser = rabbitUser;
  rabbitmqctl(['set_permissions', '-p', '/', rabbitUser, '.*', '.*', '.*']);
  const values = {
    'database-url': databaseUrl,
    'redis-url': 'redis://127.0.0.1:6379',
    'broker-url': `amqp://${rabbitUser}:${rabbitPassword}@127.0.0.1:5672`,
    'webhook-secret-key': `k1:${randomBytes(32).toString('base64')}`,
  };
  // podman 4.3 reads a secretKeyRef's Secret as a JSON map of base64 values, and writes a secret volume's `data`
  // values to the files as they are (not base64-decoded). Given in podman's environment: in no file or argument.
  const secrets: Record<string, string> = {
    'corebridge-secrets': JSON.stringify(
      Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
    ),
    'corebridge-api-tls': tlsSecret('corebridge-api-tls', ca.cert, apiCert),
    'corebridge-backend-tls': tlsSecret('corebridge-backend-tls', ca.cert, backendCert),
  };
  for (const [name, data] of Object.entries(secrets)) {
    notStopping();
    const created = podman(['secret', 'create', '--env', name, 'COREBRIDGE_SECRET'], { COREBRIDGE_SECRET: data });
    if (created.status !== 0) throw new KubePlayFailure(`podman secret create ${name}: ${created.stderr.trim()}`);
  }

  // The ConfigMap as written, with what host networking needs: loopback and free ports (the pods share the host's
  // addresses), the back-end at 127.0.0.1, and the issuer on loopback (production mode accepts http there).
  const issuer = await startIssuer();
  const [apiPort, metricsPort, backendPort] = [await freePort(), await freePort(), await freePort()];
  const configMap = parseAllDocuments(readFileSync(join(MANIFESTS, 'configmap.yaml'), 'utf8'))[0]!.toJS() as {
    data: Record<string, string>;
  };
  Object.assign(configMap.data, {
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: String(metricsPort),
    AUTH_EXTERNAL_ISSUER: issuer.issuer,
    BACKEND_URL: `tls://127.0.0.1:${backendPort}`,
    BACKEND_LISTEN: `127.0.0.1:${backendPort}`,
  });
  const configMapFile = join(dir, 'configmap.yaml');
  writeFileSync(configMapFile, stringify(configMap));
  const files = { backend: join(dir, 'backend.yaml'), api: join(dir, 'api.yaml') };
  writeFileSync(files.backend, forHostNetwork('backend.yaml'));
  writeFileSync(files.api, forHostNetwork('api.yaml'));

  const started = Date.now();
  play(files.backend, configMapFile);
  await waitRunning(`the back-end pod accepting on ${backendPort}`, [CONTAINERS.backend], () => accepts(backendPort));
  check(true, `kube play backend.yaml: ${CONTAINERS.backend} running, accepting on 127.0.0.1:${backendPort}`);
  const refusal = await handshakeWithoutCertificate(backendPort, ca.cert);
  check(/CERTIFICATE_REQUIRED/.test(refusal), `the back-end pod refuses a client without a certificate (${refusal})`);

  // The demo data, loaded as an operator would, in the pod: the stage does not count on a start-up seeding an empty
  // store, which production mode need not do.
  notStopping();
  const seed = podman(['exec', CONTAINERS.backend, 'node', 'src/cli/seed.ts']);
  check(seed.status === 0, `demo data loaded from the back-end pod (node src/cli/seed.ts): ${seed.stdout.trim()}`);
  // A name only the back-end pod's database holds: the API answering it has read that database.
  const name = `Kube Play ${randomBytes(3).toString('hex')}`;
  await renameCustomer(databaseUrl, '1001', name);

  play(files.api, configMapFile);
  const base = `http://127.0.0.1:${apiPort}`;
  await waitRunning(`the API pod ready at ${base}/health/ready`, [CONTAINERS.api, CONTAINERS.backend], async () => {
    const response = await fetch(`${base}/health/ready`).catch(() => null);
    return response?.status === 200;
  });
  const pods = podman(['pod', 'ps', '--filter', 'name=^corebridge-', '--format', '{{.Name}} {{.Status}}']).stdout;
  check(
    PODS.every((pod) => pods.includes(`${pod} Running`)),
    `both pods running, the API's /health/ready 200 (${Date.now() - started} ms after the first kube play)`,
  );

  for (const name of Object.values(CONTAINERS)) {
    const uid = podman(['exec', name, 'node', '-p', 'process.getuid()']).stdout.trim();
    const readOnly = podman(['inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', name]).stdout.trim();
    check(uid === '10001' && readOnly === 'true', `${name}: uid ${uid}, read-only root file system`);
  }

  const audience = configMap.data['AUTH_AUDIENCE']!;
  const token = await issuer.sign({
    sub: 'ada',
    aud: audience,
    role: 'customer',
    customer_id: '1001',
    scope: 'customers:read accounts:read',
  });
  const read = await fetch(`${base}/v1/customers/1001`, { headers: { authorization: `Bearer ${token}` } });
  const customer = (await read.json()) as { customerId?: string; name?: string };
  check(
    read.status === 200 && customer.customerId === '1001' && customer.name === name,
    `GET /v1/customers/1001 with the issuer's token: 200, "${customer.name}" from the back-end pod over mutual TLS`,
  );
  const anonymous = await fetch(`${base}/v1/customers/1001`);
  check(anonymous.status === 401, 'without a token: 401');

  const stopping = Date.now();
  for (const file of [files.api, files.backend]) {
    const down = podman(['kube', 'down', file]);
    if (down.status !== 0) throw new KubePlayFailure(`podman kube down ${file}: ${down.stderr.trim()}`);
  }
  const left = PODS.filter((pod) => podman(['pod', 'exists', pod]).status === 0);
  check(left.length === 0, `podman kube down removed both pods (${Date.now() - stopping} ms)`);
}

/** A connection of its own that fails the call, not the process, when an interrupted run drops the database. */
async function renameCustomer(databaseUrl: string, customerId: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const result = await client.query('UPDATE customers SET name = $1 WHERE customer_id = $2', [name, customerId]);
    if (result.rowCount !== 1) throw new KubePlayFailure(`customer ${customerId} is not in the seeded store`);
  } finally {
    await client.end();
  }
}

/** What a TLS client without a certificate of its own gets from `port`: the error code, or what it got instead. */
function handshakeWithoutCertificate(port: number, ca: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'corebridge-backend' });
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
    // TLS 1.3: the server judges the client's (empty) certificate after the client's handshake has ended.
    socket.once('secureConnect', () => socket.write('\n'));
    socket.once('data', () => resolve('an answer'));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.once('close', () => resolve('closed without an error'));
  });
}

/** A TLS Secret as podman 4.3 mounts it: the PEM text itself under `data`. */
function tlsSecret(name: string, caCert: string, leaf: { cert: string; key: string }): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name },
    data: { 'ca.crt': caCert, 'tls.crt': leaf.cert, 'tls.key': leaf.key },
  });
}

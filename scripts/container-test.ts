/**
 * Container smoke test (npm run test:container): builds the image (npm run image, cached layers reused), runs it with
 * podman on host networking with its demo defaults, and checks through it: ready, the image's health check, a token
 * from the container's own `token` command, an order created and read, a payment and its replay under the same
 * Idempotency-Key, the balance moved once, a graceful stop, the order still there in a new container on the same
 * volume, and production mode's refusal of the demo defaults. Then the Kubernetes manifests under `podman kube play`
 * (scripts/kube-play.ts): both pods ready and a customer read through them. What it made is removed at the end, also
 * on failure. Without podman it fails.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { exitWithUsageIfAsked } from '../src/cli/help.ts';
import { until } from '../src/until.ts';
import { freePort } from '../support/free-port.ts';
import { buildImage, ImageError, requirePodman } from './image.ts';
import { cleanUpKubePlay, KubePlayFailure, kubePlay, kubePlayLogs } from './kube-play.ts';

exitWithUsageIfAsked(
  process.argv.slice(2),
  `usage: npm run test:container [-- --image NAME]
  Builds the image (npm run image) and runs a smoke check through it with podman, then deploy/kubernetes with
  podman kube play; --image tests NAME as it is, without building (tagged localhost/corebridge:latest for the
  manifests while they run). Needs podman, and for the manifests PostgreSQL, Redis and RabbitMQ (rabbitmqctl) on this
  machine (and root for the first build of the base image, see docs/deploy.md).`,
);
const { values: args } = parseArgs({ options: { image: { type: 'string' } } });

class SmokeFailure extends Error {}

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new SmokeFailure(what);
  process.stderr.write(`ok: ${what}\n`);
}

function podman(...podmanArgs: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('podman', podmanArgs, { encoding: 'utf8' });
  if (result.error) throw new ImageError(`podman: ${result.error.message}`);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const tag = `corebridge-smoke-${process.pid}`;
const volume = tag;
const containers: string[] = [];

/** Removes what this run started; nothing when no container was started (podman may be missing). */
function cleanUp(): void {
  if (containers.length === 0) return;
  for (const name of containers) spawnSync('podman', ['rm', '--force', '--time', '0', name]);
  spawnSync('podman', ['volume', 'rm', '--force', volume]);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    cleanUp();
    void cleanUpKubePlay().finally(() => process.exit(1));
  });

/**
 * Starts a container of the image on the test volume, as locked down as deploy/kubernetes runs it: read-only root
 * (podman gives /tmp a tmpfs), no capabilities, no privilege gain. `--health-interval disable`: no systemd timer here;
 * the test runs the check itself.
 */
function start(image: string, name: string, port: number): void {
  const env = { PORT: String(port), METRICS_PORT: '0', LOG_FORMAT: 'json', LOG_LEVEL: 'warn' };
  containers.push(name);
  const envArgs = Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
  const run = ['run', '--detach', '--name', name, '--network', 'host', '--health-interval', 'disable'];
  const locked = ['--read-only', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges'];
  const result = podman(...run, ...locked, '--volume', `${volume}:/data`, ...envArgs, image);
  if (result.status !== 0) throw new SmokeFailure(`podman run failed: ${result.stderr.trim()}`);
}

async function waitReady(name: string, base: string): Promise<void> {
  await until(
    `${name} ready at ${base}/health/ready`,
    async () => {
      const state = podman('inspect', '--format', '{{.State.Status}}', name).stdout.trim();
      if (state !== 'running') throw new SmokeFailure(`${name} is ${state}, not running`);
      const response = await fetch(`${base}/health/ready`).catch(() => null);
      return response?.status === 200;
    },
    60_000,
    250,
  );
}

async function smoke(image: string): Promise<void> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const first = `${tag}-1`;
  let started = Date.now();
  start(image, first, port);
  await waitReady(first, base);
  check(true, `ready in ${Date.now() - started} ms (/health/ready 200)`);
  check(podman('healthcheck', 'run', first).status === 0, "the image's HEALTHCHECK passes");
  const uid = podman('exec', first, 'node', '-p', 'process.getuid()').stdout.trim();
  check(uid !== '' && uid !== '0', `the server runs as a non-root user (uid ${uid})`);

  // The container's own token command signs with the key on its volume, as `npm run token` does beside a server.
  const tokenRun = podman('exec', first, 'node', 'src/cli/token.ts', 'ada');
  const token = tokenRun.stdout.trim();
  check(tokenRun.status === 0 && token.split('.').length === 3, 'a token for ada from `node src/cli/token.ts ada`');
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  const created = await fetch(`${base}/v1/orders`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ customerId: '1001', productId: 'P-100', quantity: 2 }),
  });
  const order = (await created.json()) as { orderId?: string; status?: string };
  const location = created.headers.get('location');
  check(created.status === 201 && !!order.orderId && location !== null, `order created: ${order.orderId}`);
  const read = await fetch(`${base}${location}`, { headers });
  const readBody = (await read.json()) as { orderId?: string };
  check(read.status === 200 && readBody.orderId === order.orderId, `order read back at ${location}`);

  const balance = async (): Promise<number> => {
    const response = await fetch(`${base}/v1/accounts/1001-01/balance`, { headers });
    const body = (await response.json()) as { balance?: number };
    if (response.status !== 200 || typeof body.balance !== 'number')
      throw new SmokeFailure(`balance answered ${response.status}: ${JSON.stringify(body)}`);
    return body.balance;
  };
  const before = await balance();
  const pay = () =>
    fetch(`${base}/v1/payments`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': `smoke-${process.pid}` },
      body: JSON.stringify({
        debtorAccount: '1001-01',
        creditorAccount: '1002-01',
        amount: 25.5,
        currency: 'EUR',
        reference: 'Container smoke',
      }),
    });
  const paid = await pay();
  const payment = (await paid.json()) as { paymentId?: string; status?: string };
  check(paid.status === 201 && payment.status === 'COMPLETED', `payment ${payment.paymentId} completed`);
  const replay = await pay();
  const replayed = (await replay.json()) as { paymentId?: string };
  check(
    replay.status === 201 &&
      replay.headers.get('idempotent-replayed') === 'true' &&
      replayed.paymentId === payment.paymentId,
    'the same Idempotency-Key answers the first payment again, Idempotent-Replayed: true',
  );
  const after = await balance();
  check(Math.round((before - after) * 100) === 2550, `the balance moved once: ${before} → ${after}`);

  started = Date.now();
  const stop = podman('stop', '--time', '15', first);
  const exit = podman('inspect', '--format', '{{.State.ExitCode}}', first).stdout.trim();
  check(stop.status === 0 && exit === '0', `SIGTERM stops the server gracefully (exit 0, ${Date.now() - started} ms)`);

  const second = `${tag}-2`;
  start(image, second, port);
  await waitReady(second, base);
  const again = await fetch(`${base}${location}`, { headers });
  check(again.status === 200, 'a new container on the same volume serves the order and accepts the same token');

  // The image leaves NODE_ENV to the operator; given production, it refuses the demo defaults it starts with.
  const production = spawnSync('podman', ['run', '--rm', '--network', 'none', '--env', 'NODE_ENV=production', image], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  check(
    production.status === 2 && /AUTH_ACCOUNTS_FILE/.test(production.stderr),
    'with NODE_ENV=production and nothing else the image exits 2 naming the settings to give',
  );
}

let failed = false;
let kubeStage = false;
try {
  requirePodman();
  let image = args.image;
  if (!image) {
    const building = Date.now();
    image = buildImage();
    process.stderr.write(`image built in ${Math.round((Date.now() - building) / 1000)} s\n`);
  }
  const testing = Date.now();
  await smoke(image);
  process.stderr.write(`container smoke test passed in ${Math.round((Date.now() - testing) / 1000)} s\n`);
  // The smoke test's containers go first: the stage's failure report shows the pods' logs alone.
  cleanUp();
  containers.length = 0;
  const playing = Date.now();
  kubeStage = true;
  await kubePlay(image, check);
  process.stderr.write(`kube play stage passed in ${Math.round((Date.now() - playing) / 1000)} s\n`);
} catch (error) {
  failed = true;
  const known = error instanceof SmokeFailure || error instanceof ImageError || error instanceof KubePlayFailure;
  process.stderr.write(`test:container: FAILED: ${known ? error.message : (error as Error).stack}\n`);
  for (const name of containers) {
    process.stderr.write(`--- last lines of ${name}'s log\n`);
    const logs = podman('logs', '--tail', '30', name);
    process.stderr.write(logs.stdout + logs.stderr);
  }
  if (kubeStage) process.stderr.write(kubePlayLogs());
} finally {
  cleanUp();
  await cleanUpKubePlay();
}
if (failed) process.exit(1);

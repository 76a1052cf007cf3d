/**
 * deploy/kubernetes: every manifest passes its Kubernetes schema (kubernetes-models), and the manifests hold together:
 * no Secret with values, probes and resources on every container, selectors that find their pods, settings that exist
 * and that production mode accepts, and the back-end reachable from the API only.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';
import { loadConfig, type Env } from '../../src/config.ts';
import { productionProblems, type ProcessRole } from '../../src/production.ts';
import { createCertificateAuthority } from '../../src/tls/dev-pki.ts';

const DIR = 'deploy/kubernetes';
const MODELS = { Deployment, HorizontalPodAutoscaler, NetworkPolicy, PodDisruptionBudget, ConfigMap, Service };
type Kind = keyof typeof MODELS;
type Labels = Record<string, string>;

/** A parsed YAML document: its shape is what the schema check is for, so the rest is read as the tests need. */
interface Manifest {
  file: string;
  kind: string;
  metadata: { name: string };
  [field: string]: any;
}

function parse(file: string, text: string): Manifest[] {
  return parseAllDocuments(text).map((doc) => {
    assert.equal(doc.errors.length, 0, `${file}: ${doc.errors.join('; ')}`);
    return { file, ...(doc.toJS() as Omit<Manifest, 'file'>) } as Manifest;
  });
}

const files = readdirSync(DIR).filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml');
const manifests = files.flatMap((name) => parse(name, readFileSync(join(DIR, name), 'utf8')));
const ofKind = <T>(kind: Kind) => manifests.filter((m) => m.kind === kind) as (T & Manifest)[];

/** The schema check of one object: what kubernetes-models' validate() throws, or null. */
function schemaError(manifest: Manifest): string | null {
  const Model = MODELS[manifest.kind as Kind];
  if (!Model) return `${manifest.kind} is not a kind these manifests use`;
  const { file: _file, ...object } = manifest;
  const model = new (Model as new (data: object) => { validate(): void })(object);
  try {
    model.validate();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

const matches = (selector: Labels, labels: Labels | undefined) =>
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

interface PodTemplate {
  metadata: { labels: Labels };
  spec: {
    containers: {
      name: string;
      env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
      envFrom?: { configMapRef?: { name: string } }[];
      readinessProbe?: object;
      livenessProbe?: object;
      resources?: { requests?: Labels; limits?: Labels };
      securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean };
    }[];
    securityContext?: { runAsNonRoot?: boolean };
    volumes?: { secret?: { secretName: string; optional?: boolean } }[];
  };
}
type DeploymentShape = { spec: { selector: { matchLabels: Labels }; template: PodTemplate } };
const deployments = ofKind<DeploymentShape>('Deployment');
const deployment = (component: string) => {
  const found = deployments.find((d) => d.spec.template.metadata.labels['app.kubernetes.io/component'] === component);
  assert.ok(found, `a Deployment of the ${component}`);
  return found;
};

test('every manifest passes its Kubernetes schema', () => {
  assert.ok(manifests.length >= 8, `found ${manifests.length} manifests`);
  for (const manifest of manifests) assert.equal(schemaError(manifest), null, `${manifest.file}: ${manifest.kind}`);
});

test('the schema check refuses a manifest of the wrong shape', () => {
  const api = deployment('api');
  const broken: Manifest = structuredClone(api);
  broken.spec.replicas = 'two';
  assert.match(schemaError(broken) ?? '', /replicas must be integer/);
  const noContainers: Manifest = structuredClone(api);
  delete noContainers.spec.template.spec.containers;
  assert.match(schemaError(noContainers) ?? '', /containers/);
});

test('the kustomization lists every manifest file', () => {
  const kustomization = parse('kustomization.yaml', readFileSync(join(DIR, 'kustomization.yaml'), 'utf8'))[0]!;
  assert.deepEqual([...(kustomization.resources as string[])].sort(), [...files].sort());
});

test('no Secret is committed; the Secrets the pods use are only referenced', () => {
  assert.deepEqual(
    manifests.filter((m) => m.kind === 'Secret').map((m) => m.metadata.name),
    [],
  );
  const referenced = new Set<string>();
  for (const d of deployments) {
    for (const v of d.spec.template.spec.volumes ?? []) if (v.secret) referenced.add(v.secret.secretName);
    for (const c of d.spec.template.spec.containers)
      for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) referenced.add(e.valueFrom.secretKeyRef.name);
  }
  assert.deepEqual([...referenced].sort(), ['corebridge-api-tls', 'corebridge-backend-tls', 'corebridge-secrets']);
  const docs = readFileSync('docs/deploy.md', 'utf8');
  for (const name of referenced) assert.ok(docs.includes(name), `docs/deploy.md says what ${name} holds`);
});

test('secret volumes say optional: false, the default, which podman kube play 4.3 needs said', () => {
  const volumes = deployments.flatMap((d) => d.spec.template.spec.volumes ?? []).filter((v) => v.secret);
  assert.equal(volumes.length, 2);
  for (const volume of volumes) assert.equal(volume.secret?.optional, false, volume.secret?.secretName);
});

test('every container has probes, resource requests and limits, and runs unprivileged', () => {
  for (const d of deployments) {
    assert.equal(d.spec.template.spec.securityContext?.runAsNonRoot, true, d.metadata.name);
    for (const c of d.spec.template.spec.containers) {
      const where = `${d.metadata.name}/${c.name}`;
      assert.ok(c.readinessProbe && c.livenessProbe, `${where}: readiness and liveness probes`);
      for (const resource of ['cpu', 'memory']) {
        assert.ok(c.resources?.requests?.[resource], `${where}: ${resource} request`);
        assert.ok(c.resources?.limits?.[resource], `${where}: ${resource} limit`);
      }
      assert.equal(c.securityContext?.allowPrivilegeEscalation, false, where);
      assert.equal(c.securityContext?.readOnlyRootFilesystem, true, where);
    }
  }
});

test('the settings given to the pods are settings Corebridge reads', () => {
  const listed = new Set(
    [...readFileSync('.env.example', 'utf8').matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]),
  );
  const configMaps = ofKind<{ data: Labels }>('ConfigMap');
  const names = [
    ...configMaps.flatMap((m) => Object.keys(m.data)),
    ...deployments.flatMap((d) => d.spec.template.spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.name))),
  ];
  assert.deepEqual(
    names.filter((name) => !listed.has(name)),
    [],
  );
  for (const d of deployments)
    for (const c of d.spec.template.spec.containers)
      for (const source of c.envFrom ?? [])
        assert.ok(
          configMaps.some((m) => m.metadata.name === source.configMapRef?.name),
          `${d.metadata.name}`,
        );
});

test('Services, disruption budgets and the autoscaler find their pods', () => {
  for (const d of deployments)
    assert.ok(matches(d.spec.selector.matchLabels, d.spec.template.metadata.labels), d.metadata.name);
  const services = ofKind<{ spec: { selector: Labels } }>('Service');
  const budgets = ofKind<{ spec: { selector: { matchLabels: Labels } } }>('PodDisruptionBudget');
  for (const component of ['api', 'backend']) {
    const labels = deployment(component).spec.template.metadata.labels;
    assert.ok(
      services.some((s) => matches(s.spec.selector, labels)),
      `a Service of the ${component}`,
    );
    assert.ok(
      budgets.some((b) => matches(b.spec.selector.matchLabels, labels)),
      `a PodDisruptionBudget of the ${component}`,
    );
  }
  const [hpa] = ofKind<{ spec: { scaleTargetRef: { kind: string; name: string } } }>('HorizontalPodAutoscaler');
  assert.deepEqual(hpa?.spec.scaleTargetRef, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: deployment('api').metadata.name,
  });
});

test('a NetworkPolicy lets only the API reach the back-end', () => {
  type Peer = { podSelector?: { matchLabels: Labels }; namespaceSelector?: object; ipBlock?: object };
  type Policy = { spec: { podSelector: { matchLabels: Labels }; ingress: { from: Peer[] }[] } };
  const backend = deployment('backend').spec.template.metadata.labels;
  const api = deployment('api').spec.template.metadata.labels;
  const guarding = ofKind<Policy>('NetworkPolicy').filter((p) => matches(p.spec.podSelector.matchLabels, backend));
  assert.equal(guarding.length, 1);
  const peers = guarding[0]!.spec.ingress.flatMap((rule) => rule.from);
  assert.ok(peers.length > 0, 'an ingress rule with peers (an empty one would let everyone in)');
  for (const peer of peers) {
    assert.equal(peer.ipBlock, undefined);
    assert.equal(peer.namespaceSelector, undefined);
    assert.ok(peer.podSelector && matches(peer.podSelector.matchLabels, api), 'the peer is the API');
    assert.ok(!matches(peer.podSelector.matchLabels, backend), 'and not the back-end itself');
  }
});

test('production mode accepts what the manifests give each process, with Secrets of the documented keys', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-k8s-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The Secrets' values, made here: an operator's own PKI, a keyring, service URLs with generated passwords.
  const ca = await createCertificateAuthority({ commonName: 'Example Bank Issuing CA', days: 1 });
  const pem = {
    api: await ca.issue({ commonName: 'corebridge-api', usage: 'client', dnsNames: ['corebridge-api'], days: 1 }),
    backend: await ca.issue({
      commonName: 'corebridge-backend',
      usage: 'server',
      dnsNames: ['corebridge-backend'],
      days: 1,
    }),
  };
  const password = () => randomBytes(12).toString('hex');
  const secretValues: Record<string, string> = {
    'database-url': `postgres://corebridge:${password()}@postgres:5432/corebridge`,
    'redis-url': `redis://:${password()}@redis:6379`,
    'broker-url': `amqp://corebridge:${password()}@rabbitmq:5672`,
    'webhook-secret-key': `k1:${randomBytes(32).toString('base64')}`,
  };
  const [configMap] = ofKind<{ data: Labels }>('ConfigMap');
  for (const [component, role] of [
    ['api', 'api'],
    ['backend', 'backend'],
  ] as const) {
    const container = deployment(component).spec.template.spec.containers[0]!;
    const tls = join(dir, component);
    const files = { 'ca.crt': ca.cert, 'tls.crt': pem[component].cert, 'tls.key': pem[component].key };
    mkdirSync(tls);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(tls, name), text, { mode: 0o600 });
    const env: Env = { DATA_DIR: join(dir, `data-${component}`) };
    for (const [name, value] of Object.entries(configMap!.data)) env[name] = value.replace('/etc/corebridge/tls', tls);
    for (const e of container.env ?? []) {
      const ref = e.valueFrom?.secretKeyRef;
      const value = ref ? secretValues[ref.key] : e.value;
      assert.ok(value !== undefined, `${component}: ${e.name} from ${ref?.name}/${ref?.key}, a documented key`);
      env[e.name] = value;
    }
    assert.equal(env.NODE_ENV, 'production');
    const problems = productionProblems(loadConfig(env), role as ProcessRole, env);
    assert.deepEqual(problems, [], `${component}: production mode refuses ${JSON.stringify(problems)}`);
  }
});

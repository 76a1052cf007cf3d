import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  checkUrl,
  checkUrlResolved,
  compilePolicy,
  createGuardedClient,
  createGuardedDispatcher,
  guardedFetch,
  guardedLookup,
  OutboundRefusedError,
  type OutboundPolicy,
  type RefusalReason,
  type Resolver,
} from '../../src/outbound/url-guard.ts';

function reasonOf(url: string, policy: OutboundPolicy = {}): RefusalReason | 'allowed' {
  const result = checkUrl(url, policy);
  return result.allowed ? 'allowed' : result.reason;
}

test('public https URLs pass; schemes, userinfo and ports are checked', () => {
  assert.equal(reasonOf('https://hooks.example.com/corebridge'), 'allowed');
  assert.equal(reasonOf('https://93.184.216.34/x'), 'allowed');
  assert.equal(reasonOf('http://hooks.example.com/'), 'scheme_not_allowed');
  assert.equal(reasonOf('http://hooks.example.com/', { allowHttp: true }), 'allowed');
  for (const scheme of [
    'file:///etc/passwd',
    'gopher://example.com/',
    'ftp://example.com/',
    'data:text/plain,x',
    'javascript:alert(1)',
  ]) {
    assert.equal(reasonOf(scheme), 'scheme_not_allowed', scheme);
  }
  assert.equal(reasonOf('https://user:pw@hooks.example.com/'), 'userinfo_not_allowed');
  assert.equal(reasonOf('https://hooks.example.com@169.254.169.254/'), 'userinfo_not_allowed');
  assert.equal(reasonOf('https://hooks.example.com:8443/'), 'port_not_allowed');
  assert.equal(reasonOf('https://hooks.example.com:8443/', { allowedPorts: [8443] }), 'allowed');
  assert.equal(reasonOf('not a url'), 'invalid_url');
  assert.equal(reasonOf('/relative'), 'invalid_url');
});

test('internal addresses are refused in every spelling', () => {
  const internal = [
    'https://127.0.0.1/',
    'https://127.1/',
    'https://2130706433/',
    'https://0x7f.0.0.1/',
    'https://0177.0.0.1/',
    'https://0x7f000001/',
    'https://localhost/',
    'https://api.localhost/',
    'https://0.0.0.0/',
    'https://[::1]/',
    'https://[::]/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fe80::1]/',
    'https://169.254.170.2/',
    'https://100.100.100.200/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://172.31.255.255/',
    'https://192.168.1.1/',
    'https://[fc00::1]/',
    'https://[fd00:ec2::254]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[::ffff:169.254.169.254]/',
    'https://[::127.0.0.1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:7f00:1::]/',
    'https://224.0.0.1/',
    'https://[ff02::1]/',
    'https://255.255.255.255/',
    'https://198.18.0.1/',
    'https://192.0.0.170/',
    'https://127.0.0.1./',
    'https://0x7f.1/',
    'https://017700000001/',
    'https://0/',
    'https://\uff11\uff12\uff17.0.0.1/',
    'https://LOCALHOST./',
    'https://[0:0:0:0:0:ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://100.64.0.1/',
    // the IANA special-purpose ranges that are not globally reachable
    'https://[3fff::1]/',
    'https://[3fff:fff:ffff::1]/',
    'https://[2001:db8::1]/',
    'https://[2001:2::1]/',
    'https://[2001:1::1]/',
    'https://[2001:10::1]/',
    'https://[100::1]/',
    'https://[100:0:0:1::1]/',
    'https://[5f00::1]/',
    'https://[fec0::1]/',
    'https://192.0.2.1/',
    'https://198.51.100.1/',
    'https://203.0.113.1/',
    'https://192.88.99.1/',
  ];
  for (const url of internal) assert.equal(reasonOf(url), 'address_not_allowed', url);
  // public neighbours of those ranges are fine
  for (const url of [
    'https://172.32.0.1/',
    'https://11.0.0.1/',
    'https://[2606:4700::1111]/',
    'https://169.255.0.1/',
    'https://[3fff:1000::1]/',
    'https://[2001:200::1]/',
    'https://[5f01::1]/',
  ]) {
    assert.equal(reasonOf(url), 'allowed', url);
  }
});

test('a host allowlist admits exact names and subdomains of *.suffix only', () => {
  const policy = { allowedHosts: ['hooks.partner.com', '*.bank.example'] };
  assert.equal(reasonOf('https://hooks.partner.com/x', policy), 'allowed');
  assert.equal(reasonOf('https://eu.bank.example/x', policy), 'allowed');
  assert.equal(reasonOf('https://bank.example/x', policy), 'host_not_allowed');
  assert.equal(reasonOf('https://evilbank.example/x', policy), 'host_not_allowed');
  assert.equal(reasonOf('https://hooks.partner.com.evil.com/x', policy), 'host_not_allowed');
  assert.equal(reasonOf('https://93.184.216.34/', policy), 'host_not_allowed');
  assert.equal(reasonOf('https://10.1.2.3/', { allowedCidrs: ['10.1.2.0/24'] }), 'allowed');
  assert.throws(() => compilePolicy({ allowedCidrs: ['10.1.2.0/33'] }), /not an IPv4 or IPv6 range/);
});

/** A resolver that answers from a script, one answer per call, as a rebinding DNS server would. */
function scriptedResolver(answers: string[][]): { resolve: Resolver; calls: () => number } {
  let calls = 0;
  const resolve: Resolver = (_host, _options, callback) => {
    const answer = answers[Math.min(calls, answers.length - 1)]!;
    calls++;
    callback(
      null,
      answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return { resolve, calls: () => calls };
}

test('the connected address is checked at connect time: DNS answers naming internal addresses are refused', async () => {
  const policy = compilePolicy({});
  for (const answer of [['127.0.0.1'], ['93.184.216.34', '169.254.169.254'], ['::ffff:10.0.0.1'], ['fd00::1']]) {
    const lookup = guardedLookup(policy, scriptedResolver([answer]).resolve);
    const err = await new Promise<Error | null>((resolve) =>
      lookup('hooks.example.com', { all: true }, (e) => resolve(e)),
    );
    assert.ok(err instanceof OutboundRefusedError, `${answer.join(',')} was not refused`);
    assert.equal(err.reason, 'address_not_allowed');
  }
  const ok = guardedLookup(policy, scriptedResolver([['93.184.216.34']]).resolve);
  const address = await new Promise<string>((resolve, reject) =>
    ok('hooks.example.com', {}, (e, a) => (e ? reject(e) : resolve(a as string))),
  );
  assert.equal(address, '93.184.216.34');

  // rebinding: the name passes the URL check, then resolves to the metadata address when the socket opens
  const dns = scriptedResolver([['169.254.169.254']]);
  const client = createGuardedClient({ allowedHosts: ['*.example.test'] }, { lookup: dns.resolve, timeoutMs: 2000 });
  await assert.rejects(
    client.request('https://rebind.example.test/hook', { method: 'POST', body: '{}' }),
    (e: unknown) => e instanceof OutboundRefusedError && e.reason === 'address_not_allowed',
  );
  assert.equal(dns.calls(), 1);
  await client.close();
});

function tlsMaterial(dir: string): { key: Buffer; cert: Buffer } {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:hooks.example.test',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

test('redirects are followed only to allowed targets; a refused target receives nothing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-outbound-'));
  const { key, cert } = tlsMaterial(dir);
  rmSync(dir, { recursive: true, force: true });
  let insideHits = 0;
  let hookHits = 0;
  const inside = createHttpServer((_req, res) => {
    insideHits++;
    res.end('internal');
  });
  const insidePort = await listen(inside);
  let targets: Record<string, string> = {};
  const hook = createHttpsServer({ key, cert }, (req, res) => {
    hookHits++;
    const to = targets[req.url ?? ''];
    if (to) {
      res.writeHead(302, { location: to });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`hello ${req.method}`);
  });
  // eslint-disable-next-line no-restricted-syntax -- an HTTPS server listens as an HTTP one does
  const hookPort = await listen(hook as unknown as Server);
  t.after(() => {
    inside.close();
    hook.close();
  });
  const base = `https://127.0.0.1:${hookPort}`;
  targets = {
    '/to-metadata': 'https://169.254.169.254/latest/meta-data/',
    '/to-inside': `http://127.0.0.1:${insidePort}/`,
    '/to-inside-https': `https://127.0.0.1:${insidePort}/`,
    '/to-self': '/final',
    '/loop': '/loop',
  };
  const client = createGuardedClient(
    { allowedCidrs: ['127.0.0.1/32'], allowedPorts: [hookPort] },
    { tls: { ca: cert }, timeoutMs: 3000 },
  );
  t.after(() => client.close());

  const plain = await client.request(`${base}/hook`, { method: 'POST', body: '{"event":"LoanApproved"}' });
  assert.deepEqual([plain.status, await plain.text()], [200, 'hello POST']);
  const followed = await client.request(`${base}/to-self`);
  assert.deepEqual([followed.status, await followed.text()], [200, 'hello GET']);

  const refused = async (path: string, reason: RefusalReason) => {
    await assert.rejects(
      client.request(`${base}${path}`),
      (e: unknown) => e instanceof OutboundRefusedError && e.reason === reason,
      path,
    );
  };
  await refused('/to-metadata', 'address_not_allowed');
  await refused('/to-inside', 'scheme_not_allowed');
  await refused('/to-inside-https', 'port_not_allowed');
  await refused('/loop', 'too_many_redirects');
  assert.equal(insideHits, 0, 'a refused redirect target received a request');
  // 2 + 2 for the calls that succeeded, 1 each for the three refused redirects, 1 + 3 hops for the loop
  assert.equal(hookHits, 10);
});

test('DNS rebinding: a name checked as public at registration that resolves to loopback when called is refused before connecting', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-outbound-'));
  const { key, cert } = tlsMaterial(dir);
  rmSync(dir, { recursive: true, force: true });
  let hits = 0;
  const server = createHttpsServer({ key, cert }, (_req, res) => {
    hits++;
    res.end('reached');
  });
  // eslint-disable-next-line no-restricted-syntax -- an HTTPS server listens as an HTTP one does
  const port = await listen(server as unknown as Server);
  t.after(() => server.close());
  const url = `https://hooks.example.test:${port}/hook`;
  const tls = { ca: cert };

  // control: with loopback explicitly allowed, the same name really does reach the local server
  const direct = await guardedFetch(
    url,
    {},
    { allowedCidrs: ['127.0.0.1/32'], allowedPorts: [port] },
    { lookup: scriptedResolver([['127.0.0.1']]).resolve, tls },
  );
  assert.deepEqual([direct.status, await direct.text(), hits], [200, 'reached', 1]);

  for (const internal of ['127.0.0.1', '169.254.169.254']) {
    // first answer public (registration check), every later answer internal
    const dns = scriptedResolver([['93.184.216.34'], [internal]]);
    const policy = { allowedPorts: [port] };
    assert.deepEqual(await checkUrlResolved(url, policy, dns.resolve), checkUrl(url, policy));
    await assert.rejects(
      guardedFetch(url, { method: 'POST', body: '{}' }, policy, { lookup: dns.resolve, tls, timeoutMs: 2000 }),
      (e: unknown) =>
        e instanceof OutboundRefusedError && e.reason === 'address_not_allowed' && e.message.includes(internal),
    );
    assert.equal(dns.calls(), 2);
  }
  assert.equal(hits, 1, 'the server was reached through a rebound name');
});

test('registration-time check: names resolving to internal addresses, or not at all, are refused', async () => {
  const refuse = (answers: string[][]) => scriptedResolver(answers).resolve;
  const reason = async (lookup: Resolver, policy: OutboundPolicy = {}) => {
    const r = await checkUrlResolved('https://hooks.example.test/x', policy, lookup);
    return r.allowed ? 'allowed' : r.reason;
  };
  assert.equal(await reason(refuse([['10.0.0.5']])), 'address_not_allowed');
  assert.equal(await reason(refuse([['93.184.216.34', 'fd00::5']])), 'address_not_allowed');
  assert.equal(await reason(refuse([['93.184.216.34', '2606:4700::1111']])), 'allowed');
  assert.equal(await reason(refuse([['10.0.0.5']]), { allowedCidrs: ['10.0.0.0/24'] }), 'allowed');
  assert.equal(await reason(refuse([[]])), 'host_not_resolved');
  const failing: Resolver = (_h, _o, cb) => cb(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), []);
  assert.equal(await reason(failing), 'host_not_resolved');
  // URL rules come first, without any lookup
  assert.equal(
    ((await checkUrlResolved('http://hooks.example.test/', {}, failing)) as { reason: string }).reason,
    'scheme_not_allowed',
  );
});

test('createGuardedDispatcher refuses a connection to a disallowed address for any undici call', async () => {
  const { request } = await import('undici');
  const dispatcher = createGuardedDispatcher({}, { lookup: scriptedResolver([['169.254.169.254']]).resolve });
  try {
    await assert.rejects(request('https://metadata.example.test/', { dispatcher }), (e: unknown) => {
      let x: unknown = e;
      while (x instanceof Error && !(x instanceof OutboundRefusedError)) x = (x as Error & { cause?: unknown }).cause;
      return x instanceof OutboundRefusedError && x.reason === 'address_not_allowed';
    });
  } finally {
    await dispatcher.close();
  }
});

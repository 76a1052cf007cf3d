/**
 * `corebridge certs`: the development PKI for the mutual TLS between API instances and back-end services,
 * under DATA_DIR/certs (owner-only). `--issue NAME --usage client|server` adds a certificate from the same
 * CA (another API identity, or a renewal). Production uses the organisation's PKI (docs/operations.md).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { devPkiFiles } from '../tls/dev-files.ts';
import { UsageError, type Io } from './usage.ts';

export const CERTS_USAGE = `usage: corebridge certs [--force] [--days N]
       corebridge certs --issue NAME --usage client|server [--dns NAME]... [--ip ADDRESS]... [--days N]
Without --dns, NAME is also the certificate's SAN DNS name (allowlists such as BACKEND_ALLOWED_CLIENTS match
SAN entries only). Files go to DATA_DIR/certs (DATA_DIR from the environment, default ./data).`;

function writeOwnerOnly(file: string, content: string): void {
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its mode on write
}

/** Makes the development PKI and writes it, owner-only, where the settings look by default. */
export async function writeDevelopmentPki(files: ReturnType<typeof devPkiFiles>, days?: number): Promise<void> {
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  chmodSync(files.dir, 0o700);
  const { createDevelopmentPki } = await import('../tls/dev-pki.ts');
  const pki = await createDevelopmentPki(days ? { days } : {});
  writeOwnerOnly(files.caCert, pki.ca.cert);
  writeOwnerOnly(files.caKey, pki.ca.key);
  writeOwnerOnly(files.backendCert, pki.backend.cert);
  writeOwnerOnly(files.backendKey, pki.backend.key);
  writeOwnerOnly(files.apiCert, pki.api.cert);
  writeOwnerOnly(files.apiKey, pki.api.key);
}

export async function certsCommand(args: string[], io: Io): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      allowPositionals: false,
      options: {
        force: { type: 'boolean' },
        days: { type: 'string' },
        issue: { type: 'string' },
        usage: { type: 'string' },
        dns: { type: 'string', multiple: true },
        ip: { type: 'string', multiple: true },
      },
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${CERTS_USAGE}`);
  }
  const days = values.days === undefined ? undefined : Number(values.days);
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 3650))
    throw new UsageError(`--days must be a whole number from 1 to 3650\n${CERTS_USAGE}`);
  // the configuration and the PKI's modules (an X.509 library among them) only past the arguments, not for --help
  const { loadConfig, processEnv } = await import('../config.ts');
  const { devPkiFiles } = await import('../tls/dev-files.ts');
  const { loadCertificateAuthority } = await import('../tls/dev-pki.ts');
  const files = devPkiFiles(loadConfig(processEnv()).dataDir);

  if (values.issue !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9.-]{0,62}$/.test(values.issue))
      throw new UsageError('--issue NAME: letters, digits, dots and hyphens, at most 63');
    if (values.usage !== 'client' && values.usage !== 'server')
      throw new UsageError(`--issue needs --usage client or --usage server\n${CERTS_USAGE}`);
    if (!existsSync(files.caCert) || !existsSync(files.caKey))
      throw new UsageError(`no CA in ${files.dir}: run corebridge certs first`, 1);
    const ca = await loadCertificateAuthority(readFileSync(files.caCert, 'utf8'), readFileSync(files.caKey, 'utf8'));
    const leaf = await ca.issue({
      commonName: values.issue,
      usage: values.usage,
      // Allowlists match SAN entries only: a certificate named NAME is found by it.
      dnsNames: values.dns ?? [values.issue],
      ipAddresses: values.ip ?? [],
      ...(days ? { days } : {}),
    });
    const cert = join(files.dir, `${values.issue}.crt`);
    const key = join(files.dir, `${values.issue}.key`);
    writeOwnerOnly(cert, leaf.cert);
    writeOwnerOnly(key, leaf.key);
    io.stdout.write(`${values.usage} certificate for ${values.issue}:\n  ${cert}\n  ${key}\n`);
    return 0;
  }

  if (values.usage !== undefined || values.dns !== undefined || values.ip !== undefined)
    throw new UsageError(`--usage, --dns and --ip go with --issue\n${CERTS_USAGE}`);
  if (existsSync(files.caCert) && !values.force) {
    throw new UsageError(
      `${files.dir} already holds certificates; --force makes a new CA and replaces them all (every API and back-end instance then needs the new files)`,
      1,
    );
  }
  await writeDevelopmentPki(files, days);
  io.stdout.write(`Development certificates in ${files.dir} (owner-only):
  ca.crt, ca.key            the CA both sides trust (keep ca.key private)
  backend.crt, backend.key  the back-end service (corebridge-backend; localhost, 127.0.0.1, ::1)
  api.crt, api.key          the API instances' client certificate (corebridge-api)
With the same DATA_DIR these are the defaults: npm run backend, then BACKEND_URL=tls://127.0.0.1:7443 npm start.
`);
  return 0;
}

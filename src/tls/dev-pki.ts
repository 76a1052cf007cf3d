/**
 * A development PKI for the mutual TLS between API instances and back-end services: one CA, a server
 * certificate for the back-end, a client certificate for the API (`npm run certs`). Tests make theirs the
 * same way, at run time. Production uses the organisation's own PKI (docs/operations.md).
 */
import 'reflect-metadata'; // @peculiar/x509 resolves its parts through tsyringe, which needs it loaded first
import { createPrivateKey, KeyObject, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { DEV_API_CLIENT_NAME, DEV_BACKEND_NAME, DEV_CA_NAME } from './dev-files.ts';

// Node's Web Crypto, which @peculiar/x509 uses for every key and signature.
x509.cryptoProvider.set(globalThis.crypto);
type KeyPair = webcrypto.CryptoKeyPair;

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

export interface IssuedCertificate {
  /** PEM. */
  cert: string;
  /** PEM, PKCS #8. */
  key: string;
}

export interface CertificateAuthority extends IssuedCertificate {
  issue(options: LeafOptions): Promise<IssuedCertificate>;
}

export interface LeafOptions {
  commonName: string;
  /** serverAuth for a listener, clientAuth for a caller. */
  usage: 'server' | 'client';
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
  days?: number;
}

function serialNumber(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0]! &= 0x7f; // a positive INTEGER
  return Buffer.from(bytes).toString('hex');
}

/** PKCS #8 PEM, written by Node's crypto: no key material or key format lives in this file. */
async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  return String(KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }));
}

function validity(days: number) {
  // A minute back: a peer whose clock is slightly behind still accepts a certificate made just now.
  const notBefore = new Date(Date.now() - 60_000);
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS) };
}

/** A new CA (its key stays with whoever runs it) that issues leaf certificates. */
export async function createCertificateAuthority(options: {
  commonName: string;
  days?: number;
}): Promise<CertificateAuthority> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as KeyPair;
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=${options.commonName}`,
    keys,
    signingAlgorithm: ALGORITHM,
    ...validity(options.days ?? 365),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return authority(caCert, keys.privateKey);
}

/** A CA made before (its PEM certificate and PKCS #8 key), to issue more certificates. */
export async function loadCertificateAuthority(certPem: string, keyPem: string): Promise<CertificateAuthority> {
  const caCert = new x509.X509Certificate(certPem);
  const key = createPrivateKey(keyPem).toCryptoKey(ALGORITHM, true, ['sign']) as webcrypto.CryptoKey;
  return authority(caCert, key);
}

async function authority(caCert: x509.X509Certificate, signingKey: webcrypto.CryptoKey): Promise<CertificateAuthority> {
  return {
    cert: caCert.toString('pem') + '\n',
    key: await keyPem(signingKey),
    async issue(leaf) {
      const leafKeys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as KeyPair;
      const names = [
        ...(leaf.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
        ...(leaf.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
      ];
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serialNumber(),
        subject: `CN=${leaf.commonName}`,
        issuer: caCert.subject,
        publicKey: leafKeys.publicKey,
        signingKey,
        signingAlgorithm: ALGORITHM,
        ...validity(leaf.days ?? 90),
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([
            leaf.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth,
          ]),
          ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
          await x509.AuthorityKeyIdentifierExtension.create(caCert),
          await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
        ],
      });
      return { cert: cert.toString('pem') + '\n', key: await keyPem(leafKeys.privateKey) };
    },
  };
}

/** The development set (`npm run certs`): CA, back-end server certificate, API client certificate. */
export async function createDevelopmentPki(options: { days?: number } = {}) {
  const ca = await createCertificateAuthority({ commonName: DEV_CA_NAME, days: options.days ?? 365 });
  return { ca, ...(await issueServicePair(ca, Math.min(options.days ?? 365, 365))) };
}

/** The back-end's server certificate and the API's client certificate, with the names the defaults expect. */
export async function issueServicePair(ca: CertificateAuthority, days: number) {
  return {
    backend: await ca.issue({
      commonName: DEV_BACKEND_NAME,
      usage: 'server',
      dnsNames: ['localhost', DEV_BACKEND_NAME],
      ipAddresses: ['127.0.0.1', '::1'],
      days,
    }),
    api: await ca.issue({ commonName: DEV_API_CLIENT_NAME, usage: 'client', dnsNames: [DEV_API_CLIENT_NAME], days }),
  };
}

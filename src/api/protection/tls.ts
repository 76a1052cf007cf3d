/**
 * TLS for the main listener, and a second mutual-TLS listener where a client certificate from MTLS_CA_FILE,
 * mapped through MTLS_CLIENTS, is the service-to-service caller's credential.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { certificateNames, certificateSubject } from '../../tls/certificate-names.ts';
import { ROLE_SCOPES } from '../../auth/roles.ts';
import { ApiError } from '../../errors.ts';
import type { ProtectionConfig, TlsConfig } from './config.ts';
import { serverLimitOptions } from './limits.ts';

const TLS_BASE = { minVersion: 'TLSv1.2' } as const;

/** Sockets accepted by the mutual-TLS listener. */
const mutualSockets = new WeakSet<Socket>();

/** `https` options of the main listener, or undefined for plain HTTP. */
export function httpsOptions(tls: TlsConfig | null, maxHeaderSize: number) {
  if (!tls) return undefined;
  return { ...TLS_BASE, cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile), maxHeaderSize };
}

/** Sets the principal of requests that arrive on the mutual-TLS listener; runs before authentication. */
export function installMutualTlsIdentity(app: FastifyInstance, tls: ProtectionConfig['tls']): void {
  const mutual = tls?.mutual;
  if (!mutual) return;
  app.addHook('onRequest', async (req) => {
    const socket = req.raw.socket as TLSSocket;
    if (!mutualSockets.has(socket)) return;
    if (!socket.authorized) throw new ApiError('UNAUTHENTICATED', 'a client certificate is required');
    const names = certificateNames(socket);
    const client = names.map((n) => mutual.clients.get(n)).find((c) => c !== undefined);
    if (!client) {
      req.log.warn(
        { certificate: names, subject: certificateSubject(socket) },
        'client certificate not in MTLS_CLIENTS',
      );
      throw new ApiError('FORBIDDEN', 'the client certificate is not registered');
    }
    const validTo = Date.parse(socket.getPeerCertificate().valid_to);
    req.principal = {
      subject: client.subject,
      role: client.role,
      customerId: null,
      scopes: new Set(ROLE_SCOPES[client.role]),
      expiresAt: Math.floor(validTo / 1000),
    };
  });
}

/**
 * Starts the mutual-TLS listener, serving the same app. Call after `app.ready()`; close it before the
 * app. Resolves with the server once it listens.
 */
export async function listenMutualTls(
  app: FastifyInstance,
  tls: TlsConfig,
  options: { host: string; limits: ProtectionConfig['limits'] },
): Promise<Server> {
  const mutual = tls.mutual;
  if (!mutual) throw new Error('no mutual-TLS listener configured');
  const server = createServer(
    {
      ...TLS_BASE,
      cert: readFileSync(tls.certFile),
      key: readFileSync(tls.keyFile),
      ca: readFileSync(mutual.caFile),
      requestCert: true,
      rejectUnauthorized: true,
      maxHeaderSize: options.limits.headerBytes,
    },
    (req, res) => app.routing(req, res),
  );
  // The same limits as the main listener: oversized headers → 431 problem+json.
  server.on('clientError', serverLimitOptions(options.limits).clientErrorHandler.bind(app));
  server.on('secureConnection', (socket: TLSSocket) => mutualSockets.add(socket));
  server.on('tlsClientError', (error: Error) =>
    app.log.info({ err: { message: error.message } }, 'mutual TLS handshake refused'),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(mutual.port, options.host, () => resolve());
  });
  return server;
}

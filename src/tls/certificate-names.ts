/**
 * The names a peer's certificate is known by: subject CN and SAN DNS/URI entries. Both mutual-TLS
 * listeners (the API's MTLS_PORT and the back-end service) match them against their allowlists.
 */
import type { TLSSocket } from 'node:tls';

export function certificateNames(socket: TLSSocket): string[] {
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return [];
  const names: string[] = [];
  const cn = cert.subject?.CN;
  if (typeof cn === 'string') names.push(cn);
  else if (Array.isArray(cn)) names.push(...(cn as string[]));
  for (const entry of (cert.subjectaltname ?? '').split(', ')) {
    const match = /^(DNS|URI):(.+)$/.exec(entry);
    if (match) names.push(match[2]!);
  }
  return [...new Set(names)];
}

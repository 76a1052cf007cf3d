/**
 * The names a peer's certificate is known by. Both mutual-TLS listeners (the API's MTLS_PORT and the back-end
 * service) match their allowlists against the SAN DNS/URI entries only: a CA's subject CN is free text that
 * name constraints and most issuing policies do not check, so a CN that happens to equal an allowed name
 * must not let its holder in.
 */
import type { PeerCertificate, TLSSocket } from 'node:tls';

/** SAN DNS and URI entries, what allowlists match. */
export function certificateNames(socket: TLSSocket): string[] {
  const cert = peerCertificate(socket);
  if (!cert) return [];
  const names: string[] = [];
  for (const entry of (cert.subjectaltname ?? '').split(', ')) {
    const match = /^(DNS|URI):(.+)$/.exec(entry);
    if (match) names.push(match[2]!);
  }
  return [...new Set(names)];
}

/** The subject CN, for logs and refusals only (never matched against an allowlist). */
export function certificateSubject(socket: TLSSocket): string | undefined {
  const cn = peerCertificate(socket)?.subject?.CN;
  if (typeof cn === 'string') return cn;
  if (Array.isArray(cn)) return (cn as string[]).join(', ');
  return undefined;
}

function peerCertificate(socket: TLSSocket): PeerCertificate | undefined {
  const cert = socket.getPeerCertificate();
  return cert && Object.keys(cert).length > 0 ? cert : undefined;
}

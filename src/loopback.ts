/** This machine by name or by address: one answer for the checks that treat it apart from the network. */

/** A URL's hostname for this machine (`localhost`, `127.x.y.z`, `[::1]`). */
export function isLoopbackHostname(hostname: string): boolean {
  return /^(localhost|127(\.[0-9]{1,3}){3}|\[::1\])$/i.test(hostname);
}

/** A peer's socket address on this machine (IPv4 127/8, `::1`, or IPv4 127/8 mapped into IPv6). */
export function isLoopbackAddress(address: string): boolean {
  return /^(127\.|::1$|::ffff:127\.)/.test(address);
}

/**
 * Why a listener could not open, in one line that names the setting to change: the system's error (EADDRINUSE,
 * EACCES…) says what failed, not which of HOST, PORT, METRICS_PORT or MTLS_PORT the user set.
 */

export interface ListenTarget {
  /** The variables that chose the address and port (HOST and PORT; METRICS_HOST and METRICS_PORT…). */
  hostSetting: string;
  portSetting: string;
  host: string;
  port: number;
  /** What the port setting's hint may add (the metrics can be turned off). */
  portAlternative?: string;
}

/** The one line for a listen failure; null when `error` is not one (a bug, told with its stack). */
export function listenFailure(error: unknown, target: ListenTarget): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || (error as { syscall?: unknown }).syscall === undefined) return null;
  const { hostSetting, portSetting, host, port } = target;
  const otherPort = `set ${portSetting} to another port${target.portAlternative ? ` ${target.portAlternative}` : ''}`;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} is already in use — ${otherPort}`;
    case 'EACCES':
      return port < 1024
        ? `port ${port} needs privileges this process does not have — set ${portSetting} to 1024 or above`
        : `port ${port} on ${host} may not be opened by this user — ${otherPort}`;
    case 'EADDRNOTAVAIL':
      return `${hostSetting}=${host} is not an address of this machine — set ${hostSetting} to one of its addresses (127.0.0.1 for this machine only, 0.0.0.0 for every interface)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `${hostSetting}=${host} does not resolve to an address — set ${hostSetting} to an address of this machine (127.0.0.1, 0.0.0.0)`;
    case 'EAFNOSUPPORT':
      return `${hostSetting}=${host}: this machine has no network of that address family — set ${hostSetting} to 127.0.0.1 or 0.0.0.0`;
    default:
      return `cannot listen on ${host}:${port} (${code}) — check ${hostSetting} and ${portSetting}`;
  }
}

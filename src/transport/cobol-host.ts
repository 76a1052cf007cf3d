/**
 * The COBOL program host: a pool of `cbhost` processes running compiled GnuCOBOL programs, one call at a time
 * each, reached with length-prefixed frames (CBHDR plus COMMAREA) over stdin and stdout. The calls of one turn go
 * out together, shared among the processes, each share in one write; a process answers them in order.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import { loadLinkCatalog, type LinkedProgramName } from '../backend/copybooks/index.ts';
import { layoutItems, type RecordLayout } from '@corebridge/records';
import { TransportError, TransportTimeoutError, type Transport } from './transport.ts';

/** Where the host finds the header fields it reads (the program name) and writes (an abend). */
export interface HostHeaderLayout {
  length: number;
  tran: { offset: number; length: number };
  returnCode: { offset: number; length: number };
  reasonCode: { offset: number; length: number };
  reasonText: { offset: number; length: number };
}

export interface CobolHostOptions {
  /** The built `cbhost` executable. */
  hostBinary: string;
  /** Directory of the compiled programs (COB_LIBRARY_PATH). */
  libraryPath: string;
  /** Default: CBHDR as GnuCOBOL on Linux lays it out (the link catalogue's). */
  header?: HostHeaderLayout;
  /** Host processes, and so calls in flight at once (default 2). */
  processes?: number;
  /** Per call (default 5000 ms). */
  callTimeoutMs?: number;
  /** Calls waiting for a free process beyond this fail at once (default 1000). */
  maxWaiting?: number;
  /** Calls sent to one process before it has answered them (default 32). */
  maxQueuedPerProcess?: number;
  log: Logger;
}

export interface CobolHost extends Transport {
  /** Is at least one host process running? */
  available(): boolean;
  /** For tests and operators: kills every host process as a crash would; they are started again. */
  killProcesses(signal?: NodeJS.Signals): number;
}

const FIRST_RESTART_DELAY_MS = 50;
const MAX_RESTART_DELAY_MS = 5000;
const ABEND_REASON = 'PROGRAM_ABEND';

interface Call {
  request: Buffer;
  resolve(reply: Buffer): void;
  reject(error: Error): void;
}

interface HostProcess {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** The calls sent to it, in order: the first is the one it runs. */
  calls: Call[];
  /** The time limit of the first call, from when it became the first. */
  timer: NodeJS.Timeout | null;
  /** Ended or about to: takes no more calls. */
  retired: boolean;
  pending: Buffer;
}

/** The spans the host needs, from the compiled CBHDR copybook. */
export function hostHeaderLayout(header: RecordLayout): HostHeaderLayout {
  const span = (name: string) => {
    const item = [...layoutItems(header.root)].find((i) => i.cobolName === name);
    if (!item) throw new Error(`CBHDR has no ${name}`);
    return { offset: item.offset, length: item.length };
  };
  return {
    length: header.maxLength,
    tran: span('HDR-TRAN-CODE'),
    returnCode: span('HDR-RETURN-CODE'),
    reasonCode: span('HDR-REASON-CODE'),
    reasonText: span('HDR-REASON-TEXT'),
  };
}

/**
 * The host's environment: what libcob and the programs need (GnuCOBOL's own COB_* settings, the locale and
 * time zone), never the rest of the server's (secrets such as client credentials live there).
 */
export function hostEnvironment(libraryPath: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept = Object.entries(env).filter(
    ([name]) => /^(COB_|LC_)/.test(name) || ['PATH', 'LANG', 'TZ', 'HOME', 'TMPDIR'].includes(name),
  );
  return { ...Object.fromEntries(kept), COB_LIBRARY_PATH: libraryPath };
}

export function hostArguments(header: HostHeaderLayout): string[] {
  const span = (s: { offset: number; length: number }) => `${s.offset}:${s.length}`;
  return [
    String(header.length),
    span(header.tran),
    span(header.returnCode),
    span(header.reasonCode),
    span(header.reasonText),
  ];
}

export function openCobolHost(options: CobolHostOptions): CobolHost {
  const { log } = options;
  const header = options.header ?? hostHeaderLayout(loadLinkCatalog().header);
  const size = options.processes ?? 2;
  const timeoutMs = options.callTimeoutMs ?? 5000;
  const maxWaiting = options.maxWaiting ?? 1000;
  const maxQueued = options.maxQueuedPerProcess ?? 32;
  const args = hostArguments(header);
  const processes = new Set<HostProcess>();
  const waiting: Call[] = [];
  let restartDelay = FIRST_RESTART_DELAY_MS;
  const restartTimers = new Set<NodeJS.Timeout>();
  let closing = false;
  let dispatchQueued = false;

  function isAbend(reply: Buffer): boolean {
    const { returnCode: rc, reasonCode: reason } = header;
    return (
      reply.length >= header.length &&
      reply.toString('latin1', rc.offset, rc.offset + rc.length) === '99' &&
      reply.toString('latin1', reason.offset, reason.offset + reason.length).trimEnd() === ABEND_REASON
    );
  }

  function start(): void {
    const child = spawn(options.hostBinary, args, {
      env: hostEnvironment(options.libraryPath),
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group: a Ctrl-C or SIGTERM meant for the server does not end the hosts under the
      // calls it is still finishing; they end when their input closes (close(), or this process's death).
      detached: true,
    });
    const host: HostProcess = { child, calls: [], timer: null, retired: false, pending: Buffer.alloc(0) };
    processes.add(host);
    child.stdin.on('error', () => {}); // a dead host: 'close' handles it
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      for (const line of text.split('\n'))
        if (line.trim()) log.warn({ pid: child.pid, output: line.trim() }, 'COBOL program host wrote to stderr');
    });
    child.stdout.on('data', (chunk: Buffer) => {
      host.pending = host.pending.length === 0 ? chunk : Buffer.concat([host.pending, chunk]);
      while (host.pending.length >= 4) {
        const length = host.pending.readUInt32BE(0);
        if (host.pending.length < 4 + length) break;
        const reply = Buffer.from(host.pending.subarray(4, 4 + length));
        host.pending = host.pending.subarray(4 + length);
        finish(host, reply);
      }
    });
    child.on('error', (error) => {
      log.error({ err: error }, 'COBOL program host could not run');
      // Never started (no such file, no permission): there may be no 'close'.
      if (child.pid === undefined) ended(host, error.message);
    });
    // 'close', not 'exit': every answer it wrote has been read by then, so no call it answered is given back.
    child.on('close', (code, signal) => ended(host, signal ?? `exit ${code}`));
  }

  /**
   * A process is gone: the call it ran fails, the calls it had not begun go back to wait for another, and
   * another process is started, later each time while they keep ending.
   */
  function ended(host: HostProcess, how: string): void {
    if (!processes.delete(host)) return;
    host.retired = true;
    if (host.timer) clearTimeout(host.timer);
    host.timer = null;
    host.calls.shift()?.reject(new TransportError(`COBOL program host ended (${how}) during a call`));
    giveBack(host);
    // With no process left, the calls waiting for one answer now (503) rather than after a restart that may fail.
    if (!available())
      for (const waiter of waiting.splice(0)) waiter.reject(new TransportError('no COBOL program host is running'));
    if (closing) return;
    log.error({ pid: host.child.pid, how }, 'COBOL program host ended; starting another');
    const timer = setTimeout(() => {
      restartTimers.delete(timer);
      if (!closing) {
        start();
        dispatch();
      }
    }, restartDelay);
    restartTimers.add(timer);
    restartDelay = Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS);
  }

  function finish(host: HostProcess, reply: Buffer): void {
    const call = host.calls.shift();
    if (host.timer) clearTimeout(host.timer);
    host.timer = null;
    if (!call) {
      log.error({ pid: host.child.pid }, 'COBOL program host answered no call; stopping it');
      retire(host, 'SIGKILL');
      return;
    }
    if (isAbend(reply)) {
      // Its exit handler answered; the process is ending: the calls after this one go to another.
      giveBack(host);
      retire(host);
    } else {
      restartDelay = FIRST_RESTART_DELAY_MS;
      armTimer(host);
    }
    call.resolve(reply);
    if (waiting.length > 0) scheduleDispatch();
  }

  /** The calls a process has not begun wait again, first in line, for another process. */
  function giveBack(host: HostProcess): void {
    const unstarted = host.calls.splice(0);
    if (unstarted.length === 0) return;
    waiting.unshift(...unstarted);
    scheduleDispatch();
  }

  /** The time limit of the call a process runs now, counted from when its turn came. */
  function armTimer(host: HostProcess): void {
    const call = host.calls[0];
    if (!call || host.retired) return;
    const timer = setTimeout(() => {
      if (host.timer !== timer) return;
      host.timer = null;
      host.calls.shift();
      // A COBOL program cannot be interrupted otherwise: its process is killed and replaced, and the calls
      // after this one go to another.
      giveBack(host);
      retire(host, 'SIGKILL');
      call.reject(new TransportTimeoutError(`COBOL program did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    host.timer = timer;
  }

  function retire(host: HostProcess, signal?: NodeJS.Signals): void {
    host.retired = true;
    if (signal) host.child.kill(signal);
  }

  /** Once the calls of this turn are in: they go out together. */
  function scheduleDispatch(): void {
    if (dispatchQueued) return;
    dispatchQueued = true;
    queueMicrotask(() => {
      dispatchQueued = false;
      dispatch();
    });
  }

  /** Shares the waiting calls among the running processes, the least busy first, each share in one write. */
  function dispatch(): void {
    const open = [...processes].filter((host) => !host.retired && host.calls.length < maxQueued);
    while (waiting.length > 0 && open.length > 0) {
      // An even share of what waits, for the process with the fewest calls.
      open.sort((a, b) => a.calls.length - b.calls.length);
      const host = open[0]!;
      const share = Math.min(Math.ceil(waiting.length / open.length), maxQueued - host.calls.length);
      const calls = waiting.splice(0, share);
      let length = 0;
      for (const call of calls) length += 4 + call.request.length;
      const frames = Buffer.allocUnsafe(length);
      let at = 0;
      for (const call of calls) {
        frames.writeUInt32BE(call.request.length, at);
        call.request.copy(frames, at + 4);
        at += 4 + call.request.length;
      }
      const idle = host.calls.length === 0;
      host.calls.push(...calls);
      if (idle) armTimer(host);
      host.child.stdin.write(frames);
      if (host.calls.length >= maxQueued) open.shift();
    }
  }

  function available(): boolean {
    for (const host of processes) if (!host.retired) return true;
    return false;
  }

  for (let i = 0; i < size; i++) start();

  return {
    call(request, { signal } = {}) {
      if (closing) return Promise.reject(new TransportError('COBOL program host closed'));
      if (signal?.aborted) return Promise.reject(new TransportError('call aborted'));
      if (!available()) return Promise.reject(new TransportError('no COBOL program host is running'));
      if (waiting.length >= maxWaiting) return Promise.reject(new TransportError('every COBOL program host is busy'));
      return new Promise<Buffer>((resolve, reject) => {
        waiting.push({ request, resolve, reject });
        scheduleDispatch();
      });
    },
    async ready() {
      return !closing && available();
    },
    available,
    killProcesses(signal = 'SIGKILL') {
      let killed = 0;
      for (const host of processes) {
        host.retired = true; // no call goes to it between the signal and its exit
        if (host.child.kill(signal)) killed++;
      }
      return killed;
    },
    async close() {
      if (closing) return;
      closing = true;
      for (const timer of restartTimers) clearTimeout(timer);
      for (const call of waiting.splice(0)) call.reject(new TransportError('COBOL program host closed'));
      // Calls in flight finish; then each host sees the end of its input and exits.
      await Promise.all(
        [...processes].map(
          (host) =>
            new Promise<void>((resolve) => {
              host.child.once('close', () => resolve());
              host.child.stdin.end();
            }),
        ),
      );
    },
  };
}

/** What a back-end needs to run some linked programs in COBOL: the build, and the config. */
export interface CobolProgramSettings {
  programs: readonly LinkedProgramName[];
  hostBinary: string;
  libraryPath: string;
  processes: number;
  callTimeoutMs: number;
}

/** Opens the host for a back-end (createBackend's `linkHost`). */
export function openProgramHost(
  settings: CobolProgramSettings,
  log: Logger,
): { programs: ReadonlySet<LinkedProgramName>; host: CobolHost } {
  const host = openCobolHost({
    hostBinary: settings.hostBinary,
    libraryPath: settings.libraryPath,
    processes: settings.processes,
    callTimeoutMs: settings.callTimeoutMs,
    log,
  });
  return { programs: new Set(settings.programs), host };
}

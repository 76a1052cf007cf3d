/**
 * A process of `npm run stack`: started with its own environment, its output appended to a log file,
 * restarted after a second when it dies (as an orchestrator would), stopped with SIGTERM (SIGKILL after 10 s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { connect } from 'node:net';

export interface Supervised {
  readonly name: string;
  readonly log: string;
  pid(): number | undefined;
  stop(): Promise<void>;
}

/** Does something accept connections on this local port? (A back-end service listens once its store is open.) */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const RESTART_DELAY_MS = 1000;
const STOP_GRACE_MS = 10_000;

export function supervise(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  log: string,
  events: {
    exited(name: string, code: number | null, signal: string | null): void;
    restarted(name: string, pid: number | undefined): void;
  },
): Supervised {
  const out: WriteStream = createWriteStream(log, { flags: 'a', mode: 0o600 });
  let child: ChildProcess | null = null;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;

  function start(): void {
    const current = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = current;
    current.stdout!.on('data', (chunk: Buffer) => out.write(chunk));
    current.stderr!.on('data', (chunk: Buffer) => out.write(chunk));
    current.once('exit', (code, signal) => {
      if (child === current) child = null;
      if (stopping) return;
      events.exited(name, code, signal);
      restartTimer = setTimeout(() => {
        start();
        events.restarted(name, child?.pid);
      }, RESTART_DELAY_MS);
    });
  }
  start();

  return {
    name,
    log,
    pid: () => child?.pid,
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const current = child;
      if (current && current.exitCode === null && current.signalCode === null) {
        const exited = new Promise((resolve) => current.once('exit', resolve));
        current.kill('SIGTERM');
        const force = setTimeout(() => current.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(force);
      }
      await new Promise((resolve) => out.end(resolve));
    },
  };
}

/**
 * A process of `npm run stack`: started with its own environment, its output appended to a log file, stopped
 * with SIGTERM (SIGKILL after 10 s). API instances and back-end services are restarted after a second when
 * they die, as an orchestrator would: the fault test kills them and waits for them to come back and rejoin.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

export interface Supervised {
  readonly name: string;
  readonly log: string;
  pid(): number | undefined;
  stop(): Promise<void>;
}

const RESTART_DELAY_MS = 1000;
const STOP_GRACE_MS = 10_000;

export interface ProcessSpec {
  name: string;
  /** The program; node (this process's own) when absent. */
  program?: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  log: string;
  /** Restarted when it dies (default); else it stays down and `exited` says so. */
  restart?: boolean;
}

export function supervise(
  spec: ProcessSpec,
  events: {
    exited(name: string, code: number | null, signal: string | null, restarting: boolean): void;
    restarted(name: string, pid: number | undefined): void;
  },
): Supervised {
  const { name, log, restart = true } = spec;
  const out: WriteStream = createWriteStream(log, { flags: 'a', mode: 0o600 });
  let child: ChildProcess | null = null;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;

  function start(): void {
    const current = spawn(spec.program ?? process.execPath, spec.args, {
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = current;
    current.stdout!.on('data', (chunk: Buffer) => out.write(chunk));
    current.stderr!.on('data', (chunk: Buffer) => out.write(chunk));
    current.once('exit', (code, signal) => {
      if (child === current) child = null;
      if (stopping) return;
      events.exited(name, code, signal, restart);
      if (!restart) return;
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

/** Corebridge's own commands as real child processes, for tests that run them as a user would. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';

/** A child process whose JSON log lines are collected; killed after the test if still running. */
export function startProcess(t: TestContext, args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    for (const line of parts) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // 'close', not 'exit': every line it wrote has been read by then.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  t.after(() => child.kill('SIGKILL'));
  return { child, lines, exited, stderr: () => stderr };
}

/**
 * Runs a command to its end without blocking the event loop (unlike spawnSync), so that a server under test in
 * this process can answer it; its exit status and output, whether it succeeded or not.
 */
export async function runCommand(
  file: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const options = { env: { ...process.env, ...env }, encoding: 'utf8' } as const;
    const { stdout, stderr } = await promisify(execFile)(file, args, options);
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

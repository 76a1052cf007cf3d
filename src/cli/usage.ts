/**
 * What every command shares: its streams, and the failure a user can act on. Commands import this, never main.ts
 * (main.ts imports them).
 */
export interface Io {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** A failure the user can act on: printed without a stack trace. */
export class UsageError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.exitCode = exitCode;
  }
}

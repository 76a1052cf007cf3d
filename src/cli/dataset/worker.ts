/**
 * A decode worker (see parallel.ts): compiles the copybook as the main thread did (a layout's codec is generated
 * code, which cannot be sent), then writes each batch's JSON Lines with a `JsonLinesDecoder`, so that a record
 * decodes, fails or is skipped exactly as on one thread, into the buffer the batch brought.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { compileFromArgs } from '@corebridge/records/cli';
import { DatasetError, JsonLinesDecoder } from '@corebridge/records/dataset';
import type { Job, JobResult, PlainError, WorkerSetup } from './parallel.ts';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const layout = compileFromArgs(setup.file, setup.compile);

function run(job: Job, decoder: Awaited<typeof layout>): JobResult {
  const lines = new JsonLinesDecoder(decoder, {
    framing: setup.framing,
    onError: setup.onError,
    skip: job.skip,
    limit: job.limit,
    start: job.start,
  });
  try {
    const into = job.output === undefined ? undefined : Buffer.from(job.output);
    const batch = lines.push(new Uint8Array(job.input, 0, job.length), into);
    const errors = batch.errors.map((e) => e.toJSON() as PlainError);
    let fault: PlainError | undefined;
    try {
      lines.end();
    } catch (e) {
      // a broken header or a partial record after these lines: they are written first, as on one thread
      if (!(e instanceof DatasetError)) throw e;
      fault = e.toJSON() as PlainError;
    }
    const output = batch.lines.buffer as ArrayBuffer;
    const done = { ok: true as const, input: job.input, output, length: batch.lines.length, rows: batch.count, errors };
    return fault === undefined ? done : { ...done, fault };
  } catch (e) {
    if (e instanceof DatasetError) return { ok: false, error: e.toJSON() as PlainError };
    return { ok: false, message: (e as Error).message, stack: (e as Error).stack };
  }
}

// one batch at a time, answered in the order asked
let last: Promise<void> = Promise.resolve();
port.on('message', (job: Job) => {
  last = last.then(async () => {
    const result = run(job, await layout);
    port.postMessage(result, result.ok ? [result.input, result.output] : []);
  });
});

/**
 * A decode worker (see parallel.ts): compiles the copybook as the main thread did (a layout's codec is generated
 * code, which cannot be sent), then turns each batch of records into JSON Lines with `decodeDatasetJsonLines`, so
 * that a record decodes, fails or is skipped exactly as on one thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { compileFromArgs } from '@corebridge/records/cli';
import { DatasetError, decodeDatasetJsonLines } from '@corebridge/records/dataset';
import type { Job, JobResult, PlainError, WorkerSetup } from './parallel.ts';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const layout = compileFromArgs(setup.file, setup.compile);

async function* only(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

async function run(job: Job): Promise<JobResult> {
  const bytes = new Uint8Array(job.buffer, 0, job.length);
  const parts: Uint8Array[] = [];
  let rows = 0;
  const errors: PlainError[] = [];
  try {
    const batches = decodeDatasetJsonLines(only(bytes), await layout, {
      framing: setup.framing,
      onError: setup.onError,
      skip: job.skip,
      limit: job.limit,
      start: job.start,
    });
    for await (const batch of batches) {
      for (const e of batch.errors) errors.push(e.toJSON());
      // a copy of its own: the next batch would be written over it, and it is transferred, not copied again
      parts.push(new Uint8Array(batch.lines));
      rows += batch.count;
    }
  } catch (e) {
    if (e instanceof DatasetError) return { ok: false, error: e.toJSON() };
    return { ok: false, message: (e as Error).message, stack: (e as Error).stack };
  }
  const text = parts.length === 1 ? parts[0]! : new Uint8Array(Buffer.concat(parts));
  return { ok: true, text, rows, errors };
}

// one batch at a time, answered in the order asked
let last: Promise<void> = Promise.resolve();
port.on('message', (job: Job) => {
  last = last.then(async () => {
    const result = await run(job);
    port.postMessage(result, result.ok ? [result.text.buffer as ArrayBuffer] : []);
  });
});

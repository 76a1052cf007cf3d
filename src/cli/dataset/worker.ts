/**
 * A decode worker (see parallel.ts): compiles the copybook as the main thread did (a layout's codec is generated
 * code, which cannot be sent), says it is ready, then writes each batch's JSON Lines into the buffer the batch
 * brought.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { compileFromArgs } from '@corebridge/records/cli';
import { exactDecoder, type JsonTextDecoder } from '@corebridge/records/dataset';
import { decodeBatch, type Job, type WorkerSetup } from './batch.ts';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const layout = compileFromArgs(setup.file, setup.compile);
const decoder: Promise<JsonTextDecoder> = layout.then((l) => (setup.keepBytes ? exactDecoder(l) : l));
// a compile error is the first job's answer, as a decode error would be
decoder.then(
  () => port.postMessage('ready'),
  () => {},
);

// one batch at a time, answered in the order asked
let last: Promise<void> = Promise.resolve();
port.on('message', (job: Job) => {
  last = last.then(async () => {
    const result = decodeBatch(job, await decoder, setup);
    port.postMessage(result, result.ok ? [result.input, result.output] : []);
  });
});

/**
 * A decode worker (see parallel.ts): compiles the layout as the main thread did (a layout's codec is generated
 * code, which cannot be sent), says it is ready, then writes each batch's JSON Lines or CSV rows into the buffer
 * the batch brought.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { csvTable, exactDecoder, type JsonTextDecoder } from '@corebridge/records/dataset';
import { decodeBatch, type Job, type WorkerSetup } from './batch.ts';
import { layoutFromArgs } from './segments.ts';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const ready = layoutFromArgs(setup.file, setup.args).then((layout) => ({
  decoder: (setup.keepBytes ? exactDecoder(layout) : layout) as JsonTextDecoder,
  table: setup.format === 'csv' ? csvTable(layout) : undefined,
}));
// a compile error is the first job's answer, as a decode error would be
ready.then(
  () => port.postMessage('ready'),
  () => {},
);

// one batch at a time, answered in the order asked
let last: Promise<void> = Promise.resolve();
port.on('message', (job: Job) => {
  last = last.then(async () => {
    const { decoder, table } = await ready;
    const result = decodeBatch(job, decoder, { ...setup, table });
    port.postMessage(result, result.ok ? [result.input, result.output] : []);
  });
});

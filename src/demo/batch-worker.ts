/**
 * Worker thread of the demo generator: generates the batches it is sent (batches.ts)
 * and posts the encoded lines back, transferring the buffers instead of copying them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BatchGenerator, tenantRuns, type Job, type Setup } from './batches.js';

const generator = new BatchGenerator(tenantRuns(workerData as Setup));
parentPort!.on('message', (job: Job) => {
  const result = generator.generate(job);
  parentPort!.postMessage(result, result.files.map((f) => f.buffer as ArrayBuffer));
});

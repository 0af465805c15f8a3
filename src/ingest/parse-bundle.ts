/**
 * The bundle's files as one stream of parsed chunks (COPY text plus problems), in file
 * order: in a worker thread (parse-worker.ts) for large bundles, so parsing overlaps the
 * database work, or on this thread for small ones, where starting a worker would cost
 * more than it saves. Both run the same parse-file.ts.
 */
import { Worker } from 'node:worker_threads';
import { ENTITY_BY_NAME } from './bundle-spec.js';
import { CHUNK_BYTES, parseFile, type CustomTypeMap, type ParsedChunk } from './parse-file.js';

export interface BundleSource {
  entity: string;
  path: string;
  csv: boolean;
}

export interface FileChunk {
  /** Index of the file in the list given. */
  file: number;
  chunk: ParsedChunk;
}

/** What the worker is started with (structured-cloned). */
export interface WorkerSetup {
  files: BundleSource[];
  customTypes: CustomTypeMap;
  chunkBytes: number;
}

export type WorkerMessage = FileChunk | { done: true };

/**
 * Young generation of the worker. Parsing allocates a short-lived object per record;
 * with V8's default (16 MB semi-spaces) the records of one chunk outlive a scavenge and
 * get promoted, and old-generation collections then take a third of the parse time.
 */
const WORKER_YOUNG_GENERATION_MB = 96;

export function parseBundle(files: BundleSource[], customTypes: CustomTypeMap, inWorker: boolean): AsyncGenerator<FileChunk> {
  const setup: WorkerSetup = { files, customTypes, chunkBytes: CHUNK_BYTES };
  return inWorker ? parseInWorker(setup) : parseHere(setup);
}

async function* parseHere(setup: WorkerSetup): AsyncGenerator<FileChunk> {
  for (const [file, f] of setup.files.entries()) {
    for await (const chunk of parseFile({ spec: ENTITY_BY_NAME.get(f.entity)!, path: f.path, csv: f.csv }, setup.customTypes, setup.chunkBytes)) yield { file, chunk };
  }
}

async function* parseInWorker(setup: WorkerSetup): AsyncGenerator<FileChunk> {
  const worker = startWorker(setup);
  const queue: WorkerMessage[] = [];
  let failure: Error | undefined;
  let exited = false;
  let notify: (() => void) | undefined;
  const wake = () => {
    notify?.();
    notify = undefined;
  };
  worker.on('message', (m: WorkerMessage) => {
    queue.push(m);
    wake();
  });
  worker.on('error', (err) => {
    failure = err;
    wake();
  });
  worker.on('exit', () => {
    exited = true;
    wake();
  });
  try {
    for (;;) {
      const message = queue.shift();
      if (message) {
        if ('done' in message) return;
        yield message;
        worker.postMessage('ack'); // the chunk is consumed: the worker may post one more
        continue;
      }
      if (failure) throw failure;
      if (exited) throw new Error('import: the parsing worker stopped before the end of the bundle');
      await new Promise<void>((resolve) => (notify = resolve));
    }
  } finally {
    await worker.terminate();
  }
}

function startWorker(setup: WorkerSetup): Worker {
  const options = { workerData: setup, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./parse-worker.js', import.meta.url), options);
  // Running from TypeScript sources (tests, tsx): the worker registers tsx before loading its entry.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./parse-worker.ts', import.meta.url).href);
  return new Worker(`import(${tsx}).then((api) => api.register()).then(() => import(${entry}))`, { ...options, eval: true });
}

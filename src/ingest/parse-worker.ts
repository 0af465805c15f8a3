/**
 * Worker thread of the import: parses, validates and encodes the bundle's files in order
 * (parse-file.ts) and posts each chunk to the importing thread, which feeds it to COPY.
 * Parsing is the import's main CPU cost; here it runs beside the database work (the
 * embedded database runs on the importing thread) instead of taking turns with it.
 *
 * Flow control: at most `WINDOW` chunks are posted and not yet acknowledged, so a slow
 * database holds back the parser and memory stays bounded.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ENTITY_BY_NAME } from './bundle-spec.js';
import { parseFile, type CustomTypeMap } from './parse-file.js';
import type { WorkerMessage, WorkerSetup } from './parse-bundle.js';

const WINDOW = 3;

const setup = workerData as WorkerSetup;
const port = parentPort!;
let credit = WINDOW;
let wake: (() => void) | undefined;
port.on('message', () => {
  credit++;
  wake?.();
  wake = undefined;
});

const post = (message: WorkerMessage) => port.postMessage(message);
const customTypes: CustomTypeMap = setup.customTypes;
for (const [file, f] of setup.files.entries()) {
  for await (const chunk of parseFile({ spec: ENTITY_BY_NAME.get(f.entity)!, path: f.path, csv: f.csv }, customTypes, setup.chunkBytes)) {
    while (credit === 0) await new Promise<void>((resolve) => (wake = resolve));
    credit--;
    post({ file, chunk });
  }
}
post({ done: true });
port.close();

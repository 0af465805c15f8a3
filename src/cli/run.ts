/** Runs the CLI from source (`node --import tsx src/cli/run.ts <command>`), for development and tests. */
import { main } from './main.js';

await main(process.argv.slice(2));

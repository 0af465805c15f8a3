import { openForServing, startWithOperations } from './control-server.js';
import { startServer } from '../server/server.js';

export async function serveCommand(options: { port?: number; host?: string }): Promise<void> {
  const overrides: { port?: number; host?: string } = {};
  if (options.port !== undefined) overrides.port = options.port;
  if (options.host !== undefined) overrides.host = options.host;
  // A PostgreSQL that does not answer yet is waited for, serving 503 (database-wait.ts).
  const { config, database, wait } = await openForServing(overrides, { waitForDatabase: true });
  const stopWaiting = async () => wait?.stop();
  try {
    await startWithOperations(config, database, (beforeStop) =>
      startServer(config, database, {
        beforeStop: async () => {
          await stopWaiting();
          await beforeStop();
        },
        ...(wait ? { databasePending: wait.pending } : {}),
      }),
    );
  } catch (error) {
    await stopWaiting();
    throw error;
  }
}

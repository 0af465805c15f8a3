import { openForServing, startWithOperations } from './control-server.js';
import { startServer } from '../server/server.js';

export async function serveCommand(options: { port?: number; host?: string }): Promise<void> {
  const overrides: { port?: number; host?: string } = {};
  if (options.port !== undefined) overrides.port = options.port;
  if (options.host !== undefined) overrides.host = options.host;
  const { config, database } = await openForServing(overrides);
  await startWithOperations(config, database, (beforeStop) => startServer(config, database, { beforeStop }));
}

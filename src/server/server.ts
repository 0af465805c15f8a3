/**
 * Listens and shuts down gracefully: on SIGTERM/SIGINT it stops accepting connections,
 * lets in-flight requests finish (Fastify's close waits for them) for up to
 * SHUTDOWN_TIMEOUT_MS, then closes the connections still open (a download to a client
 * that reads slowly or not at all kept the process up for minutes) and the database.
 * A second signal exits at once.
 */
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { buildApp, type App } from './app.js';
import { limitHeapGrowth } from './heap.js';

export interface RunningServer {
  app: App;
  url: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  handleSignals?: boolean;
  /** Runs first when the server stops (the command line's control socket closes there). */
  beforeStop?: () => Promise<void>;
  /** The database not usable yet, and why (app.ts AppDeps.databasePending). */
  databasePending?: () => string | undefined;
}

export async function startServer(config: Config, database: Database, opts: StartOptions = {}): Promise<RunningServer> {
  limitHeapGrowth(config.heapGrowthPercent);
  let app: App | undefined;
  let url: string;
  try {
    app = await buildApp({ config, database, ...(opts.databasePending ? { databasePending: opts.databasePending } : {}) });
    url = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // Nothing may stay open behind a failed start: an open PGlite keeps a timer alive,
    // and the process would neither serve nor exit.
    await app?.close().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
  const started = app;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await opts.beforeStop?.();
      const deadline = setTimeout(() => {
        started.log.warn({ afterMs: config.shutdownTimeoutMs }, 'shutting down: closing the connections of requests still in flight');
        started.server.closeAllConnections();
      }, config.shutdownTimeoutMs);
      try {
        await started.close();
      } finally {
        clearTimeout(deadline);
      }
      await database.close();
    })();
    return stopping;
  };
  if (opts.handleSignals !== false) {
    const onSignal = (signal: string) => {
      if (stopping) process.exit(1);
      started.log.info({ signal }, 'shutting down: finishing in-flight requests');
      stop().then(
        () => process.exit(0),
        (err) => {
          started.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  return { app: started, url, stop };
}


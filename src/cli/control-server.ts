/**
 * The server half of control-client.ts: while `serve` or `start` holds the embedded
 * database's DATA_DIR, the command line's database operations (import, keys, users) run
 * here, on the server's own database, and their output streams back as JSON lines.
 *
 * The socket is a Unix socket readable and writable by the server's user only (mode
 * 0600): whoever may use it may also open DATA_DIR's files, so it grants nothing more.
 */
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { loadConfig, type Config } from '../config.js';
import type { Database } from '../db/database.js';
import { openConfigured, redactedUrl, waitForDataDir, type Operation } from './context.js';
import { openPostgresForServing, type DatabaseWait } from './database-wait.js';
import { controlSocketPath, holdsDataDir, pointerFile, serverListening, socketOf, type ControlMessage } from './control-client.js';
import { CliFailure, listenFailure } from './failure.js';
import { importOperation } from './import.js';
import { keysCreate, keysList, keysRevoke } from './keys.js';
import { usersSetPassword } from './users.js';

const OPERATIONS: Record<string, Operation<any>> = {
  import: importOperation,
  'keys.create': keysCreate,
  'keys.list': keysList,
  'keys.revoke': keysRevoke,
  'users.set-password': usersSetPassword,
};

interface ControlSocket {
  close(): Promise<void>;
}

/**
 * The configuration and database of `serve` or `start`. A DATA_DIR that a server already
 * holds is refused before the database is opened (both would write the same files).
 */
export async function openForServing(overrides: Partial<Config>, options: { waitForDatabase?: boolean } = {}): Promise<{ config: Config; database: Database; wait?: DatabaseWait }> {
  const config = { ...loadConfig(), ...overrides };
  if (config.databaseUrl && options.waitForDatabase) {
    const say = (line: string) => process.stderr.write(`partner-reports: ${line}\n`);
    return { config, ...(await openPostgresForServing({ ...config, databaseUrl: config.databaseUrl }, redactedUrl(config.databaseUrl), say)) };
  }
  const refused = () => new CliFailure(`another partner-reports server holds the embedded database in ${config.dataDir}; stop it first (its commands can run beside it: import, keys, users)`);
  const socket = socketOf(config);
  if (socket && (await serverListening(socket))) throw refused();
  if (!holdsDataDir(config)) return { config, database: await openConfigured(config) };
  // Another server (its socket perhaps not up yet) is refused; a command is waited for.
  const lock = await waitForDataDir(config, 'server', async (holder) => {
    if (holder.role === 'server') throw refused();
    return undefined;
  });
  return { config, database: await openConfigured(config, lock) };
}

async function readJson(req: IncomingMessage): Promise<{ name?: unknown; args?: unknown }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { name?: unknown; args?: unknown };
}

const log = (err: unknown) => process.stderr.write(`partner-reports: a command run in the server failed: ${err instanceof Error ? err.stack : String(err)}\n`);

/**
 * Starts a server (`start`, given the control socket's close to run when it stops) with
 * the command line's operations served beside it; the socket closes if the start fails.
 */
export async function startWithOperations<T>(config: Config, database: Database, start: (beforeStop: () => Promise<void>) => Promise<T>): Promise<T> {
  let control: ControlSocket;
  try {
    control = await listenForOperations(config, database);
  } catch (e) {
    // A temporary directory that is missing or not writable, say: said in one line, and the
    // database closed (an open PGlite would keep the process alive).
    await database.close().catch(() => {});
    throw new CliFailure(`cannot open the control socket for commands beside the server (${controlSocketPath(config.dataDir)}): ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    return await start(() => control.close());
  } catch (e) {
    await control.close();
    throw listenFailure(e, config) ?? e;
  }
}

/** Listens for operations on DATA_DIR's control socket (nothing when the database is PostgreSQL or in memory). */
async function listenForOperations(config: Config, database: Database): Promise<ControlSocket> {
  if (!holdsDataDir(config)) return { close: async () => {} };
  const path = controlSocketPath(config.dataDir);
  // openForServing found no server holding DATA_DIR: a socket file here was left by one
  // that stopped without removing it.
  rmSync(path, { force: true });
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health') return void res.writeHead(204).end();
    if (req.method !== 'POST' || req.url !== '/operations') return void res.writeHead(404).end();
    void (async () => {
      let request: { name?: unknown; args?: unknown };
      try {
        request = await readJson(req);
      } catch {
        return void res.writeHead(400).end();
      }
      const operation = typeof request.name === 'string' ? OPERATIONS[request.name] : undefined;
      if (!operation) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const send = (m: ControlMessage) => res.write(`${JSON.stringify(m)}\n`);
      try {
        await operation({ config, database, interactive: false, out: (text) => send({ out: text }), err: (text) => send({ err: text }) }, request.args);
        send({ exit: 0 });
      } catch (e) {
        if (e instanceof CliFailure) send({ exit: e.exitCode, message: e.message });
        else {
          log(e);
          send({ exit: 1, message: `the command failed in the server: ${e instanceof Error ? e.message : String(e)}` });
        }
      }
      res.end();
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  const pointer = pointerFile(config.dataDir);
  try {
    chmodSync(path, 0o600);
    // Written once the socket answers, so a command that reads it can reach the server.
    writeFileSync(pointer, `${path}\n`, { mode: 0o600 });
  } catch (e) {
    // A socket left listening would keep the process alive after the start failed (Node
    // shortens an over-long socket path, so listen can succeed where chmod then fails).
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw e;
  }
  return {
    close: () =>
      new Promise<void>((resolve) => {
        if (socketOf(config) === path) rmSync(pointer, { force: true });
        // Node removes the socket file when the server closes.
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

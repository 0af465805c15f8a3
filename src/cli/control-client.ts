/**
 * The embedded database (PGlite) lives inside one process: a second process that opens
 * the same DATA_DIR works on its own copy of the files, and whichever closes last
 * overwrites the other's changes (a `keys revoke` beside a running server took no effect
 * and was then lost; a `keys create` beside it crashed in PGlite's WASM). So while
 * `serve` or `start` holds a DATA_DIR, it listens on a Unix socket of its own, and the
 * commands that touch the database (import, keys, users) run inside it instead
 * (control-server.ts). This is the client half: the socket's path, and the forwarding.
 *
 * PostgreSQL needs none of this: every process opens its own sessions on one server.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { CliFailure } from './failure.js';

/**
 * Where a server puts its control socket: under the temporary directory, not inside
 * DATA_DIR (a Unix socket path is limited to 107 bytes, and a data folder may be deep),
 * named by a hash of the folder's absolute path.
 */
export function controlSocketPath(dataDir: string): string {
  const id = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 24);
  return join(tmpdir(), `partner-reports-${id}.sock`);
}

/**
 * The file inside DATA_DIR that names the socket of the server holding it. Commands find
 * the socket through it, not by working the path out again: a command run with another
 * TMPDIR than the server's (a different shell, `npm start` under a set TMPDIR) would
 * otherwise look in the wrong place, open the database itself, and lose its change.
 */
export const pointerFile = (dataDir: string): string => join(dataDir, '.partner-reports-server');

/** The embedded database in a folder: the only database a server holds for itself. */
export const holdsDataDir = (config: Pick<Config, 'databaseUrl' | 'dataDir'>): boolean => !config.databaseUrl && config.dataDir !== 'memory://';

/**
 * The socket the pointer in the configured DATA_DIR names, if there is one (it may be
 * stale: a server that died leaves it); none for PostgreSQL or an in-memory database.
 */
export function socketOf(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string | undefined {
  if (!holdsDataDir(config)) return undefined;
  try {
    return readFileSync(pointerFile(config.dataDir), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** One line of a control answer: output as it is written, then the exit status. */
export type ControlMessage = { out: string } | { err: string } | { exit: number; message?: string };

export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

/**
 * Runs the operation in the server holding the socket, writing its output as it comes.
 * False when no server listens there (no socket, or a stale one: the operation then runs
 * here). A failed operation throws CliFailure with the server's message and exit status.
 */
export function forwardToServer(socketPath: string, name: string, args: unknown, output: Output): Promise<boolean> {
  return new Promise((done, fail) => {
    let settled = false;
    const finish = (f: () => void) => {
      if (!settled) {
        settled = true;
        f();
      }
    };
    const req = request({ socketPath, method: 'POST', path: '/operations', headers: { 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        finish(() => fail(new CliFailure(`the server holding this DATA_DIR refused the command (status ${res.statusCode})`)));
        return;
      }
      let pending = '';
      let exit: { exit: number; message?: string } | undefined;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
          const message = JSON.parse(pending.slice(0, nl)) as ControlMessage;
          pending = pending.slice(nl + 1);
          if ('out' in message) output.out(message.out);
          else if ('err' in message) output.err(message.err);
          else exit = message;
        }
      });
      res.on('end', () =>
        finish(() => {
          if (!exit) fail(new CliFailure('the server holding this DATA_DIR stopped before the command finished'));
          else if (exit.exit !== 0) fail(new CliFailure(exit.message ?? 'the command failed in the server', exit.exit));
          else done(true);
        }),
      );
      res.on('error', (err) => finish(() => fail(err)));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // Nothing listens: no server holds this DATA_DIR (a socket left by one that crashed
      // refuses connections, and the next server to start removes it).
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') finish(() => done(false));
      else finish(() => fail(err));
    });
    req.end(JSON.stringify({ name, args }));
  });
}

/** Whether a server listens on the socket (it holds the DATA_DIR). */
export function serverListening(socketPath: string): Promise<boolean> {
  return new Promise((done) => {
    const req = request({ socketPath, method: 'GET', path: '/health' }, (res) => {
      res.resume();
      done(true);
    });
    req.on('error', () => done(false));
    req.end();
  });
}

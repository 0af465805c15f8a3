/**
 * One process at a time on the embedded database's DATA_DIR.
 *
 * PGlite keeps the database in its process and writes the folder back as it goes: two
 * processes on one DATA_DIR each work on their own copy, and the last to write wins (two
 * `keys create` at once both printed a key and one key was lost; an `import` run while
 * `serve` was starting, before its control socket was up, left a folder that would not
 * open again). control-client.ts sends commands to a server that is up; this lock covers
 * the rest: whoever opens the folder (a server, or a command when no server is up) holds
 * `DATA_DIR/.partner-reports-lock` until it has closed the database, and everyone else waits
 * for it, or, for a server, reaches it through its socket once that is up.
 *
 * Written by hand: Node has no flock, and the lock libraries on npm (proper-lockfile) find
 * a dead holder by a lock file's age, refreshed on a timer. PGlite's WebAssembly can hold
 * the event loop longer than any such age during a large import, and a live holder
 * taken for dead is the very corruption this prevents. Here a holder is dead when its
 * process is: the file names its pid, and `kill(pid, 0)` tells.
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export type HolderRole = 'server' | 'command';

export interface Holder {
  pid: number;
  role: HolderRole;
}

export interface DataDirLock {
  /** Gives the folder up (idempotent); call after the database is closed. */
  release(): void;
}

export const lockFile = (dataDir: string): string => join(dataDir, '.partner-reports-lock');

/** Whether a process of this pid runs (EPERM: it does, as another user). */
function alive(pid: number): boolean {
  if (pid === process.pid) return false; // a file naming us that we did not write is a previous life's
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): Holder | undefined {
  try {
    const [pid, role] = readFileSync(path, 'utf8').trim().split(' ');
    return { pid: Number(pid), role: role === 'server' ? 'server' : 'command' };
  } catch {
    return undefined;
  }
}

/**
 * Takes the folder for this process, or says who holds it. A lock left by a process that
 * no longer runs (killed, crashed) is removed and taken. Throws what the file system says
 * when the folder cannot be made or written (a file in its place, no permission).
 */
export function tryLockDataDir(dataDir: string, role: HolderRole): DataDirLock | Holder {
  mkdirSync(dataDir, { recursive: true });
  const path = lockFile(dataDir);
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 5) throw error;
      const holder = readHolder(path);
      // Unreadable or half-written: its writer is between open and write; a moment later it is whole.
      if (!holder || !Number.isInteger(holder.pid) || holder.pid <= 0) return { pid: 0, role: 'command' };
      if (alive(holder.pid)) return holder;
      // Read again just before removing, so that a lock taken in between by a live process stays.
      const again = readHolder(path);
      if (again?.pid === holder.pid) unlinkSync(path);
      continue;
    }
    try {
      writeSync(fd, `${process.pid} ${role}\n`);
    } finally {
      closeSync(fd);
    }
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      process.off('exit', release);
      // Only our own: a lock file another process took after ours was removed stays.
      if (readHolder(path)?.pid === process.pid) unlinkSync(path);
    };
    // A process that ends without closing its database (an exit on a fatal error) gives the
    // folder up too; a killed one leaves the file, and the next process finds it dead.
    process.on('exit', release);
    return { release };
  }
}

export const isHolder = (x: DataDirLock | Holder): x is Holder => 'pid' in x;

/** How long a command or a starting server waits for the folder before it gives up. */
export const LOCK_WAIT_MS = 10 * 60 * 1000;

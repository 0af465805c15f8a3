import type { Config } from '../config.js';

/** Thrown by subcommands for a failure already explained in its message; exits non-zero without a stack. */
export class CliFailure extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'CliFailure';
  }
}

/**
 * A listen error said in one line (the port in use, not allowed, an address this host
 * does not have), as the command line reports a problem it understands.
 */
export function listenFailure(error: unknown, config: Pick<Config, 'host' | 'port'>): CliFailure | undefined {
  const code = (error as { code?: string }).code;
  const where = `${config.host}:${config.port}`;
  const reason: Record<string, string> = {
    EADDRINUSE: 'the port is in use',
    EACCES: 'not allowed to listen there',
    EADDRNOTAVAIL: 'this host has no such address',
    ENOTFOUND: 'the host name does not resolve',
    EAI_AGAIN: 'the host name does not resolve',
  };
  return code && reason[code] ? new CliFailure(`cannot listen on ${where}: ${reason[code]} (${code})`) : undefined;
}

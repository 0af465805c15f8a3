import { CliFailure } from './failure.js';

export async function startCommand(_options: { port?: number; host?: string }): Promise<void> {
  throw new CliFailure('start is not available yet (issue 2)');
}

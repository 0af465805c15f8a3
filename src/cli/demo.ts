import { CliFailure } from './failure.js';

export async function demoCommand(_options: { out: string; scale: number; seed: number }): Promise<void> {
  throw new CliFailure('demo is not available yet (issue 2)');
}

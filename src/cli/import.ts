import { CliFailure } from './failure.js';

export async function importCommand(_dir: string, _options: { progress: boolean }): Promise<void> {
  throw new CliFailure('import is not available yet (issue 2)');
}

import { CliFailure } from './failure.js';

export async function usersSetPasswordCommand(_options: { org: string; email: string }): Promise<void> {
  throw new CliFailure('users set-password is not available yet (issue 5)');
}

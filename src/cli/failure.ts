/** Thrown by subcommands for a failure already explained in its message; exits non-zero without a stack. */
export class CliFailure extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'CliFailure';
  }
}

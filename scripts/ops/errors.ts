/** Bad input to an operator command: printed as one line and exit code 2, never a stack trace. */
export class OpsUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OpsUsageError';
  }
}

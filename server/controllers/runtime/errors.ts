// The reconcile contract's error kinds (controller-runtime pkg/reconcile):
// any thrown error is retried with exponential backoff, except a TerminalError, which is
// recorded (log, metric) and not retried until the key changes again.

export class TerminalError extends Error {
  constructor(
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'TerminalError';
  }
}

export function isTerminalError(e: unknown): e is TerminalError {
  return e instanceof TerminalError;
}

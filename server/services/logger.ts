// The process's logger (pino): used by the services, the transports, the controllers and
// the composition root alike, so it lives at the lowest layer that does I/O besides the store.
import pino from 'pino';
import { maskCredentials } from '../domain/redaction';

/** An error as the log shows it: credentials in its message and stack masked. */
function errSerializer(err: unknown): unknown {
  const o = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  if (!o || typeof o !== 'object') return o;
  for (const k of ['message', 'stack'] as const) if (typeof o[k] === 'string') o[k] = maskCredentials(o[k]);
  return o;
}

export const logger = pino({
  level: process.env.STOWAGE_LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  base: undefined,
  serializers: { err: errSerializer },
  // Secrets never reach the log: these fields are censored wherever they appear, and
  // credentials inside log messages are masked.
  redact: {
    paths: ['password', '*.password', 'token', '*.token', 'parameters', '*.parameters', 'data', '*.data', 'headers.authorization', 'headers.cookie', '*.headers.authorization', '*.headers.cookie'],
    censor: '(redacted)',
  },
  hooks: {
    logMethod(args, method) {
      method.apply(this, args.map((a) => (typeof a === 'string' ? maskCredentials(a) : a)) as Parameters<typeof method>);
    },
  },
});

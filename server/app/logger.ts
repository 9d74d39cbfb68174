import pino from 'pino';

export const logger = pino({
  level: process.env.STOWAGE_LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  base: undefined,
});

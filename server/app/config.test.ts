import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

describe('loadConfig: STOWAGE_SHUTDOWN_DELAY_SECONDS', () => {
  it.each([
    { value: undefined, ms: 0 },
    { value: '', ms: 0 },
    { value: '5', ms: 5000 },
    { value: '300', ms: 300_000 },
    { value: '3600', ms: 300_000 }, // capped: a stop must not wait an hour
  ])('$value → $ms ms', ({ value, ms }) => {
    expect(loadConfig({ NODE_ENV: 'test', STOWAGE_SHUTDOWN_DELAY_SECONDS: value }).shutdownDelayMs).toBe(ms);
  });

  it.each(['-1', '1.5', 'five'])('%s is refused, naming the variable', (value) => {
    expect(() => loadConfig({ NODE_ENV: 'test', STOWAGE_SHUTDOWN_DELAY_SECONDS: value })).toThrow(/STOWAGE_SHUTDOWN_DELAY_SECONDS must be a whole number/);
  });
});

describe('loadConfig: STOWAGE_DASHBOARD', () => {
  it.each([
    { value: undefined, dashboard: true },
    { value: '', dashboard: true },
    { value: 'on', dashboard: true },
    { value: 'off', dashboard: false },
  ])('$value → $dashboard', ({ value, dashboard }) => {
    expect(loadConfig({ NODE_ENV: 'test', STOWAGE_DASHBOARD: value }).dashboard).toBe(dashboard);
  });

  it.each(['no', 'false', '0', 'OFF'])('%s is refused, naming the variable', (value) => {
    expect(() => loadConfig({ NODE_ENV: 'test', STOWAGE_DASHBOARD: value })).toThrow(`STOWAGE_DASHBOARD must be on or off, got "${value}"`);
  });
});

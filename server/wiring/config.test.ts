import { describe, expect, it } from 'vitest';
import { loadConfig, loadSignInLimits } from './config';

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

describe('loadConfig: STOWAGE_REPLICATION_LISTEN and _ADVERTISE', () => {
  it.each([
    { value: undefined, want: undefined },
    { value: '', want: undefined },
    { value: '0.0.0.0:7480', want: '0.0.0.0:7480' },
    { value: '[::]:7480', want: '[::]:7480' },
    { value: 'node-a.example:0', want: 'node-a.example:0' },
  ])('$value → $want', ({ value, want }) => {
    expect(loadConfig({ NODE_ENV: 'test', STOWAGE_REPLICATION_LISTEN: value }).replicationListen).toBe(want);
    expect(loadConfig({ NODE_ENV: 'test', STOWAGE_REPLICATION_ADVERTISE: value }).replicationAdvertise).toBe(want);
  });

  it.each(['7480', 'host', 'a b:1', 'host:65536', '::1:7480', 'https://host:1'])('%s is refused, naming the variable', (value) => {
    expect(() => loadConfig({ NODE_ENV: 'test', STOWAGE_REPLICATION_LISTEN: value })).toThrow(/STOWAGE_REPLICATION_LISTEN must be host:port/);
    expect(() => loadConfig({ NODE_ENV: 'test', STOWAGE_REPLICATION_ADVERTISE: value })).toThrow(/STOWAGE_REPLICATION_ADVERTISE must be host:port/);
  });
});

describe('loadSignInLimits: STOWAGE_SIGNIN_*', () => {
  it('defaults: 5 free failures per name and address, then 1 s doubling to 5 min; 100 per address', () => {
    expect(loadSignInLimits({ NODE_ENV: 'test' })).toEqual({
      freeFailures: 5,
      firstDelayMs: 1000,
      maxDelayMs: 300_000,
      addressCeiling: 100,
      windowMs: 900_000,
      concurrency: 2,
      queue: 32,
    });
  });

  it.each([
    { env: { STOWAGE_SIGNIN_ADDRESS_CEILING: '50' }, field: 'addressCeiling', want: 50 },
    { env: { STOWAGE_SIGNIN_MAX_FAILURES_PER_ADDRESS: '40' }, field: 'addressCeiling', want: 40 },
    { env: { STOWAGE_SIGNIN_ADDRESS_CEILING: '50', STOWAGE_SIGNIN_MAX_FAILURES_PER_ADDRESS: '40' }, field: 'addressCeiling', want: 50 },
    { env: { STOWAGE_SIGNIN_MAX_DELAY_SECONDS: '60' }, field: 'maxDelayMs', want: 60_000 },
    { env: { STOWAGE_SIGNIN_LOCKOUT_SECONDS: '30' }, field: 'maxDelayMs', want: 30_000 },
    { env: { STOWAGE_SIGNIN_FIRST_DELAY_SECONDS: '2' }, field: 'firstDelayMs', want: 2000 },
    { env: { STOWAGE_SIGNIN_MAX_FAILURES: '0' }, field: 'freeFailures', want: 1 },
  ])('$env → $field $want (the old names are still read)', ({ env, field, want }) => {
    expect(loadSignInLimits({ NODE_ENV: 'test', ...env })[field as 'freeFailures']).toBe(want);
  });

  it('a value that is not a whole number is refused, naming the variable', () => {
    expect(() => loadSignInLimits({ NODE_ENV: 'test', STOWAGE_SIGNIN_LOCKOUT_SECONDS: 'soon' })).toThrow(/STOWAGE_SIGNIN_LOCKOUT_SECONDS must be a whole number/);
  });
});

describe('loadConfig: STOWAGE_ALLOWED_ORIGINS', () => {
  it.each([
    { value: undefined, want: [] },
    { value: 'https://stowage.example.com', want: ['https://stowage.example.com'] },
    { value: ' https://Stowage.Example.com/ , http://10.0.0.5:8080', want: ['https://stowage.example.com', 'http://10.0.0.5:8080'] },
    { value: 'https://stowage.example.com:443', want: ['https://stowage.example.com'] },
  ])('$value → $want', ({ value, want }) => {
    expect(loadConfig({ NODE_ENV: 'test', STOWAGE_ALLOWED_ORIGINS: value }).allowedOrigins).toEqual(want);
  });

  it.each(['stowage.example.com', 'https://stowage.example.com/dashboard', 'ftp://stowage.example.com', 'https://'])('%s is refused, naming the variable', (value) => {
    expect(() => loadConfig({ NODE_ENV: 'test', STOWAGE_ALLOWED_ORIGINS: value })).toThrow(/STOWAGE_ALLOWED_ORIGINS: .* is not an origin/);
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

describe('loadConfig: STOWAGE_NODE_MONITOR_GRACE_SECONDS', () => {
  it.each([
    [undefined, 40_000],
    ['', 40_000],
    ['20', 20_000],
    ['90', 90_000],
  ])('%s → %d ms', (value, ms) => {
    expect(loadConfig({ NODE_ENV: 'test', ...(value !== undefined ? { STOWAGE_NODE_MONITOR_GRACE_SECONDS: value } : {}) }).nodeGraceMs).toBe(ms);
  });
  it.each(['4', '19', '3601', 'soon', '-1', '2.5'])('refuses %s', (value) => {
    expect(() => loadConfig({ NODE_ENV: 'test', STOWAGE_NODE_MONITOR_GRACE_SECONDS: value })).toThrow('STOWAGE_NODE_MONITOR_GRACE_SECONDS');
  });
});

describe('loadConfig: STOWAGE_API_WORKERS', () => {
  it.each([
    { value: undefined, want: 'auto' },
    { value: '', want: 'auto' },
    { value: 'auto', want: 'auto' },
    { value: '0', want: 0 },
    { value: '2', want: 2 },
  ])('$value → $want', ({ value, want }) => {
    expect(loadConfig({ NODE_ENV: 'test', STOWAGE_API_WORKERS: value }).apiWorkers).toBe(want);
  });

  it.each(['-1', 'many', '17', '1.5'])('%s is refused, naming the variable', (value) => {
    expect(() => loadConfig({ NODE_ENV: 'test', STOWAGE_API_WORKERS: value })).toThrow(/STOWAGE_API_WORKERS must be auto or a whole number from 0 to 16/);
  });
});

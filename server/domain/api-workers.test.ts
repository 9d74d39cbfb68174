import { describe, expect, it } from 'vitest';
import { apiWorkerCount, parseApiWorkers, restartDelayMs } from './api-workers';

describe('parseApiWorkers', () => {
  it.each([
    { text: 'auto', want: 'auto' },
    { text: ' auto ', want: 'auto' },
    { text: '0', want: 0 },
    { text: '1', want: 1 },
    { text: '16', want: 16 },
    { text: '17', want: undefined },
    { text: '-1', want: undefined },
    { text: '1.5', want: undefined },
    { text: '', want: undefined },
    { text: 'AUTO', want: undefined },
    { text: '999', want: undefined },
    { text: 'two', want: undefined },
  ])('"$text" → $want', ({ text, want }) => {
    expect(parseApiWorkers(text)).toBe(want);
  });
});

describe('apiWorkerCount', () => {
  it.each([
    { setting: 'auto' as const, cpus: 1, want: 0 },
    { setting: 'auto' as const, cpus: 2, want: 0 },
    { setting: 'auto' as const, cpus: 3, want: 0 },
    { setting: 'auto' as const, cpus: 4, want: 1 },
    { setting: 'auto' as const, cpus: 8, want: 1 },
    { setting: 0, cpus: 8, want: 0 },
    { setting: 3, cpus: 1, want: 3 },
  ])('$setting on $cpus CPUs → $want', ({ setting, cpus, want }) => {
    expect(apiWorkerCount(setting, cpus)).toBe(want);
  });
});

describe('restartDelayMs', () => {
  it.each([
    { deaths: 0, ms: 1000 },
    { deaths: 1, ms: 1000 },
    { deaths: 2, ms: 2000 },
    { deaths: 3, ms: 4000 },
    { deaths: 5, ms: 16_000 },
    { deaths: 6, ms: 30_000 },
    { deaths: 60, ms: 30_000 },
  ])('death $deaths in a row → $ms ms', ({ deaths, ms }) => {
    expect(restartDelayMs(deaths)).toBe(ms);
  });
});

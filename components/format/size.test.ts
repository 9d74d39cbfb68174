import { describe, expect, test } from 'vitest';
import { exactSize, formatQuotaCell, formatSize, isSizeResource } from './size';

describe('formatSize (every size the dashboard shows)', () => {
  test.each<[string | number | bigint | null | undefined, string]>([
    [undefined, ''],
    [null, ''],
    [0, '0 B'],
    ['0', '0 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    ['1536', '1.5 KiB'],
    [10n * 1024n ** 2n, '10 MiB'],
    ['200Mi', '200 MiB'],
    ['1.5Gi', '1.5 GiB'],
    ['1536Mi', '1.5 GiB'],
    ['264212084Ki', '252 GiB'],
    ['307204Ki', '300 MiB'],
    ['76797532Ki', '73.2 GiB'],
    ['184772Mi', '180 GiB'],
    ['2Ti', '2 TiB'],
    ['1Pi', '1 PiB'],
    ['2048Pi', '2048 PiB'],
    ['1023Mi', '0.999 GiB'],
    ['1048575Ki', '1 GiB'],
    ['10G', '9.31 GiB'],
    ['1e3', '1000 B'],
    ['500m', '1 B'],
    ['-1Gi', '-1 GiB'],
    ['lots', 'lots'],
  ])('formatSize(%s) = %s', (v, want) => expect(formatSize(v)).toBe(want));
});

test.each<[string | number | undefined, string | undefined]>([
  ['264212084Ki', '264212084Ki'],
  ['1536', '1536 bytes'],
  [1536, '1536 bytes'],
  ['', undefined],
  [undefined, undefined],
])('exactSize(%s) = %s', (v, want) => expect(exactSize(v)).toBe(want));

test.each<[string, string]>([
  ['requests.storage: 184772Mi/2Ti', 'requests.storage: 180 GiB/2 TiB'],
  ['persistentvolumeclaims: 3/10, requests.storage: 5Gi/6Gi', 'persistentvolumeclaims: 3/10, requests.storage: 5 GiB/6 GiB'],
  ['fast.storageclass.storage.k8s.io/requests.storage: 1Gi/4Gi', 'fast.storageclass.storage.k8s.io/requests.storage: 1 GiB/4 GiB'],
  ['limits.memory: 512Mi/1Gi, limits.cpu: 500m/2', 'limits.memory: 512 MiB/1 GiB, limits.cpu: 500m/2'],
  ['', ''],
])('formatQuotaCell(%s) = %s', (cell, want) => expect(formatQuotaCell(cell)).toBe(want));

test.each<[string, boolean]>([
  ['requests.storage', true],
  ['ephemeral-storage', true],
  ['memory', true],
  ['hugepages-2Mi', true],
  ['cpu', false],
  ['pods', false],
  ['persistentvolumeclaims', false],
])('isSizeResource(%s) = %s', (name, want) => expect(isSizeResource(name)).toBe(want));

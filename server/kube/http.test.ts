import { describe, expect, it } from 'vitest';
import { acceptsGzip } from './http';

describe('acceptsGzip (RFC 9110 Accept-Encoding)', () => {
  it.each([
    { header: undefined, want: false },
    { header: '', want: false },
    { header: 'gzip', want: true },
    { header: 'deflate, gzip;q=0.5', want: true },
    { header: 'GZIP', want: true },
    { header: 'gzip;q=0', want: false },
    { header: 'br, *', want: true },
    { header: 'identity', want: false },
    { header: ['deflate', 'gzip'], want: true },
  ])('$header -> $want', ({ header, want }) => {
    expect(acceptsGzip(header)).toBe(want);
  });
});

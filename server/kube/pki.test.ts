import { X509Certificate } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { caPemPath, ensureServingPki, servingNames } from './pki';

const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-pki-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('makes a CA and a serving certificate for loopback, localhost, the host name and extra names', () => {
  const names = servingNames(['stowage.example.com', '10.1.2.3']);
  expect(names).toEqual(expect.arrayContaining(['127.0.0.1', '::1', 'localhost', os.hostname().toLowerCase(), 'stowage.example.com', '10.1.2.3']));
  const pki = ensureServingPki(dir, names);
  expect(readFileSync(caPemPath(dir), 'utf8')).toBe(pki.caPem);
  const ca = new X509Certificate(pki.caPem);
  const cert = new X509Certificate(pki.certPem);
  expect(ca.ca).toBe(true);
  expect(cert.ca).toBe(false);
  expect(cert.checkIssued(ca)).toBe(true);
  expect(cert.verify(ca.publicKey)).toBe(true);
  expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
  expect(cert.checkIP('10.1.2.3')).toBe('10.1.2.3');
  expect(cert.checkHost('localhost')).toBe('localhost');
  expect(cert.checkHost('stowage.example.com')).toBe('stowage.example.com');
  expect(statSync(path.join(dir, 'pki', 'ca.key')).mode & 0o077).toBe(0);
  expect(statSync(path.join(dir, 'pki', 'apiserver.key')).mode & 0o077).toBe(0);
});

test('reuses what is there, and re-issues the serving certificate (same CA) for a new name', () => {
  const first = ensureServingPki(dir, servingNames(['stowage.example.com']));
  const again = ensureServingPki(dir, servingNames(['stowage.example.com']));
  expect(again.certPem).toBe(first.certPem);
  const more = ensureServingPki(dir, servingNames(['other.example.com']));
  expect(more.caPem).toBe(first.caPem);
  expect(more.certPem).not.toBe(first.certPem);
  expect(new X509Certificate(more.certPem).checkHost('other.example.com')).toBe('other.example.com');
});

test('a re-issued serving certificate keeps the names it covered (another replica of the data dir serves them)', () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'stowage-pki-'));
  try {
    ensureServingPki(d, servingNames(['replica-a.example.com']));
    const both = ensureServingPki(d, servingNames(['replica-b.example.com']));
    const cert = new X509Certificate(both.certPem);
    expect(cert.checkHost('replica-a.example.com')).toBe('replica-a.example.com');
    expect(cert.checkHost('replica-b.example.com')).toBe('replica-b.example.com');
    // And replica a, starting again, finds its name covered: nothing re-issued.
    expect(ensureServingPki(d, servingNames(['replica-a.example.com'])).certPem).toBe(both.certPem);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('processes starting at once on one data dir end up with one CA', async () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'stowage-pki-'));
  try {
    const script = `import { ensureServingPki } from ${JSON.stringify(path.resolve('server/kube/pki.ts'))};
      process.stdout.write(ensureServingPki(${JSON.stringify(d)}, ['127.0.0.1']).caPem);`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- execFile's error type is an Omit<> of Error, but it is an Error
        execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], (err, out) => (err ? reject(err) : resolve(out)));
      });
    const cas = await Promise.all([run(), run(), run(), run()]);
    expect(new Set(cas).size).toBe(1);
    expect(cas[0]).toBe(readFileSync(caPemPath(d), 'utf8'));
    expect(existsSync(path.join(d, 'pki', '.lock'))).toBe(false);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
}, 60_000);

import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
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

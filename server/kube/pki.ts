// The API's own certificate authority and serving certificate, kept in <dataDir>/pki/.
// Made on first start and reused after; the serving certificate is made again when it
// nears expiry or no longer covers the names asked for. Keys come from Node's crypto
// (fast); node-forge builds the X.509 certificates.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import forge from 'node-forge';

export interface ServingPki {
  caPem: string;
  certPem: string;
  keyPem: string;
  /** DNS names and IP addresses the serving certificate covers. */
  names: string[];
}

/** Where the API's CA certificate lives (kubeconfigs embed it). */
export function caPemPath(dataDir: string): string {
  return path.join(dataDir, 'pki', 'ca.crt');
}

const DAY_MS = 24 * 3600 * 1000;
const CA_DAYS = 3650;
const SERVING_DAYS = 365;
const RENEW_BEFORE_DAYS = 30;

function files(dataDir: string) {
  const dir = path.dirname(caPemPath(dataDir));
  return {
    dir,
    caCert: caPemPath(dataDir),
    caKey: path.join(dir, 'ca.key'),
    cert: path.join(dir, 'apiserver.crt'),
    key: path.join(dir, 'apiserver.key'),
  };
}

function newKeyPair(): { publicKey: forge.pki.PublicKey; privateKey: forge.pki.rsa.PrivateKey; pem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const priv = forge.pki.privateKeyFromPem(pem);
  return { privateKey: priv, publicKey: forge.pki.setRsaPublicKey(priv.n, priv.e), pem };
}

function serial(): string {
  // Positive (first bit clear), 16 bytes, as RFC 5280 asks.
  const b = randomBytes(16);
  b[0] &= 0x7f;
  return b.toString('hex');
}

function writeAtomic(file: string, content: string, mode: number): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode });
  renameSync(tmp, file);
}

function makeCa(): { certPem: string; keyPem: string } {
  const keys = newKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + CA_DAYS * DAY_MS);
  const subject = [{ name: 'commonName', value: `stowage-ca-${Math.floor(Date.now() / 1000)}` }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.pem };
}

function makeServing(caCertPem: string, caKeyPem: string, names: string[]): { certPem: string; keyPem: string } {
  const ca = forge.pki.certificateFromPem(caCertPem);
  const caKey = forge.pki.privateKeyFromPem(caKeyPem);
  const keys = newKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + SERVING_DAYS * DAY_MS);
  cert.setSubject([{ name: 'commonName', value: 'stowage-apiserver' }]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
    {
      name: 'subjectAltName',
      altNames: names.map((n) => (net.isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })),
    },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.pem };
}

/** The names the serving certificate must cover: loopback, localhost, this host, extras. */
export function servingNames(extraNames: string[] = [], host?: string): string[] {
  const names = ['127.0.0.1', '::1', 'localhost', os.hostname(), ...extraNames];
  if (host && host !== '0.0.0.0' && host !== '::') names.push(host);
  return [...new Set(names.map((n) => n.trim().toLowerCase()).filter(Boolean))];
}

function coveredNames(certPem: string): { names: Set<string>; notAfter: Date; issuer: string } {
  const cert = forge.pki.certificateFromPem(certPem);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- forge types the extension as `{}`; the assertion names its subjectAltName fields
  const ext = cert.getExtension('subjectAltName') as { altNames?: { type: number; value?: string; ip?: string }[] } | undefined;
  const names = new Set<string>();
  for (const a of ext?.altNames ?? []) {
    if (a.type === 7 && a.ip) names.add(a.ip.toLowerCase());
    else if (a.value) names.add(a.value.toLowerCase());
  }
  return { names, notAfter: cert.validity.notAfter, issuer: cert.issuer.hash };
}

/**
 * Loads the CA and serving certificate from <dataDir>/pki, making what is missing,
 * expiring or not covering `names`.
 */
export function ensureServingPki(dataDir: string, names: string[]): ServingPki {
  const f = files(dataDir);
  mkdirSync(f.dir, { recursive: true, mode: 0o700 });
  // Replicas sharing a data dir start together: one makes the CA, the others use it.
  return withPkiLock(f.dir, () => ensureLocked(f, names));
}

const LOCK_STALE_MS = 60_000;

/** Runs `fn` holding <pki>/.lock (a directory: mkdir is atomic); a lock left by a dead process goes stale. */
function withPkiLock<T>(dir: string, fn: () => T): T {
  const lock = path.join(dir, '.lock');
  const deadline = Date.now() + 2 * LOCK_STALE_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} is held by another process; remove it if no Stowage is starting`, { cause: e });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function ensureLocked(f: ReturnType<typeof files>, names: string[]): ServingPki {
  let caPem: string;
  let caKeyPem: string;
  if (existsSync(f.caCert) && existsSync(f.caKey)) {
    caPem = readFileSync(f.caCert, 'utf8');
    caKeyPem = readFileSync(f.caKey, 'utf8');
  } else {
    ({ certPem: caPem, keyPem: caKeyPem } = makeCa());
    writeAtomic(f.caKey, caKeyPem, 0o600);
    writeAtomic(f.caCert, caPem, 0o644);
  }
  const caSubject = forge.pki.certificateFromPem(caPem).subject.hash;
  let kept: string[] = [];
  if (existsSync(f.cert) && existsSync(f.key)) {
    const certPem = readFileSync(f.cert, 'utf8');
    const have = coveredNames(certPem);
    const fresh = have.notAfter.getTime() - Date.now() > RENEW_BEFORE_DAYS * DAY_MS;
    if (fresh && have.issuer === caSubject && names.every((n) => have.names.has(n.toLowerCase()))) {
      return { caPem, certPem, keyPem: readFileSync(f.key, 'utf8'), names: [...have.names] };
    }
    // Keep the names it covers (other replicas of this data dir may serve them) and add ours.
    if (have.issuer === caSubject) kept = [...have.names];
  }
  const wanted = [...new Set([...kept, ...names.map((n) => n.toLowerCase())])];
  const serving = makeServing(caPem, caKeyPem, wanted);
  writeAtomic(f.key, serving.keyPem, 0o600);
  writeAtomic(f.cert, serving.certPem, 0o644);
  return { caPem, certPem: serving.certPem, keyPem: serving.keyPem, names: wanted };
}

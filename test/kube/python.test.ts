// The Kubernetes Python client (Debian's python3-kubernetes under /usr/bin/python3) against
// a real Stowage API server: list, create, patch, delete and a watch.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { pythonHasKubernetes, startKubeHarness, type KubeHarness } from './harness';

const python = process.env.STOWAGE_TEST_PYTHON ?? '/usr/bin/python3';
const available = pythonHasKubernetes(python);
if (!available) console.log(`skipping Python client tests: ${python} cannot import kubernetes (apt-get install python3-kubernetes)`);

let h: KubeHarness;
beforeAll(async () => {
  if (available) h = await startKubeHarness();
});
afterAll(async () => {
  await h?.close();
});

test.skipIf(!available)('the Python client lists, creates, patches, deletes and watches', async () => {
  const script = path.join(import.meta.dirname, 'python', 'client_check.py');
  const out = await new Promise<string>((resolve, reject) => {
    execFile(python, [script, h.kubeconfig.admin], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
  const report = JSON.parse(out.trim().split('\n').at(-1)!);
  expect(report.created).toEqual(['py-pv', '2Gi', 'Pending']);
  expect(report.list).toEqual(['py-pv']);
  expect(report.patched).toEqual({ from: 'python', step: 'patched' });
  expect(report.claim).toEqual(['team-a', 'Pending']);
  expect(report.after_delete).toBe(404);
  expect(report.not_found).toEqual([404, 'NotFound']);
  expect(report.events).toEqual([
    ['ADDED', 'py-pv', ''],
    ['MODIFIED', 'py-pv', 'patched'],
    // the delete: deletionTimestamp set while kubernetes.io/pv-protection holds it, then gone
    ['MODIFIED', 'py-pv', 'patched'],
    ['DELETED', 'py-pv', 'patched'],
  ]);
});

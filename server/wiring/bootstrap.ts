// First-start work: the first admin (password printed once, stored hashed), the
// "default" namespace, and the admin kubeconfig.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from './context';
import { caPemPath } from '../kube/pki';
import { renderKubeconfig } from '../services/kubeconfig';
import type { KubeApiEndpoint } from '../services/user-admin';
import { writePrivateFile } from './private-file';

export interface BootstrapResult {
  adminCreated?: { name: string; password: string };
  kubeconfigPath: string;
}

/** The API's address and, when this data dir holds one, the CA that signed its certificate. */
export function kubeApiEndpoint(dataDir: string, server: string): KubeApiEndpoint {
  const caFile = caPemPath(dataDir);
  return { server, caPem: existsSync(caFile) ? readFileSync(caFile, 'utf8') : undefined };
}

export async function writeKubeconfig(app: AppContext, dataDir: string, user: string, server: string, file: string): Promise<string> {
  const token = await app.users.createToken(user, { name: `kubeconfig ${path.basename(file)}` });
  const { caPem } = kubeApiEndpoint(dataDir, server);
  // A developer's context starts in a namespace they can read, not `default`.
  const principal = await app.users.byName(user);
  const namespace = principal?.role === 'developer' ? principal.namespaces[0] : undefined;
  await writePrivateFile(file, renderKubeconfig({ server, user, token, caPem, namespace }));
  return file;
}

export async function bootstrap(app: AppContext, dataDir: string, apiUrl: string): Promise<BootstrapResult> {
  const result: Partial<BootstrapResult> = {};
  if ((await app.users.count()) === 0) {
    // Replicas starting together on one database race here: one creates the admin, the
    // others find it already there and go on.
    const created = await app.users.create({ name: 'admin', role: 'admin' }).catch((e: unknown) => {
      if ((e as { code?: string }).code === 'AlreadyExists') return undefined;
      throw e;
    });
    if (created) result.adminCreated = { name: 'admin', password: created.password };
  }
  if (!(await app.store.tryGet('Namespace', undefined, 'default'))) {
    await app.store
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } })
      .catch((e) => {
        if ((e as { code?: string }).code !== 'AlreadyExists') throw e;
      });
  }
  const kubeconfigPath = path.join(dataDir, 'admin.kubeconfig');
  if (result.adminCreated || !existsSync(kubeconfigPath)) {
    const admins = (await app.users.list()).filter((u) => u.role === 'admin');
    if (admins[0]) await writeKubeconfig(app, dataDir, admins[0].name, apiUrl, kubeconfigPath);
  }
  return { ...result, kubeconfigPath };
}

// A discovery-only API server on 127.0.0.1 for `kubectl apply --dry-run=client`: kubectl
// needs API discovery even in client dry run. It answers /api, /apis and the resource lists
// of the groups given, and 404 (a Status) for everything else: no object exists yet.
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export type DiscoveryGroups = Record<string, { name: string; kind: string; namespaced: boolean }[]>;

export interface DiscoveryStub {
  /** A kubeconfig file naming the stub (no credentials). */
  kubeconfig: string;
  /** A scratch directory beside the kubeconfig, removed by close(). */
  dir: string;
  /** Every request, as "METHOD /path". */
  requests: string[];
  close(): Promise<void>;
}

/** `groups` by path: '/api/v1' for the core group, '/apis/<group>/v1' for the others. */
export async function startDiscoveryStub(groups: DiscoveryGroups, prefix = 'stowage-kubectl-'): Promise<DiscoveryStub> {
  const requests: string[] = [];
  const named = Object.keys(groups).filter((p) => p.startsWith('/apis/')).map((p) => p.slice('/apis/'.length).split('/')[0]);
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '').split('?')[0];
    requests.push(`${req.method} ${url}`);
    const json = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url === '/api') return json(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (url === '/apis') {
      return json(200, {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: named.map((g) => ({ name: g, versions: [{ groupVersion: `${g}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${g}/v1`, version: 'v1' } })),
      });
    }
    const list = groups[url];
    if (list) {
      return json(200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: url === '/api/v1' ? 'v1' : url.slice('/apis/'.length),
        resources: list.map((r) => ({ name: r.name, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['create', 'get', 'list', 'patch', 'update', 'delete', 'watch'] })),
      });
    }
    return json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${url} not found` });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const kubeconfig = path.join(dir, 'kubeconfig');
  await fs.writeFile(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:${port}\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user: {}\ncurrent-context: c\n`,
  );
  return {
    kubeconfig,
    dir,
    requests,
    close: async () => {
      server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

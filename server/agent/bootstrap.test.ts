import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isDNS1123Label } from '../domain/names';
import { parseStorageClassMap } from '../domain/local-volume-config';
import { generateBootstrap } from './bootstrap';

const map = 'local-ssd:\n  hostDir: /mnt/ssds\nlocal-hdd:\n  hostDir: /mnt/hdds\n  blockCleanerCommand: ["shred", "2"]\n  minSize: 1Gi\n';

function gen(over: Partial<Parameters<typeof generateBootstrap>[0]> = {}) {
  const r = generateBootstrap({ storageClassMap: map, serverUrl: 'https://stowage.example:8443', nodes: ['node-a', 'node-b'], ...over });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.output;
}
const kind = (objs: any[], k: string) => objs.find((o) => o.kind === k);

describe('generateBootstrap', () => {
  it('fills every mountDir by the seed rule, and the ConfigMap carries the result', () => {
    const out = gen();
    expect(out.classes.map((c) => [c.className, c.hostDir, c.mountDir])).toEqual([
      ['local-ssd', '/mnt/ssds', '/mnt/local-storage/mnt~ssds'],
      ['local-hdd', '/mnt/hdds', '/mnt/local-storage/mnt~hdds'],
    ]);
    const cm = kind(out.objects, 'ConfigMap');
    expect(cm.metadata).toMatchObject({ name: 'local-volume-config', namespace: 'kube-system' });
    // What the ConfigMap says parses back to the same classes.
    const back = parseStorageClassMap(cm.data.storageClassMap);
    expect(back).toEqual({ ok: true, classes: out.classes });
  });

  it('the DaemonSet mounts one hostPath per discovery directory at its mountDir and gets the node name from the downward API', () => {
    const ds = kind(gen().objects, 'DaemonSet');
    const pod = ds.spec.template.spec;
    const [c] = pod.containers;
    const volumes = Object.fromEntries(pod.volumes.map((v: { name: string }) => [v.name, v]));
    const discovery = c.volumeMounts.filter((m: { name: string }) => m.name.startsWith('discovery-'));
    expect(discovery.map((m: { name: string; mountPath: string }) => [volumes[m.name].hostPath.path, m.mountPath])).toEqual([
      ['/mnt/ssds', '/mnt/local-storage/mnt~ssds'],
      ['/mnt/hdds', '/mnt/local-storage/mnt~hdds'],
    ]);
    expect(c.env).toContainEqual({ name: 'MY_NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } });
    // MY_NODE_NAME is read: Kubernetes expands $(MY_NODE_NAME) in args, and the agent checks its token is that node's.
    expect(c.args).toEqual([
      'agent',
      '--node',
      '$(MY_NODE_NAME)',
      '--server',
      'https://stowage.example:8443',
      '--token-file',
      '/etc/stowage/node-token',
      '--ca-file',
      '/etc/stowage/ca.crt',
      '--state-dir',
      '/var/lib/stowage/agent',
      '--pods-dir',
      '/var/lib/stowage/pods',
      '--pool-root',
      '/host',
      '--replication-listen',
      '0.0.0.0:7444',
    ]);
    // Other nodes' agents reach this one's replication listener at its pod IP, on a named port.
    expect(c.ports).toEqual([{ name: 'replication', containerPort: 7444, protocol: 'TCP' }]);
    // The state and pods directories are the host's, at the same paths; the agent's bind mounts of
    // pods' volumes reach the host (Bidirectional); pools are found under the host's / at /host.
    const mountOf = (name: string) => c.volumeMounts.find((m: { name: string }) => m.name === name);
    expect([volumes.state.hostPath, mountOf('state')]).toEqual([{ path: '/var/lib/stowage/agent', type: 'DirectoryOrCreate' }, { name: 'state', mountPath: '/var/lib/stowage/agent' }]);
    expect([volumes.pods.hostPath, mountOf('pods')]).toEqual([
      { path: '/var/lib/stowage/pods', type: 'DirectoryOrCreate' },
      { name: 'pods', mountPath: '/var/lib/stowage/pods', mountPropagation: 'Bidirectional' },
    ]);
    expect([volumes['host-root'].hostPath, mountOf('host-root')]).toEqual([{ path: '/', type: 'Directory' }, { name: 'host-root', mountPath: '/host', mountPropagation: 'HostToContainer' }]);
    // Root and privileged whatever the image's default user (the image runs the server as uid 1000).
    expect(c.securityContext).toEqual({ privileged: true, runAsUser: 0 });
    // Every mount has its volume, every name is a DNS label, the selector selects the template.
    for (const m of c.volumeMounts) expect(volumes[m.name]).toBeDefined();
    for (const v of pod.volumes) expect(isDNS1123Label(v.name)).toEqual([]);
    for (const [k, v] of Object.entries(ds.spec.selector.matchLabels)) expect(ds.spec.template.metadata.labels[k]).toBe(v);
    expect(pod.serviceAccountName).toBe('local-storage-admin');
  });

  it('the service account may read nodes and its ConfigMap, and nothing about PVs', () => {
    const objs = gen().objects;
    const rules = objs.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role').flatMap((o) => o.rules as { resources: string[]; verbs: string[] }[]);
    expect(rules).toEqual([
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['local-volume-config'], verbs: ['get', 'watch', 'list'] },
    ]);
    expect(JSON.stringify(objs)).not.toContain('persistentvolume');
  });

  it('writes one agent configuration per node', () => {
    expect(gen().agents).toEqual([
      { nodeName: 'node-a', server: 'https://stowage.example:8443', tokenFile: '/etc/stowage/node-token' },
      { nodeName: 'node-b', server: 'https://stowage.example:8443', tokenFile: '/etc/stowage/node-token' },
    ]);
  });

  it('the manifests are one YAML stream of the objects in order', () => {
    const out = gen({ namespace: 'storage', image: 'registry.local/stowage:1.0' });
    const docs = parseAllDocuments(out.manifests).map((d) => d.toJS());
    expect(docs).toEqual(out.objects);
    expect(docs.map((d) => d.kind)).toEqual(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'ConfigMap', 'DaemonSet']);
    expect(docs.filter((d) => d.metadata.namespace).every((d) => d.metadata.namespace === 'storage')).toBe(true);
  });

  it.each([
    { name: 'bad storageClassMap', over: { storageClassMap: 'a:\n  hostDir: rel' }, field: 'storageClassMap.a.hostDir' },
    { name: 'no classes', over: { storageClassMap: '' }, field: 'storageClassMap' },
    { name: 'bad node name', over: { nodes: ['Node_A'] }, field: 'nodes[0]' },
    { name: 'repeated node', over: { nodes: ['a', 'a'] }, field: 'nodes' },
    { name: 'bad namespace', over: { namespace: 'Kube System' }, field: 'namespace' },
    { name: 'bad server URL', over: { serverUrl: 'stowage:8443' }, field: 'serverUrl' },
    { name: 'image with a space', over: { image: 'a b' }, field: 'image' },
  ])('refuses $name ($field)', ({ over, field }) => {
    const r = generateBootstrap({ storageClassMap: map, serverUrl: 'https://s:1', ...over });
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.errors.map((e) => e.field)).toContain(field);
  });
});

// The bootstrapper (seed 003 "Provisioner Bootstrapper"), as a pure generator: from a
// storageClassMap it produces what a multi-node deployment of node agents needs:
//  - the storageClassMap with every mountDir set by the seed's rule (strip the leading "/",
//    "/" -> "~", prefix /mnt/local-storage), in the local-volume ConfigMap;
//  - Kubernetes manifests for agents running inside a cluster: a ServiceAccount with only
//    what the agent needs (read its Node, read the ConfigMap), a DaemonSet with one hostPath
//    volume per discovery directory mounted at its mountDir, the node name from the
//    downward API (MY_NODE_NAME <- spec.nodeName, passed as `--node $(MY_NODE_NAME)`, so an
//    agent given another node's token refuses to start), /dev for block devices, the
//    agent's state and pods directories at the host's paths (the pods directory with
//    Bidirectional propagation: the bind mounts the agent makes there must reach the host),
//    and the host's / at /host as the pool root (`--pool-root /host`) for btrfs pools, and
//    a replication listener (`--replication-listen 0.0.0.0:7444`, advertised at the pod's
//    IP) so the node can hold replicas;
//  - one agent configuration per named node (server URL, node name, where its token file is).
// Tokens are minted by the server (`stowage node add NAME`); the generator only says where
// each node's agent expects to find its token. No I/O here: the CLI writes the files.
import { parseDocument, stringify } from 'yaml';
import { isDNS1123Subdomain } from '../domain/names';
import { mountDirFor, parseStorageClassMap, type ConfigFieldError, type LocalClassConfig } from '../domain/local-volume-config';
import { labelAppComponent, labelAppName } from '../domain/well-known/labels';

export const defaultAgentImage = 'ghcr.io/stowage/stowage:latest';
export const defaultNamespace = 'kube-system';
export const defaultServiceAccount = 'local-storage-admin';
export const defaultConfigMapName = 'local-volume-config';
/** Where the DaemonSet's agent reads its node token (a hostPath file the admin puts on each node). */
export const tokenDirOnHost = '/etc/stowage';
export const tokenFileName = 'node-token';
/** The server's CA certificate beside the token (`<data dir>/pki/ca.crt` of the server): the agent verifies the API with it. */
export const caFileName = 'ca.crt';
/** The agent's state (its running cleanup commands) and where it publishes pods' volumes: the `stowage agent` defaults, on the host. */
export const agentStateDir = '/var/lib/stowage/agent';
export const agentPodsDir = '/var/lib/stowage/pods';
/** Where the DaemonSet's agent sees the host's `/`: btrfs pools are found under it. */
export const hostRootInPod = '/host';
/**
 * The port each DaemonSet agent takes replicas of replicated pool volumes on (TLS with a
 * one-time key per transfer). Listening on every address, the agent advertises its first
 * non-loopback IPv4 address: the pod's IP, which other nodes' agents reach.
 */
export const agentReplicationPort = 7444;

export interface BootstrapInput {
  /** storageClassMap text (YAML) as in the ConfigMap's data.storageClassMap. */
  storageClassMap: string;
  /** URL of the Stowage server the agents report to. */
  serverUrl: string;
  /** Nodes to write agent configurations for (the DaemonSet covers every node anyway). */
  nodes?: string[];
  image?: string;
  namespace?: string;
  serviceAccount?: string;
  configMapName?: string;
}

export interface AgentNodeConfig {
  nodeName: string;
  server: string;
  tokenFile: string;
}

export interface BootstrapOutput {
  /** The classes with their generated mountDirs. */
  classes: LocalClassConfig[];
  /** The storageClassMap as written into the ConfigMap (mountDir filled in). */
  storageClassMap: string;
  /** Kubernetes objects, in apply order. */
  objects: Record<string, unknown>[];
  /** The objects as one multi-document YAML stream. */
  manifests: string;
  agents: AgentNodeConfig[];
}

export type BootstrapResult = { ok: true; output: BootstrapOutput } | { ok: false; errors: ConfigFieldError[] };

const labels = { [labelAppName]: 'stowage-agent', [labelAppComponent]: 'local-volume-agent' };

function checkName(field: string, value: string, errors: ConfigFieldError[]): void {
  const errs = isDNS1123Subdomain(value);
  if (errs.length > 0) errors.push({ field, message: errs.join('; ') });
}

export function generateBootstrap(input: BootstrapInput): BootstrapResult {
  const parsed = parseStorageClassMap(input.storageClassMap);
  if (!parsed.ok) return parsed;
  const errors: ConfigFieldError[] = [];
  const namespace = input.namespace ?? defaultNamespace;
  const sa = input.serviceAccount ?? defaultServiceAccount;
  const cmName = input.configMapName ?? defaultConfigMapName;
  const image = input.image ?? defaultAgentImage;
  checkName('namespace', namespace, errors);
  checkName('serviceAccount', sa, errors);
  checkName('configMapName', cmName, errors);
  if (!/^https?:\/\/[^\s/]+/.test(input.serverUrl)) errors.push({ field: 'serverUrl', message: 'must be an http(s) URL' });
  if (!/^[^\s]{1,512}$/.test(image)) errors.push({ field: 'image', message: 'must be an image reference without spaces' });
  const nodes = input.nodes ?? [];
  nodes.forEach((n, i) => checkName(`nodes[${i}]`, n, errors));
  if (new Set(nodes).size !== nodes.length) errors.push({ field: 'nodes', message: 'must not repeat a node' });
  if (parsed.classes.length === 0) errors.push({ field: 'storageClassMap', message: 'must define at least one class' });
  if (errors.length > 0) return { ok: false, errors };

  // In the container every discovery directory sits at the seed's mountDir.
  const classes = parsed.classes.map((c) => ({ ...c, mountDir: mountDirFor(c.hostDir) }));
  const map: Record<string, Record<string, unknown>> = {};
  for (const c of classes) {
    map[c.className] = {
      hostDir: c.hostDir,
      mountDir: c.mountDir,
      blockCleanerCommand: c.blockCleanerCommand,
      volumeMode: c.volumeMode,
      // Only a written fsType: it goes on the PVs (as upstream), the default does not.
      ...(c.declaredFsType ? { fsType: c.declaredFsType } : {}),
      namePattern: c.namePattern,
      ...(c.accessMode && c.accessMode !== 'ReadWriteOnce' ? { accessMode: c.accessMode } : {}),
      ...(c.selector?.length ? { selector: c.selector } : {}),
      requireMountPoints: c.requireMountPoints,
      ...(c.minSizeBytes !== '0' ? { minSize: c.minSizeBytes } : {}),
      ...(c.directoryCapacityBytes ? { directoryCapacity: c.directoryCapacityBytes } : {}),
      parallelCleanups: c.parallelCleanups,
    };
  }
  const storageClassMap = stringify(map);
  const tokenFile = `${tokenDirOnHost}/${tokenFileName}`;

  const volumes: Record<string, unknown>[] = classes.map((c, i) => ({ name: `discovery-${i}`, hostPath: { path: c.hostDir, type: 'Directory' } }));
  const mounts: Record<string, unknown>[] = classes.map((c, i) => ({ name: `discovery-${i}`, mountPath: c.mountDir, mountPropagation: 'HostToContainer' }));
  volumes.push({ name: 'dev', hostPath: { path: '/dev', type: 'Directory' } });
  mounts.push({ name: 'dev', mountPath: '/dev' });
  volumes.push({ name: 'node-token', hostPath: { path: tokenDirOnHost, type: 'DirectoryOrCreate' } });
  mounts.push({ name: 'node-token', mountPath: tokenDirOnHost, readOnly: true });
  volumes.push({ name: 'config', configMap: { name: cmName } });
  mounts.push({ name: 'config', mountPath: '/etc/provisioner/config', readOnly: true });
  // State that must outlive the pod: a restarted agent ends the cleanup commands its
  // predecessor recorded, and finds the volumes it published.
  volumes.push({ name: 'state', hostPath: { path: agentStateDir, type: 'DirectoryOrCreate' } });
  mounts.push({ name: 'state', mountPath: agentStateDir });
  volumes.push({ name: 'pods', hostPath: { path: agentPodsDir, type: 'DirectoryOrCreate' } });
  mounts.push({ name: 'pods', mountPath: agentPodsDir, mountPropagation: 'Bidirectional' });
  // Pools (mounted on the host, possibly after the pod started: HostToContainer) under the host's /.
  volumes.push({ name: 'host-root', hostPath: { path: '/', type: 'Directory' } });
  mounts.push({ name: 'host-root', mountPath: hostRootInPod, mountPropagation: 'HostToContainer' });

  const objects: Record<string, unknown>[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace, labels } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `${sa}-node-reader`, labels },
      // Seed 003: the workers never touch PVs; they only read their Node's labels.
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${sa}-node-reader`, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${sa}-node-reader` },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: `${sa}-config-reader`, namespace, labels },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [cmName], verbs: ['get', 'watch', 'list'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${sa}-config-reader`, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${sa}-config-reader` },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace }],
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cmName, namespace, labels }, data: { storageClassMap } },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'stowage-agent', namespace, labels },
      spec: {
        selector: { matchLabels: { [labelAppName]: 'stowage-agent' } },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: sa,
            priorityClassName: 'system-node-critical',
            containers: [
              {
                name: 'agent',
                image,
                // The agent takes its node name from MY_NODE_NAME (seed 003): Kubernetes expands
                // $(MY_NODE_NAME) in args, and the agent refuses a token of another node.
                args: [
                  'agent',
                  '--node',
                  '$(MY_NODE_NAME)',
                  '--server',
                  input.serverUrl,
                  '--token-file',
                  tokenFile,
                  '--ca-file',
                  `${tokenDirOnHost}/${caFileName}`,
                  '--state-dir',
                  agentStateDir,
                  '--pods-dir',
                  agentPodsDir,
                  '--pool-root',
                  hostRootInPod,
                  // Replicas of replicated btrfs pool volumes: other nodes' agents connect to
                  // this pod's IP (each transfer authenticated both ways by its one-time key).
                  '--replication-listen',
                  `0.0.0.0:${agentReplicationPort}`,
                ],
                env: [{ name: 'MY_NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
                ports: [{ name: 'replication', containerPort: agentReplicationPort, protocol: 'TCP' }],
                // Cleanup wipes block devices and removes files owned by any user: root, privileged
                // (the image's default user is unprivileged, for the server and controllers).
                securityContext: { privileged: true, runAsUser: 0 },
                volumeMounts: mounts,
                resources: { requests: { cpu: '50m', memory: '64Mi' } },
              },
            ],
            volumes,
          },
        },
      },
    },
  ];
  const manifests = objects.map((o) => stringify(o)).join('---\n');
  const agents = nodes.map((nodeName) => ({ nodeName, server: input.serverUrl, tokenFile }));
  return { ok: true, output: { classes, storageClassMap, objects, manifests, agents } };
}

/**
 * The storageClassMap in a file given to `stowage bootstrap`: either a local-volume
 * ConfigMap manifest (its data.storageClassMap) or the storageClassMap text itself.
 */
export function storageClassMapFromFile(text: string): { ok: true; storageClassMap: string } | { ok: false; message: string } {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) return { ok: false, message: `invalid YAML: ${doc.errors[0].message.split('\n')[0]}` };
  const v = doc.toJS({ mapAsMap: true, maxAliasCount: 50 }) as unknown;
  if (v instanceof Map && v.get('kind') === 'ConfigMap') {
    const data = v.get('data');
    const scm = data instanceof Map ? data.get('storageClassMap') : undefined;
    if (typeof scm !== 'string') return { ok: false, message: 'the ConfigMap has no data.storageClassMap' };
    return { ok: true, storageClassMap: scm };
  }
  return { ok: true, storageClassMap: text };
}

/** The files the CLI writes into an output directory: name -> content. */
export function bootstrapFiles(out: BootstrapOutput): Record<string, string> {
  const files: Record<string, string> = { 'manifests.yaml': out.manifests, 'storage-class-map.yaml': out.storageClassMap };
  for (const a of out.agents) files[`nodes/${a.nodeName}.json`] = `${JSON.stringify(a, null, 2)}\n`;
  return files;
}

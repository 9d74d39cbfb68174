// Discovery documents: /version, /api, /apis, /apis/{group}, /api/v1 and
// /apis/{group}/{version}, in the legacy (unaggregated) JSON form every client reads.
import { compiledBuild } from '../domain/build';
import { strategies } from '../resources/registry';
import { REVIEW_RESOURCES, SERVED_GROUPS } from './router';

/** The Kubernetes minor release whose API Stowage follows. */
export const KUBE_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0-stowage' };

const VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

export function versionInfo() {
  return {
    ...KUBE_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: compiledBuild ? 'esbuild' : 'tsx',
    platform: `${process.platform}/${process.arch}`,
  };
}

export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(group: string, version: string) {
  const gv = { groupVersion: `${group}/${version}`, version };
  return { name: group, versions: [gv], preferredVersion: gv };
}

export function apiGroupList() {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: SERVED_GROUPS.map((g) => apiGroup(g.group, g.version)) };
}

export function apiGroupDoc(group: string) {
  const g = SERVED_GROUPS.find((x) => x.group === group)!;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g.group, g.version) };
}

export function apiResourceList(group: string, version: string) {
  const resources: Record<string, unknown>[] = [];
  for (const s of strategies.filter((x) => x.group === group && x.version === version)) {
    const r: Record<string, unknown> = {
      name: s.plural,
      singularName: s.singular,
      namespaced: s.namespaced,
      kind: s.kind,
      verbs: s.noDeleteCollection ? [...VERBS] : [...VERBS, 'deletecollection'],
    };
    if (s.shortNames.length > 0) r.shortNames = s.shortNames;
    resources.push(r);
    // Upstream's namespaces/finalize: the one way to change a namespace's spec.finalizers.
    if (s.kindFinalizers) resources.push({ name: `${s.plural}/finalize`, singularName: '', namespaced: s.namespaced, kind: s.kind, verbs: ['update'] });
    if (s.hasStatus) {
      resources.push({ name: `${s.plural}/status`, singularName: '', namespaced: s.namespaced, kind: s.kind, verbs: ['get', 'patch', 'update'] });
    }
  }
  for (const r of REVIEW_RESOURCES.filter((x) => x.group === group && x.version === version)) {
    resources.push({ name: r.plural, singularName: r.kind.toLowerCase(), namespaced: false, kind: r.kind, verbs: ['create'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

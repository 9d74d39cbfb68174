// One network namespace per simulated node, joined to the host by a veth pair:
//   host end  10.X.Y.1/30   (HAProxy listens there too)
//   node end  10.X.Y.2/30   (the node's only address besides loopback)
// with names and addresses of the cluster's own (settings.ts). Only addresses we assign here
// are ever used; everything is deleted on teardown.
import { run } from './processes';
import type { Addressing } from './settings';

export interface NodeLink {
  ns: string;
  hostIf: string;
  nodeIf: string;
  hostAddress: string;
  nodeAddress: string;
}

export function nodeLink(a: Addressing, i: number): NodeLink {
  return { ns: a.namespace(i), hostIf: a.hostIf(i), nodeIf: a.nodeIf(i), hostAddress: a.hostAddress(i), nodeAddress: a.nodeAddress(i) };
}

const ip = (...args: string[]) => run('ip', args);

export async function createLink(l: NodeLink): Promise<void> {
  await deleteLink(l);
  await ip('netns', 'add', l.ns);
  await ip('link', 'add', l.hostIf, 'type', 'veth', 'peer', 'name', l.nodeIf);
  await ip('link', 'set', l.nodeIf, 'netns', l.ns);
  await ip('addr', 'add', `${l.hostAddress}/30`, 'dev', l.hostIf);
  await ip('link', 'set', l.hostIf, 'up');
  await ip('netns', 'exec', l.ns, 'ip', 'addr', 'add', `${l.nodeAddress}/30`, 'dev', l.nodeIf);
  await ip('netns', 'exec', l.ns, 'ip', 'link', 'set', l.nodeIf, 'up');
  await ip('netns', 'exec', l.ns, 'ip', 'link', 'set', 'lo', 'up');
}

export async function deleteLink(l: NodeLink): Promise<void> {
  await run('ip', ['link', 'del', l.hostIf], { allowFail: true });
  await run('ip', ['netns', 'del', l.ns], { allowFail: true });
}

/** Cuts (or restores) the node's network: its end of the link goes down. */
export async function setLink(l: NodeLink, up: boolean): Promise<void> {
  await ip('netns', 'exec', l.ns, 'ip', 'link', 'set', l.nodeIf, up ? 'up' : 'down');
}

export async function canUseNetns(): Promise<{ ok: boolean; why?: string }> {
  if (process.getuid?.() !== 0) return { ok: false, why: 'network namespaces need root' };
  const probe: NodeLink = { ns: `stowage-probe-${process.pid}`, hostIf: `swp${process.pid}h`.slice(0, 15), nodeIf: `swp${process.pid}n`.slice(0, 15), hostAddress: '10.254.1.1', nodeAddress: '10.254.1.2' };
  try {
    await createLink(probe);
    return { ok: true };
  } catch (e) {
    return { ok: false, why: `ip netns failed: ${(e as Error).message}` };
  } finally {
    await deleteLink(probe);
  }
}

/** A bridge on the host with an address of ours (the Postgres nodes' LAN: frames are bridged, not routed). */
export async function createBridge(name: string, hostCidr: string): Promise<void> {
  await run('ip', ['link', 'del', name], { allowFail: true });
  await ip('link', 'add', name, 'type', 'bridge');
  await ip('addr', 'add', hostCidr, 'dev', name);
  await ip('link', 'set', name, 'up');
}

/** Namespace `l.ns` joined to `bridge` by a veth pair; `l.nodeAddress` is a CIDR on the bridge's subnet. */
export async function createBridgedLink(l: NodeLink, bridge: string): Promise<void> {
  await deleteLink(l);
  await ip('netns', 'add', l.ns);
  await ip('link', 'add', l.hostIf, 'type', 'veth', 'peer', 'name', l.nodeIf);
  await ip('link', 'set', l.nodeIf, 'netns', l.ns);
  await ip('link', 'set', l.hostIf, 'master', bridge);
  await ip('link', 'set', l.hostIf, 'up');
  await ip('netns', 'exec', l.ns, 'ip', 'addr', 'add', l.nodeAddress, 'dev', l.nodeIf);
  await ip('netns', 'exec', l.ns, 'ip', 'link', 'set', l.nodeIf, 'up');
  await ip('netns', 'exec', l.ns, 'ip', 'link', 'set', 'lo', 'up');
}

export async function deleteBridge(name: string): Promise<void> {
  await run('ip', ['link', 'del', name], { allowFail: true });
}

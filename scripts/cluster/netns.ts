// One network namespace per simulated node, joined to the host by a veth pair:
//   host end  <prefix>.<i>.1/30   (HAProxy listens there too)
//   node end  <prefix>.<i>.2/30   (the node's only address besides loopback)
// Only addresses we assign here are ever used; everything is deleted on teardown.
import { run } from './processes';

export interface NodeLink {
  ns: string;
  hostIf: string;
  nodeIf: string;
  hostAddress: string;
  nodeAddress: string;
}

export function nodeLink(tag: string, subnet: number, i: number): NodeLink {
  return {
    ns: `stowage-${tag}-n${i}`,
    // Interface names are at most 15 characters.
    hostIf: `sw${tag}h${i}`.slice(0, 15),
    nodeIf: `sw${tag}n${i}`.slice(0, 15),
    hostAddress: `10.${subnet}.${i}.1`,
    nodeAddress: `10.${subnet}.${i}.2`,
  };
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
  const probe = nodeLink('probe', 254, 1);
  try {
    await createLink(probe);
    return { ok: true };
  } catch (e) {
    return { ok: false, why: `ip netns failed: ${(e as Error).message}` };
  } finally {
    await deleteLink(probe);
  }
}

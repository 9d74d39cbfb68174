// The intent records of a node that is gone end with it. An agent-backed plugin's record
// (a subvolume being made, kept or removed on one node) waits for that node's agent; once the
// Node object is deleted no agent will ever act on it, so the record ends, with a Warning
// Event on the node saying what was on it. (An agent that comes back registers its node
// anew; what is left on its disk is then the admin's, as with any asset Stowage forgot.)
import type { AssetRecord } from '../../store/provisioned-assets';
import { reasons } from '../../domain/well-known/event-reasons';
import type { ProvisioningDeps } from './deps';

export type NodeGoneDeps = Pick<ProvisioningDeps, 'store' | 'plugins' | 'assets' | 'events' | 'log'>;

/** At most this many records are named in the Event (the count says the rest). */
const NAMED = 5;

/** Whether a record waits on a node agent (the plugin acts through the agent of `record.node`). */
export function waitsOnAgent(d: Pick<ProvisioningDeps, 'plugins'>, r: AssetRecord): boolean {
  return d.plugins.get(r.plugin)?.agentBacked === true;
}

/**
 * Ends the agent-backed records of `node` when its Node object no longer exists (all of
 * them, or only `only`); the number ended. Nothing happens while the node exists.
 */
export async function endRecordsOfGoneNode(d: NodeGoneDeps, node: string, only?: AssetRecord[]): Promise<number> {
  if (!node || (await d.store.tryGet('Node', undefined, node))) return 0;
  const records = (only ?? (await d.assets.list({ node }))).filter((r) => r.node === node && waitsOnAgent(d, r));
  const ended: AssetRecord[] = [];
  for (const r of records) {
    await d.assets.remove(r);
    ended.push(r);
  }
  if (ended.length === 0) return 0;
  const what = ended.slice(0, NAMED).map((r) => `${r.pvName} (${r.state}${typeof r.details.path === 'string' ? ` ${r.details.path}` : ''})`);
  const more = ended.length > NAMED ? ` and ${ended.length - NAMED} more` : '';
  const message = `node ${node} was deleted: ${ended.length} intent record(s) of its agent ended, no longer waited for: ${what.join(', ')}${more}; what is left on that node's disks is no longer tracked`;
  d.log.warn({ node, records: ended.map((r) => r.id) }, 'intent records of a deleted node ended');
  await d.events.record({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } }, 'Warning', reasons.nodeRecordsEnded, message);
  return ended.length;
}

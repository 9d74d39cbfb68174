// Node heartbeats and the node lifecycle (after upstream's kubelet status updates and the
// node lifecycle controller's tryUpdateNodeHealth): an agent posts Ready=True with a
// lastHeartbeatTime; when none arrives for the grace period, Ready becomes Unknown
// ("NodeStatusUnknown"), as upstream marks a node whose kubelet stopped posting. Pure.
import type { Node } from '../resources/node/schema';
import { labelNodeRestrictionPrefix } from './well-known/labels';

/** A node condition as the Node schema has it (type and status optional: one without them matches no check here). */
export type NodeCondition = NonNullable<NonNullable<Node['status']>['conditions']>[number];

/** What these rules read of a node. */
type NodeStatusView = { status?: { conditions?: NodeCondition[] } };

/** Upstream's node-monitor-grace-period default. */
export const defaultNodeGraceMs = 40_000;

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function readyCondition(node: NodeStatusView): NodeCondition | undefined {
  return (node.status?.conditions ?? []).find((c) => c.type === 'Ready');
}

export function isNodeReady(node: NodeStatusView | undefined): boolean {
  return !!node && readyCondition(node)?.status === 'True';
}

/** The node's conditions after a heartbeat at `now`: Ready True, transition time kept when it already was. */
export function heartbeatConditions(conditions: NodeCondition[] | undefined, now: Date): NodeCondition[] {
  const others = (conditions ?? []).filter((c) => c.type !== 'Ready');
  const prev = (conditions ?? []).find((c) => c.type === 'Ready');
  const ready: NodeCondition = {
    type: 'Ready',
    status: 'True',
    lastHeartbeatTime: iso(now),
    lastTransitionTime: prev?.status === 'True' && prev.lastTransitionTime ? prev.lastTransitionTime : iso(now),
    reason: 'AgentReady',
    message: 'the Stowage agent is posting ready status',
  };
  return [...others, ready];
}

export type StaleDecision = { action: 'none'; recheckInMs?: number } | { action: 'markUnknown'; conditions: NodeCondition[] };

/**
 * Whether a node's agent stopped reporting: its last heartbeat (or, without one, the node's
 * creation) is older than `graceMs`. Returns the conditions to write, or when to look again.
 */
export function staleDecision(
  node: NodeStatusView & { metadata?: { creationTimestamp?: string } },
  now: Date,
  graceMs: number,
): StaleDecision {
  const ready = readyCondition(node);
  if (ready?.status === 'Unknown') return { action: 'none' };
  const last = Date.parse(ready?.lastHeartbeatTime ?? node.metadata?.creationTimestamp ?? '');
  if (!Number.isFinite(last)) return { action: 'none' };
  const age = now.getTime() - last;
  if (age < graceMs) return { action: 'none', recheckInMs: graceMs - age + 100 };
  const others = (node.status?.conditions ?? []).filter((c) => c.type !== 'Ready');
  return {
    action: 'markUnknown',
    conditions: [
      ...others,
      {
        type: 'Ready',
        status: 'Unknown',
        lastHeartbeatTime: ready?.lastHeartbeatTime,
        lastTransitionTime: iso(now),
        reason: 'NodeStatusUnknown',
        message: 'the Stowage agent stopped posting node status',
      },
    ],
  };
}

/** Labels an agent may not set on its own node (upstream NodeRestriction). */
export function forbiddenNodeLabel(key: string): string | undefined {
  if (key.startsWith(labelNodeRestrictionPrefix)) return `${labelNodeRestrictionPrefix} labels are set by admins only`;
  return undefined;
}

/** `k=v,k2=v2` (STOWAGE_NODE_LABELS) as a map; malformed items are reported. */
export function parseLabelList(text: string | undefined): { labels: Record<string, string>; errors: string[] } {
  const labels: Record<string, string> = Object.create(null);
  const errors: string[] = [];
  for (const item of (text ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0) {
      errors.push(`"${item}" is not key=value`);
      continue;
    }
    labels[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return { labels: { ...labels }, errors };
}

// A node drain as the dashboard says it: the data age of a move ("in sync", "12 s behind",
// "3 min behind"), the one-line outcome after Drain, and a refusal in words (never a stack
// trace, never upstream's RBAC vocabulary). Pure.

/** A replica's data age, as read in the drain preview. */
export function behindText(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return 'no transfer yet';
  const s = Math.round(seconds);
  if (s <= 1) return 'in sync';
  if (s < 120) return `${s} s behind`;
  if (s < 7200) return `${Math.round(s / 60)} min behind`;
  return `${Math.round(s / 3600)} h behind`;
}

export interface DrainCounts {
  moves: number;
  stays: number;
  podsToStop: number;
}

/** What a drain did, said once it is applied. */
export function drainOutcome(node: string, c: DrainCounts): string {
  const vol = (n: number) => `${n} ${n === 1 ? 'volume' : 'volumes'}`;
  const parts = [`${node} is cordoned: no new pod is placed on it.`];
  if (c.moves === 0) parts.push('No volume moves.');
  else {
    parts.push(`${vol(c.moves)} will move to ${c.moves === 1 ? 'its replica' : 'their replicas'} (a final transfer, then the switch).`);
    if (c.podsToStop > 0) parts.push(`Each waits until the ${c.podsToStop === 1 ? 'pod' : `${c.podsToStop} pods`} using it on this node ${c.podsToStop === 1 ? 'has' : 'have'} stopped.`);
  }
  if (c.stays > 0) parts.push(`${vol(c.stays)} ${c.stays === 1 ? 'stays' : 'stay'} on this node.`);
  return parts.join(' ');
}

const MAX_TEXT = 300;

/** A refusal or failure of the drain procedures as a sentence a person reads. */
export function drainErrorText(err: { code?: string; message?: string } | undefined, action: 'preview' | 'drain' | 'uncordon'): string {
  const verb = action === 'uncordon' ? 'uncordon' : 'drain';
  switch (err?.code) {
    case 'FORBIDDEN':
      return `Only an administrator can ${verb} a node.`;
    case 'NOT_FOUND':
      return 'This node is gone: it was deleted.';
    case 'UNAUTHORIZED':
      return 'Your session has ended: sign in again.';
    default:
      break;
  }
  // The first line only (a trace, if one ever came, is lines of "at ..."), bounded.
  const first = (err?.message ?? '').split('\n')[0].trim();
  const looksLikeCode = first === '' || /^\s*at\s/.test(first) || /^[A-Za-z]*Error:?$/.test(first) || /\(\S+:\d+:\d+\)/.test(first);
  if (looksLikeCode) return action === 'preview' ? 'The preview could not be made. Try again in a moment.' : `The ${verb} did not go through. Try again in a moment.`;
  const text = first.length > MAX_TEXT ? `${first.slice(0, MAX_TEXT - 1)}…` : first;
  const sentence = /[.!?]$/.test(text) ? text : `${text}.`;
  return sentence[0].toUpperCase() + sentence.slice(1);
}

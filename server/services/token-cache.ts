// Recently authenticated tokens, by hash, for a short while: every API and agent request
// authenticates, and the lookup was one statement each. One rule for users' and nodes'
// tokens: only tokens found are kept, each until its time is up (or its own expiry), at most
// a bounded number (the oldest goes first); what this process revokes is forgotten at once,
// and a lookup still under way when it is (which may have read the row just deleted) does
// not remember its answer. Another process's revocation applies here within the time kept,
// as upstream's token-review cache bounds it.

/** What a lookup found: the principal, and when the token itself expires, if it does. */
export interface Found<T> {
  value: T;
  expiresAtMs?: number;
}

export class TokenCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();
  /** Moved by every forget: a lookup that began before it does not remember its answer. */
  private epoch = 0;

  constructor(
    private readonly keepMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The principal of token `hash`: remembered, or read by `lookup` (and remembered when found). */
  async get(hash: string, lookup: (nowMs: number) => Promise<Found<T> | undefined>): Promise<T | undefined> {
    const now = Date.now();
    const hit = this.entries.get(hash);
    if (hit && hit.until > now) return hit.value;
    const epoch = this.epoch;
    const found = await lookup(now);
    if (!found) {
      this.entries.delete(hash);
      return undefined;
    }
    if (epoch === this.epoch) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(hash, { value: found.value, until: Math.min(now + this.keepMs, found.expiresAtMs ?? Infinity) });
    }
    return found.value;
  }

  /** Forgets the tokens whose principal `which` picks (every token without it). */
  forget(which: (value: T, hash: string) => boolean = () => true): void {
    this.epoch++;
    for (const [h, e] of this.entries) if (which(e.value, h)) this.entries.delete(h);
  }
}

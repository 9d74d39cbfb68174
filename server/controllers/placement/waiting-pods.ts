// What the placement controller remembers between reconciles, so that a change re-places
// only the pods whose inputs it touched (upstream's scheduler queue does the same with its
// "unschedulable pods" and the events that may make them schedulable):
//   - each waiting pod's claims (ns/name, whether they exist yet or not): a claim's change,
//     or a change of a volume bound to it, re-places the pods that use it;
//   - the pods found unschedulable last time: any change that may add room or candidates
//     (a node, a class, a volume, published capacity, a pod that stopped using a claim)
//     re-places those, and only those.
// Memory only, and only a shortcut: it is rebuilt as pods are reconciled (the start and
// every resync reconcile every waiting pod), so a restart or a missed entry costs at most
// one resync period, never a pod left unplaced for good.

export class WaitingPods {
  private readonly claimsOf = new Map<string, Set<string>>();
  private readonly podsOf = new Map<string, Set<string>>();
  private readonly stuck = new Set<string>();

  /** The pod (key) waits for a node and uses these claims ("ns/name"). */
  waiting(pod: string, claims: string[], unschedulable: boolean): void {
    this.forgetClaims(pod);
    const set = new Set(claims);
    this.claimsOf.set(pod, set);
    for (const c of set) {
      const pods = this.podsOf.get(c) ?? new Set<string>();
      pods.add(pod);
      this.podsOf.set(c, pods);
    }
    if (unschedulable) this.stuck.add(pod);
    else this.stuck.delete(pod);
  }

  /** The pod has a node, is gone, or is not ours: nothing to re-place for it. */
  forget(pod: string): void {
    this.forgetClaims(pod);
    this.stuck.delete(pod);
  }

  /** The waiting pods that use the claim. */
  podsUsing(claim: string): string[] {
    return [...(this.podsOf.get(claim) ?? [])];
  }

  /** The pods found unschedulable at their last placement. */
  unschedulable(): string[] {
    return [...this.stuck];
  }

  has(pod: string): boolean {
    return this.claimsOf.has(pod);
  }

  private forgetClaims(pod: string): void {
    for (const c of this.claimsOf.get(pod) ?? []) {
      const pods = this.podsOf.get(c);
      pods?.delete(pod);
      if (pods?.size === 0) this.podsOf.delete(c);
    }
    this.claimsOf.delete(pod);
  }
}

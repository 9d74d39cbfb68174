// Binding a batch of claims at once gives each the volume it would have got had the
// claims been bound one at a time, in order (seed 004 "Matching and binding": the smallest
// volume that fits). Each claim brings its candidates, smallest first; it takes the first
// one no earlier claim of the batch took.
//
// Why a short candidate list is enough: volumes of different shapes (class, volume mode,
// access-mode set) are disjoint pools, so only earlier claims of the same shape can take a
// claim's candidates. When the batch has k claims of a shape and each brings its k
// smallest fitting volumes (or all of them, when fewer fit), at most k - 1 of a claim's
// list are taken before it, so its first untaken candidate is the smallest untaken
// volume that fits. Pure: no I/O.

/** How many candidates each claim needs: the number of claims of its shape in the batch. */
export function candidateLimits(shapes: string[]): number[] {
  const count = new Map<string, number>();
  for (const s of shapes) count.set(s, (count.get(s) ?? 0) + 1);
  return shapes.map((s) => count.get(s)!);
}

/**
 * The volume each claim takes, claims in order (undefined: every candidate was taken
 * before it). Candidate names are unique volumes; lists are smallest first.
 */
export function assignInOrder(candidates: readonly (readonly string[])[]): (string | undefined)[] {
  const taken = new Set<string>();
  return candidates.map((list) => {
    const pick = list.find((name) => !taken.has(name));
    if (pick !== undefined) taken.add(pick);
    return pick;
  });
}

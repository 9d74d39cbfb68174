// Where "Restore" and "Clone" lead: the claim form, starting from the snapshot or the claim
// (?snapshot=NAME or ?clone=NAME, with the namespace). Pure.
export function restoreHref(namespace: string, snapshot: string): string {
  return `/claims/new?namespace=${encodeURIComponent(namespace)}&snapshot=${encodeURIComponent(snapshot)}`;
}

export function cloneHref(namespace: string, claim: string): string {
  return `/claims/new?namespace=${encodeURIComponent(namespace)}&clone=${encodeURIComponent(claim)}`;
}

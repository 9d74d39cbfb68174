// Where the backup pages live. Pure.
export function backupHref(namespace: string, name: string): string {
  return `/backups/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}

export function restoreFormHref(namespace: string, name: string): string {
  return `${backupHref(namespace, name)}/restore`;
}

// What both OS interfaces (the provisioners' HostOs and the node agent's AgentOs) share and
// can compute without touching the machine: a filesystem's size figures, and the mount
// table as the kernel prints it. Pure: the callers read /proc and statfs.

/** A filesystem's size and free space, as statfs reports them. */
export interface FsStats {
  totalBytes: bigint;
  availableBytes: bigint;
}

/** Decodes the octal escapes of /proc/self/mountinfo (\040 for a space ...). */
function unescapeMountField(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** Parses /proc/self/mountinfo into target -> source (the last mount on a target wins). */
export function parseMountInfo(text: string): Map<string, string> {
  const mounts = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const left = line.slice(0, sep).split(' ');
    const right = line.slice(sep + 3).split(' ');
    if (left.length < 5 || right.length < 2) continue;
    mounts.set(unescapeMountField(left[4]), unescapeMountField(right[1]));
  }
  return mounts;
}

// Where an agent sees a host path: the classes, PVs and jobs name the host's paths; an agent
// whose view of the host's `/` is elsewhere (a container with the host mounted at /host:
// `--pool-root`) finds them under that root. One rule for pools, data jobs, replication
// and publishing.
import path from 'node:path';

/** `p` (a host path) as seen by an agent whose host `/` is at `root` (none: the agent runs on the host). */
export const seenFrom = (root: string | undefined, p: string): string => (root ? path.posix.join(root, p) : p);

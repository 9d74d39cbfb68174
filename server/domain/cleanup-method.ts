// Which cleanup a released local volume gets, from its volume mode and its class's
// `blockCleanerCommand` (seed 003 "Cleanup after Release"). Pure: no I/O.
//
// The first element of blockCleanerCommand names a built-in method or is the absolute path
// of a custom command (its argv; the device goes in the env LOCAL_PV_BLKDEVICE). The upstream
// static provisioner's shipped scripts are recognised by path, so an existing ConfigMap
// carries over: /scripts/quick_reset.sh (upstream's default) -> fs-reset,
// /scripts/dd_zero.sh -> dd-zero, /scripts/blkdiscard.sh -> blkdiscard, /scripts/shred.sh -> shred.
export const blockMethods = ['dd-zero', 'blkdiscard', 'fs-reset', 'shred', 'hdparm'] as const;
export type BlockMethod = (typeof blockMethods)[number];
/** How a released local volume's disk is wiped: its files removed, a block method, or a custom command. */
export type CleanupMethod = 'files' | BlockMethod | 'custom';

/** The default blockCleanerCommand: the seed's default method (upstream's quick_reset.sh equivalent). */
export const defaultBlockCleanerCommand: readonly string[] = ['fs-reset'];

const upstreamScripts: Record<string, BlockMethod> = {
  '/scripts/quick_reset.sh': 'fs-reset',
  '/scripts/dd_zero.sh': 'dd-zero',
  '/scripts/blkdiscard.sh': 'blkdiscard',
  '/scripts/shred.sh': 'shred',
};

/** Methods that take one optional argument: the number of passes (1..10). */
const passMethods = new Set<BlockMethod>(['dd-zero', 'shred']);
export const maxPasses = 10;

export interface CleanupPlan {
  method: CleanupMethod;
  /** dd-zero and shred: how many overwrite passes (default 1). */
  passes?: number;
  /** custom: the argv to run. */
  command?: string[];
}

export type CleanerParse = { ok: true; plan: CleanupPlan } | { ok: false; message: string };

const isMethod = (s: string): s is BlockMethod => (blockMethods as readonly string[]).includes(s);

/** Interprets a blockCleanerCommand; the message says what is wrong with it. */
export function parseBlockCleanerCommand(command: readonly string[]): CleanerParse {
  if (command.length === 0) return { ok: false, message: 'must name a cleanup method or a command' };
  const [head, ...args] = command;
  const method = isMethod(head) ? head : upstreamScripts[head];
  if (method) {
    if (!passMethods.has(method)) {
      if (args.length > 0) return { ok: false, message: `${head} takes no arguments` };
      return { ok: true, plan: { method } };
    }
    if (args.length > 1) return { ok: false, message: `${head} takes at most one argument (the number of passes)` };
    if (args.length === 0) return { ok: true, plan: { method, passes: 1 } };
    const passes = /^[0-9]{1,2}$/.test(args[0]) ? Number(args[0]) : NaN;
    if (!(passes >= 1 && passes <= maxPasses)) return { ok: false, message: `${head}: the number of passes must be 1..${maxPasses}, not "${args[0]}"` };
    return { ok: true, plan: { method, passes } };
  }
  if (head.startsWith('/')) {
    if (head.split('/').includes('..')) return { ok: false, message: `the command path ${head} must not contain ".."` };
    return { ok: true, plan: { method: 'custom', command: [...command] } };
  }
  return {
    ok: false,
    message: `unknown cleanup method "${head}": use one of ${blockMethods.join(', ')}, or the absolute path of a command`,
  };
}

/** The cleanup for a volume: Filesystem volumes have their contents removed; Block volumes get the class's method. */
export function chooseCleanupMethod(volumeMode: 'Filesystem' | 'Block', blockCleanerCommand: readonly string[]): CleanerParse {
  if (volumeMode === 'Filesystem') return { ok: true, plan: { method: 'files' } };
  return parseBlockCleanerCommand(blockCleanerCommand.length === 0 ? defaultBlockCleanerCommand : blockCleanerCommand);
}

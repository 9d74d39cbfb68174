// The claim doctor: which fixes apply to a Pending claim, given the claim, the classes,
// the Available volumes near it, the pods using it and the caller's role. Each fix is
// either offered with exactly what it changes, or refused with why. Pure; the service
// (services/claim-fixes.ts) gathers the facts and applies a fix through the object service.
import type { Role } from './authorization';
import { planClaim, type Capabilities } from './claim-plan';
import { checkRequestedVolume, claimClass, claimHasClass } from './matching';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../resources/storage-class/schema';

export const FIX_KINDS = ['create-volume', 'switch-class', 'recreate-with-class', 'pre-bind'] as const;
export type FixKind = (typeof FIX_KINDS)[number];

export interface ClassFacts {
  sc: StorageClass;
  capabilities?: Capabilities;
  inTree: boolean;
}

export interface FixFacts {
  claim: PersistentVolumeClaim;
  role: Role;
  /** Whether the caller may update (and delete + create) claims in the claim's namespace. */
  mayWriteClaim: boolean;
  classes: ClassFacts[];
  /** Available volumes near the claim (admins only; empty for others). */
  volumes: PersistentVolume[];
  /** Pods that name the claim and have not finished. */
  podsUsing: string[];
  /** The claim's newest ProvisioningFailed message, when its provisioning is failing now. */
  provisioningFailure?: string;
}

export interface Fix {
  kind: FixKind;
  /** The class to switch to, or the volume to pre-bind to. */
  target?: string;
  allowed: boolean;
  /** Why not, when refused. */
  reason?: string;
  /** Refused because of who asks (role, namespace rights), not because of the claim's state. */
  denied?: boolean;
  /** What it changes, when allowed. */
  changes: string[];
}

export interface VolumePrefill {
  capacity: string;
  accessModes: string[];
  volumeMode: string;
  storageClassName: string;
  /** Labels the claim's selector requires (matchLabels, and matchExpressions In with one value). */
  labels: Record<string, string>;
}

const refuse = (kind: FixKind, reason: string, target?: string): Fix => ({ kind, target, allowed: false, reason, changes: [] });
const deny = (kind: FixKind, reason: string, target?: string): Fix => ({ ...refuse(kind, reason, target), denied: true });

/** Why no fix applies to the claim at all (not Pending, bound, terminating), or undefined. */
export function claimNotFixable(claim: PersistentVolumeClaim): string | undefined {
  if (claim.metadata?.deletionTimestamp) return 'the claim is being deleted';
  const phase = claim.status?.phase ?? 'Pending';
  if (phase !== 'Pending') return `the claim is ${phase}; fixes are for Pending claims`;
  if (claim.spec?.volumeName) return `the claim already names volume ${claim.spec.volumeName}; the binder binds it when it fits`;
  return undefined;
}

/** The static volume that would satisfy the claim, for the volume form. */
export function volumePrefill(claim: PersistentVolumeClaim): VolumePrefill {
  const labels: Record<string, string> = { ...(claim.spec?.selector?.matchLabels ?? {}) };
  for (const e of claim.spec?.selector?.matchExpressions ?? []) {
    if (e?.operator === 'In' && typeof e.key === 'string' && Array.isArray(e.values) && e.values.length > 0 && labels[e.key] === undefined) labels[e.key] = String(e.values[0]);
  }
  return {
    capacity: String(claim.spec?.resources?.requests?.storage ?? ''),
    accessModes: [...(claim.spec?.accessModes ?? [])],
    volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
    storageClassName: claimClass(claim),
    labels,
  };
}

/** Whether the class's provisioner would provision this claim (in-tree only: an external one may not be running). */
function provisionProblem(claim: PersistentVolumeClaim, c: ClassFacts): string | undefined {
  const name = c.sc.metadata?.name ?? '';
  const withClass = { ...claim, spec: { ...claim.spec, storageClassName: name } };
  const plan = planClaim({ claim: withClass, className: name, classNamed: true, storageClass: c.sc, near: [], capabilities: c.capabilities, inTree: c.inTree });
  if (plan.outcome !== 'provisions') return plan.summary;
  if (plan.external) return `its provisioner ${c.sc.provisioner} is external: Stowage cannot tell whether it runs`;
  return undefined;
}

function sameParameters(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  return [...keys].every((k) => x[k] === y[k]);
}

/** A class whose provisioner and parameters are the failing class's would fail the same way. */
function failsTheSameWay(f: FixFacts, c: ClassFacts, current: string | undefined): boolean {
  if (!f.provisioningFailure || current === undefined) return false;
  const failing = f.classes.find((x) => x.sc.metadata?.name === current)?.sc;
  return !!failing && failing.provisioner === c.sc.provisioner && sameParameters(failing.parameters, c.sc.parameters);
}

/** What happens once the claim names the class: provisioned now, or when a pod first uses it. */
function provisionsSentence(sc: StorageClass, subject: string): string {
  return sc.volumeBindingMode === 'WaitForFirstConsumer'
    ? `${sc.provisioner} provisions a volume for ${subject} when a pod first uses it (the class binds on first use)`
    : `${sc.provisioner} provisions a volume for ${subject}`;
}

function classFixes(f: FixFacts): Fix[] {
  const { claim } = f;
  const current = claimHasClass(claim) ? claimClass(claim) : undefined;
  const out: Fix[] = [];
  for (const c of f.classes) {
    const name = c.sc.metadata?.name ?? '';
    if (!name || name === current) continue;
    if (provisionProblem(claim, c) || failsTheSameWay(f, c, current)) continue;
    // storageClassName may be set on a claim that has none; once set it is immutable (as upstream).
    if (current === undefined) {
      if (!f.mayWriteClaim) out.push(deny('switch-class', 'you may not update claims in this namespace', name));
      else out.push({ kind: 'switch-class', target: name, allowed: true, changes: [`spec.storageClassName set to "${name}"`, provisionsSentence(c.sc, 'it')] });
      continue;
    }
    const base = { kind: 'recreate-with-class' as const, target: name };
    if (!f.mayWriteClaim) out.push(deny(base.kind, 'you may not delete and create claims in this namespace', name));
    else if (f.podsUsing.length > 0) out.push({ ...base, allowed: false, reason: `pod${f.podsUsing.length > 1 ? 's' : ''} ${f.podsUsing.join(', ')} use${f.podsUsing.length > 1 ? '' : 's'} the claim; stop them first`, changes: [] });
    else
      out.push({
        ...base,
        allowed: true,
        changes: [
          `storageClassName cannot change once set: claim ${claim.metadata?.name} is deleted and created again`,
          `spec.storageClassName "${current}" → "${name}"; name, labels, size, access and volume modes stay`,
          provisionsSentence(c.sc, 'the new claim'),
        ],
      });
  }
  return out;
}

function preBindFixes(f: FixFacts): Fix[] {
  const out: Fix[] = [];
  for (const pv of f.volumes) {
    const name = pv.metadata?.name ?? '';
    if ((pv.status?.phase ?? '') !== 'Available' || pv.spec?.claimRef) continue;
    const misfit = checkRequestedVolume(f.claim, pv);
    if (misfit.length > 0) continue;
    if (f.role !== 'admin') out.push(deny('pre-bind', 'only administrators pre-bind claims to volumes', name));
    else out.push({ kind: 'pre-bind', target: name, allowed: true, changes: [`spec.volumeName set to "${name}"`, `the binder binds the claim to volume ${name} (its selector is not checked for a named volume, as upstream)`] });
  }
  return out;
}

/** Every fix for the claim: offered with its changes, or refused with why. */
export function claimFixes(f: FixFacts): Fix[] {
  const not = claimNotFixable(f.claim);
  if (not) return [];
  const create: Fix =
    f.role === 'admin'
      ? { kind: 'create-volume', allowed: true, changes: ['opens the volume form filled in with the claim\'s size, access modes, volume mode, class and selector labels'] }
      : deny('create-volume', 'only administrators create volumes; ask one, or pick a class that provisions');
  return [create, ...classFixes(f), ...preBindFixes(f)];
}

/** The one fix of this kind and target, or a refusal saying it does not apply. */
export function fixFor(f: FixFacts, kind: FixKind, target?: string): Fix {
  const not = claimNotFixable(f.claim);
  if (not) return refuse(kind, not, target);
  // Non-admins are not shown volumes at all: a named one is refused for who asks, not looked up.
  if (kind === 'pre-bind' && f.role !== 'admin') return deny(kind, 'only administrators pre-bind claims to volumes', target);
  const hit = claimFixes(f).find((x) => x.kind === kind && (x.target ?? '') === (target ?? ''));
  if (hit) return hit;
  if (kind === 'pre-bind') return refuse(kind, `volume ${target ?? '(none)'} is not an Available volume that fits this claim`, target);
  if (kind === 'switch-class' || kind === 'recreate-with-class') return refuse(kind, `class ${target ?? '(none)'} cannot provision this claim here, or the claim's class cannot be set this way`, target);
  return refuse(kind, 'this fix does not apply');
}

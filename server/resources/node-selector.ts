// Node selectors (PV nodeAffinity) and topology selector terms (StorageClass
// allowedTopologies): shapes and upstream validation (ValidateNodeSelector,
// ValidateTopologySelectorTerm).
import { z } from 'zod';
import type { FieldError } from '../domain/errors';
import { isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../domain/names';
import type { Stored } from './types';
import { child, deepEqual, duplicate, forbidden, invalid, required } from './field-errors';
import { betaToGALabel, labelHostname } from '../domain/well-known/labels';

export const nodeSelectorRequirementSchema = z.strictObject({
  key: z.string().nullish(),
  operator: z.string().nullish(),
  values: z.array(z.string()).nullish(),
});

export const nodeSelectorTermSchema = z.strictObject({
  matchExpressions: z.array(nodeSelectorRequirementSchema).nullish(),
  matchFields: z.array(nodeSelectorRequirementSchema).nullish(),
});

export const nodeSelectorSchema = z.strictObject({
  nodeSelectorTerms: z.array(nodeSelectorTermSchema).nullish(),
});

export const volumeNodeAffinitySchema = z.strictObject({
  required: nodeSelectorSchema.nullish(),
});

export const topologySelectorTermSchema = z.strictObject({
  matchLabelExpressions: z
    .array(z.strictObject({ key: z.string().nullish(), values: z.array(z.string()).nullish() }))
    .nullish(),
});

export const nodeSelectorOperators = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] as const;

export type NodeSelectorRequirement = Stored<z.output<typeof nodeSelectorRequirementSchema>>;
export type NodeSelectorTerm = Stored<z.output<typeof nodeSelectorTermSchema>>;
export type NodeSelector = Stored<z.output<typeof nodeSelectorSchema>>;
export type VolumeNodeAffinity = Stored<z.output<typeof volumeNodeAffinitySchema>>;
export type TopologySelectorTerm = Stored<z.output<typeof topologySelectorTermSchema>>;

function validateLabelKey(key: string, field: string): FieldError[] {
  return isQualifiedName(key).map((msg) => invalid(field, key, msg));
}

export function validateNodeSelectorRequirement(req: NodeSelectorRequirement, base: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(child(base, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) {
        errs.push(forbidden(child(base, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) {
        errs.push(required(child(base, 'values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      }
      break;
    default:
      errs.push(invalid(child(base, 'operator'), req.operator ?? '', 'not a valid selector operator'));
  }
  errs.push(...validateLabelKey(req.key ?? '', child(base, 'key')));
  values.forEach((v, i) => {
    for (const msg of isValidLabelValue(v)) errs.push(invalid(child(base, 'values', i), v, msg));
  });
  return errs;
}

/** matchFields may only select `metadata.name`, with In/NotIn and exactly one value. */
export function validateNodeFieldSelectorRequirement(req: NodeSelectorRequirement, base: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = req.values ?? [];
  if (req.operator === 'In' || req.operator === 'NotIn') {
    if (values.length !== 1) {
      errs.push(required(child(base, 'values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    errs.push(invalid(child(base, 'operator'), req.operator ?? '', 'not a valid selector operator'));
  }
  if (req.key !== 'metadata.name') {
    errs.push(invalid(child(base, 'key'), req.key ?? '', 'not a valid field selector key'));
  } else {
    values.forEach((v, i) => {
      for (const msg of isDNS1123Subdomain(v)) errs.push(invalid(child(base, 'values', i), v, msg));
    });
  }
  return errs;
}

export function validateNodeSelector(selector: NodeSelector, base: string): FieldError[] {
  const termsPath = child(base, 'nodeSelectorTerms');
  const terms = selector.nodeSelectorTerms ?? [];
  if (terms.length === 0) return [required(termsPath, 'must have at least one node selector term')];
  const errs: FieldError[] = [];
  terms.forEach((term, i) => {
    (term.matchExpressions ?? []).forEach((req, j) => {
      errs.push(...validateNodeSelectorRequirement(req, child(termsPath, i, 'matchExpressions', j)));
    });
    (term.matchFields ?? []).forEach((req, j) => {
      errs.push(...validateNodeFieldSelectorRequirement(req, child(termsPath, i, 'matchFields', j)));
    });
  });
  return errs;
}

/** PV nodeAffinity: `required` must be given when nodeAffinity is. */
export function validateVolumeNodeAffinity(affinity: VolumeNodeAffinity, base: string): FieldError[] {
  if (!affinity.required) return [required(child(base, 'required'), 'must specify required node constraints')];
  return validateNodeSelector(affinity.required, child(base, 'required'));
}

export function validateTopologySelectorTerm(term: TopologySelectorTerm, base: string): FieldError[] {
  const errs: FieldError[] = [];
  const keys = new Set<string>();
  (term.matchLabelExpressions ?? []).forEach((req, i) => {
    const at = child(base, 'matchLabelExpressions', i);
    const values = req.values ?? [];
    if (values.length === 0) errs.push(required(child(at, 'values')));
    const seen = new Set<string>();
    values.forEach((v, k) => {
      if (seen.has(v)) errs.push(duplicate(child(at, 'values', k), v));
      seen.add(v);
    });
    errs.push(...validateLabelKey(req.key ?? '', child(at, 'key')));
    if (keys.has(req.key ?? '')) errs.push(duplicate(child(at, 'key'), req.key ?? ''));
    keys.add(req.key ?? '');
  });
  return errs;
}

/** Same requirement set (keys with their value sets), order-insensitive. */
export function sameTopologyTerm(a: TopologySelectorTerm, b: TopologySelectorTerm): boolean {
  const asMap = (t: TopologySelectorTerm) =>
    Object.fromEntries((t.matchLabelExpressions ?? []).map((r) => [r.key ?? '', [...new Set(r.values ?? [])].sort()]));
  return deepEqual(asMap(a), asMap(b));
}

/** Equal node affinities, where a beta label key in `prev` may have become its GA key in `next`. */
export function sameNodeAffinityAllowingGALabels(next: VolumeNodeAffinity | undefined, prev: VolumeNodeAffinity | undefined): boolean {
  const upgrade = (n: NodeSelectorRequirement[] | undefined, p: NodeSelectorRequirement[] | undefined) =>
    (p ?? []).map((req, i) => {
      const nk = n?.[i]?.key;
      return req.key && nk && nk !== req.key && betaToGALabel[req.key] === nk ? { ...req, key: nk } : req;
    });
  const prevTerms = prev?.required?.nodeSelectorTerms;
  const nextTerms = next?.required?.nodeSelectorTerms;
  if (!prevTerms || !nextTerms) return deepEqual(next, prev);
  const adjusted: VolumeNodeAffinity = {
    ...prev,
    required: {
      ...prev.required,
      nodeSelectorTerms: prevTerms.map((t, i) => ({
        ...t,
        matchExpressions: upgrade(nextTerms[i]?.matchExpressions, t.matchExpressions),
      })),
    },
  };
  return deepEqual(next, adjusted);
}

/**
 * The one node a volume is pinned to: every required term selects `kubernetes.io/hostname`
 * In [one name], the same name each time. Otherwise undefined.
 */
export function pinnedHostname(affinity: VolumeNodeAffinity | undefined): string | undefined {
  const terms = affinity?.required?.nodeSelectorTerms ?? [];
  let host: string | undefined;
  for (const term of terms) {
    const hit = (term.matchExpressions ?? []).find(
      (r) => r.key === labelHostname && r.operator === 'In' && (r.values ?? []).length === 1,
    );
    const name = hit?.values?.[0];
    if (name === undefined || (host !== undefined && host !== name)) return undefined;
    host = name;
  }
  return host;
}

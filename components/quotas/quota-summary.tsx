'use client';
// The important fields of a ResourceQuota, for its page's summary.
import type { ResourceQuota } from '@/server/resources/resource-quota/schema';
import { dimmed, shown, type SummaryItem } from '../objects/summary-parts';
import { QuotaBars } from './quota-bars';
import { quotaLimits } from './quota-usage';

export function quotaSummary(quota: ResourceQuota): SummaryItem[] {
  const spec = quota.spec ?? {};
  const selector = spec.scopeSelector?.matchExpressions ?? [];
  return shown([
    { label: 'Used of limit', value: <QuotaBars limits={quotaLimits(quota)} /> },
    Boolean(spec.scopes?.length) && { label: 'Scopes', value: spec.scopes!.join(', ') },
    selector.length > 0 && {
      label: 'Scope selector',
      value: selector.map((e) => `${e.scopeName} ${e.operator}${e.values?.length ? ` [${e.values.join(', ')}]` : ''}`).join(' and '),
    },
    !quota.status?.used && { label: 'Counted', value: dimmed('not yet: the quota controller has not counted usage') },
  ]);
}

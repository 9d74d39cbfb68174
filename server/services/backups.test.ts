import { describe, expect, it } from 'vitest';
import type { Principal } from '../domain/authorization';
import type { KubeObject } from '../resources/types';
import { mayBackUpSomewhere, targetChoices } from './backups';

const target = (name: string, o: { ready?: 'True' | 'False'; default?: boolean; deleting?: boolean } = {}): KubeObject => ({
  apiVersion: 'stowage.io/v1',
  kind: 'BackupTarget',
  metadata: { name, ...(o.deleting ? { deletionTimestamp: '2026-11-28T00:00:00Z' } : {}) },
  spec: { path: `/secret/${name}`, ...(o.default ? { default: true } : {}) },
  status: o.ready ? { conditions: [{ type: 'Ready', status: o.ready }] } : {},
});

describe('targetChoices', () => {
  it('gives names, readiness and the default mark, by name, and never a path', () => {
    const out = targetChoices([target('nfs', { ready: 'True', default: true }), target('archive', { ready: 'False' }), target('new')]);
    expect(out).toEqual([
      { name: 'archive', ready: false, default: false },
      { name: 'new', ready: false, default: false },
      { name: 'nfs', ready: true, default: true },
    ]);
    expect(JSON.stringify(out)).not.toContain('/secret/');
  });
  it('leaves out a target being deleted', () => expect(targetChoices([target('gone', { ready: 'True', deleting: true })])).toEqual([]));
});

describe('mayBackUpSomewhere', () => {
  const who = (role: Principal['role']): Principal => ({ type: 'user', id: role, name: role, role, namespaces: ['team-a'] });
  const cases: { name: string; p: Principal; want: boolean }[] = [
    { name: 'an admin may', p: who('admin'), want: true },
    { name: 'a viewer may not (reads only)', p: who('viewer'), want: false },
  ];
  for (const c of cases) it(c.name, () => expect(mayBackUpSomewhere(c.p)).toBe(c.want));
});

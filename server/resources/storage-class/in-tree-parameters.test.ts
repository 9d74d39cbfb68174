import { describe, expect, it } from 'vitest';
import { inTreeParameterProblems } from './in-tree-parameters';
import { btrfsProvisioner, hostPathProvisioner, loopProvisioner } from '../../domain/well-known/provisioners';

describe('in-tree provisioner parameters', () => {
  it.each([
    { provisioner: hostPathProvisioner, parameters: { basePath: '/srv/volumes' }, problems: [] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/var/lib/stowage/volumes', mode: '0750' }, problems: [] },
    { provisioner: hostPathProvisioner, parameters: {}, problems: ['basePath: parameter "basePath" is required'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: 'volumes' }, problems: ['basePath: parameter "basePath" must be an absolute path'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/srv/../etc' }, problems: ['basePath: parameter "basePath" must be a normalized path'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/etc' }, problems: ['basePath: parameter "basePath" may not be in the system directory /etc'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/etc/stowage' }, problems: ['basePath: parameter "basePath" may not be in the system directory /etc'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/usr/local/v' }, problems: ['basePath: parameter "basePath" may not be in the system directory /usr'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/proc/1' }, problems: ['basePath: parameter "basePath" may not be in the system directory /proc'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/var' }, problems: ['basePath: parameter "basePath" may not be /var itself'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/tmp' }, problems: ['basePath: parameter "basePath" may not be /tmp itself'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/srv/v', mode: '0777' }, problems: ['mode: parameter "mode" may not let every user write'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/srv/v', mode: 'rwx' }, problems: ['mode: parameter "mode" must be octal'] },
    { provisioner: hostPathProvisioner, parameters: { basePath: '/srv/v', size: '1' }, problems: ['size: unknown parameter "size"'] },
    { provisioner: loopProvisioner, parameters: { basePath: '/srv/v', fsType: 'xfs' }, problems: [] },
    { provisioner: loopProvisioner, parameters: { basePath: '/srv/v', fsType: 'ntfs' }, problems: ['fsType: parameter "fsType" must be one of'] },
    { provisioner: loopProvisioner, parameters: { basePath: '/boot/x' }, problems: ['basePath: parameter "basePath" may not be in the system directory /boot'] },
    { provisioner: btrfsProvisioner, parameters: { pool: '/srv/pool' }, problems: [] },
    { provisioner: btrfsProvisioner, parameters: {}, problems: ['pool: parameter "pool" is required'] },
    { provisioner: btrfsProvisioner, parameters: { pool: '/srv/pool', replicas: '2', replicationInterval: '10s' }, problems: [] },
    { provisioner: btrfsProvisioner, parameters: { pool: '/srv/pool', replicas: '5' }, problems: ['replicas: parameter "replicas": must be a whole number from 1 to 3'] },
    { provisioner: btrfsProvisioner, parameters: { pool: '/srv/pool', replicas: '2', replicationInterval: 'often' }, problems: ['replicationInterval: parameter "replicationInterval": not a duration'] },
    { provisioner: btrfsProvisioner, parameters: { pool: 'pool' }, problems: ['pool: parameter "pool" must be an absolute path'] },
    { provisioner: btrfsProvisioner, parameters: { pool: '/etc/pool' }, problems: ['pool: parameter "pool" may not be in the system directory /etc'] },
    { provisioner: btrfsProvisioner, parameters: { pool: '/srv/pool', basePath: '/srv/v' }, problems: ['basePath: unknown parameter "basePath"'] },
    { provisioner: 'example.com/nfs', parameters: { anything: '/etc' }, problems: [] },
  ])('$provisioner with $parameters', ({ provisioner, parameters, problems }) => {
    const got = inTreeParameterProblems(provisioner, parameters as Record<string, string>).map((p) => `${p.parameter}: ${p.message}`);
    expect(got).toHaveLength(problems.length);
    problems.forEach((want, i) => expect(got[i].startsWith(want), got[i]).toBe(true));
  });
});

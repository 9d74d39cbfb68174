'use client';
// Restore a backup to a new claim: its name, a class that can take the backup's format
// (files: btrfs and host-path; image: loop), a size of at least the backup's (number +
// unit, starting from the backup's size). The claim names the backup as its dataSourceRef;
// the provisioner fills the volume before the claim binds.
import { Alert, Anchor, Breadcrumbs, Button, Group, Loader, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { isDNS1123Subdomain } from '@/server/domain/names';
import { isKind } from '@/server/resources/of-kind';
import { quantityOf } from '../claims/claim-draft';
import type { SizeValue } from '../format/size-value';
import { SizeField } from '../forms/size-field';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { formatSize } from '../format/size';
import { detailHref } from '../objects/kinds';
import { RequirePermission } from '../session/admin-only';
import { sizeForBytes } from '../snapshots/snapshot-view';
import { restoreBlocker, restoreClaim, restoreClasses, restoreSizeProblem } from './backup-view';
import { isBackupFormat, restoreNeed } from '@/server/domain/backup-formats';
import { backupHref } from './links';
import { BACKUP_KIND, isVolumeBackup, type VolumeBackup } from './types';

export function RestoreBackupPage({ namespace, name }: { namespace: string; name: string }) {
  const trpc = useTRPC();
  const get = useQuery(trpc.objects.get.queryOptions({ kind: BACKUP_KIND, namespace, name }));
  return (
    <RequirePermission verb="create" kind="PersistentVolumeClaim" title="Restore a backup" back={{ href: backupHref(namespace, name), label: 'Back to the backup' }}>
      <Stack gap="md" maw={720}>
        <Breadcrumbs separator="›" fz="sm">
          <Anchor component={Link} href="/backups" fz="sm">
            Backups
          </Anchor>
          <Anchor component={Link} href={backupHref(namespace, name)} fz="sm">
            {name}
          </Anchor>
        </Breadcrumbs>
        <Title order={1} size="h3">
          Restore {name} to a new claim
        </Title>
        {get.isPending ? (
          <Loader aria-label="Loading the backup" />
        ) : get.isError || !isVolumeBackup(get.data) ? (
          <Alert color="red">{get.isError ? errorInfo(get.error).message : 'This is not a volume backup.'}</Alert>
        ) : (
          <RestoreForm b={get.data} />
        )}
      </Stack>
    </RequirePermission>
  );
}

function initialSize(sizeBytes: string | undefined): SizeValue {
  if (!sizeBytes || !/^\d+$/.test(sizeBytes)) return { size: '1', unit: 'Gi' };
  return sizeForBytes(BigInt(sizeBytes));
}

function RestoreForm({ b }: { b: VolumeBackup }) {
  const trpc = useTRPC();
  const router = useRouter();
  const ns = b.metadata.namespace ?? '';
  const backupName = b.metadata.name ?? '';
  const st = b.status ?? {};
  const source = st.sourceClaimName ?? b.spec?.source?.persistentVolumeClaimName ?? backupName;
  const [claimName, setClaimName] = useState(`${source.slice(0, 240).replace(/[.-]+$/, '')}-restored`);
  const [className, setClassName] = useState<string | null>(null);
  const [size, setSize] = useState(() => initialSize(st.sizeBytes));
  const [touched, setTouched] = useState(false);
  const classesQ = useQuery(trpc.objects.list.queryOptions({ kind: 'StorageClass' }));
  const format = isBackupFormat(st.format) ? st.format : undefined;
  const classes = restoreClasses(
    format,
    (classesQ.data?.items ?? []).filter((c) => isKind(c, 'StorageClass')),
  );
  // The backup's own class first, when it can take the backup again.
  const chosen = className ?? classes.find((c) => c.metadata.name === st.storageClassName)?.metadata.name ?? classes[0]?.metadata.name ?? null;
  const create = useMutation(
    trpc.objects.create.mutationOptions({
      onSuccess: () => router.push(detailHref('PersistentVolumeClaim', ns, claimName) ?? '/claims'),
    }),
  );
  const blocker = restoreBlocker(b);
  const quantity = quantityOf(size);
  const sizeErr = restoreSizeProblem(quantity, st.sizeBytes);
  const nameErr = claimName ? isDNS1123Subdomain(claimName)[0] : 'Enter a name';
  const classErr = chosen ? undefined : format ? `No class can restore a ${format} backup: it needs ${restoreNeed(format)}.` : 'The backup does not say its format.';
  const problem = blocker ?? nameErr ?? classErr ?? sizeErr;
  const submit = () => {
    setTouched(true);
    if (problem || !chosen) return;
    create.mutate({ manifest: JSON.stringify(restoreClaim({ namespace: ns, claimName, backupName, storageClassName: chosen, size: quantity })), namespace: ns });
  };
  return (
    <Paper withBorder p="md">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        aria-label="Restore the backup"
      >
        <Stack gap="sm">
          {blocker && (
            <Alert color="yellow" data-testid="restore-blocked">
              {blocker}
            </Alert>
          )}
          <Text size="sm" c="dimmed">
            Namespace <b>{ns}</b>. The backup holds {st.sizeBytes ? formatSize(st.sizeBytes) : 'a volume'} in format <b>{st.format ?? 'unknown'}</b>. The new claim stays Pending until its volume is filled, then binds.
          </Text>
          <TextInput label="Claim name" required value={claimName} onChange={(e) => setClaimName(e.currentTarget.value.trim())} error={touched || claimName ? nameErr : undefined} maw={420} data-testid="restore-claim-name" />
          <Select
            label="Storage class"
            description={format ? `Restoring a ${format} backup needs ${restoreNeed(format)}` : undefined}
            data={classes.map((c) => ({ value: c.metadata.name ?? '', label: `${c.metadata.name} (${c.provisioner})` }))}
            value={chosen}
            onChange={setClassName}
            allowDeselect={false}
            placeholder={classesQ.isPending ? 'Loading…' : 'No class can take it'}
            error={classesQ.isError ? errorInfo(classesQ.error).message : !classesQ.isPending ? classErr : undefined}
            maw={420}
            data-testid="restore-class"
          />
          <SizeField label="Size" value={size} onChange={setSize} error={sizeErr} required testId="restore-size" />
          {create.error && (
            <Text size="sm" c="red" role="alert">
              {errorInfo(create.error).message}
            </Text>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" component={Link} href={backupHref(ns, backupName)}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending} disabled={Boolean(blocker)} data-testid="restore-submit">
              Create claim
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

'use client';
// Settings (administrators): the "claim nearly full" threshold. A claim whose volume's used
// bytes reach it gets a Warning event once per crossing and is listed on the home page.
// Others are told at once that the page is for administrators.
import { Alert, Button, Group, Loader, NumberInput, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { useMe } from '../session/session';

export function SettingsPage() {
  const me = useMe();
  return (
    <Stack gap="md" maw={720}>
      <Title order={1} size="h3">
        Settings
      </Title>
      {me.role === 'admin' ? (
        <NearlyFullSetting />
      ) : (
        <Alert color="gray" title="For administrators" data-testid="settings-admin-only">
          Settings are changed by administrators.
        </Alert>
      )}
    </Stack>
  );
}

function NearlyFullSetting() {
  const trpc = useTRPC();
  const client = useQueryClient();
  const settings = useQuery(trpc.settings.get.queryOptions());
  const [value, setValue] = useState<number | string>('');
  useEffect(() => {
    if (settings.data) setValue(settings.data.nearlyFullPercent);
  }, [settings.data]);
  const save = useMutation(
    trpc.settings.update.mutationOptions({
      onSuccess: (s) => {
        client.setQueryData(trpc.settings.get.queryKey(), s);
        void client.invalidateQueries({ queryKey: trpc.capacity.attention.queryKey() });
      },
    }),
  );
  if (settings.isPending) return <Loader size="sm" role="status" aria-label="Loading settings" />;
  if (settings.isError) return <Alert color="red" title="Could not load settings">{errorInfo(settings.error).message}</Alert>;
  const s = settings.data;
  const n = typeof value === 'number' ? value : Number(value);
  const valid = Number.isInteger(n) && n >= 1 && n <= 100;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="nearly-full-setting">
      <Stack gap="sm">
        <Title order={2} size="h5" id="nearly-full-setting">
          Claim nearly full
        </Title>
        <Text size="sm">
          When the bytes used on a claim&apos;s volume reach this share of its capacity, the claim gets a Warning event (VolumeNearlyFull), once per
          crossing, and is listed on the home page.
        </Text>
        <form
          aria-label="Claim nearly full"
          onSubmit={(e) => {
            e.preventDefault();
            if (valid) save.mutate({ nearlyFullPercent: n });
          }}
        >
          <Group align="flex-end" gap="sm">
            <NumberInput
              label="Threshold"
              suffix="%"
              min={1}
              max={100}
              allowDecimal={false}
              w={160}
              value={value}
              onChange={(v) => {
                setValue(v);
                save.reset();
              }}
              error={valid ? undefined : 'A whole number from 1 to 100'}
            />
            <Button type="submit" disabled={!valid || n === s.nearlyFullPercent} loading={save.isPending}>
              Save
            </Button>
            {s.nearlyFullSource === 'setting' && (
              <Button variant="default" onClick={() => save.mutate({ nearlyFullPercent: null })} disabled={save.isPending}>
                Use the default ({s.nearlyFullDefault}%)
              </Button>
            )}
          </Group>
        </form>
        <Text size="xs" c="dimmed" data-testid="nearly-full-source">
          {s.nearlyFullSource === 'setting'
            ? `Set to ${s.nearlyFullPercent}% by ${s.updatedBy?.replace(/^user:/, '') ?? 'an administrator'}${s.updatedAt ? ` at ${new Date(s.updatedAt).toLocaleString()}` : ''}.`
            : `The default, ${s.nearlyFullDefault}% (STOWAGE_NEARLY_FULL_PERCENT, else 90%).`}
        </Text>
        {save.isError && (
          <Alert color="red" title="Not saved" role="alert">
            {errorInfo(save.error).message}
          </Alert>
        )}
        {save.isSuccess && (
          <Text size="sm" c="teal.9" role="status">
            Saved. Claims are checked against it within a minute.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

'use client';
// Request storage: a developer's claim form. The class picker starts on the default
// class and says what each class is; only the modes the class's provisioner can make
// are offered; the size has units and bounds; and before anything is created the
// server says what the claim would do (binds now / will be provisioned / would sit
// Pending, and why), from the binder's own search. The YAML tab shows the same claim.
// The namespace.s quotas say how much room is left, and warn before a create they would refuse.
import { Anchor, Button, Code, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import Link from 'next/link';
import { errorInfo } from '../format/format';
import { SaveError } from '../forms/field-errors';
import { CheckResult } from './claim-check-result';
import { yamlOf } from './claim-draft';
import { AccessModes, ClassPicker, ModeAndSize, PlaceFields, SubmitRow } from './claim-form-sections';
import { QuotaRoom } from './quota-room';
import { useClaimForm } from './use-claim-form';
import { ClaimSourceField } from '../snapshots/claim-source-field';

export function ClaimForm() {
  const f = useClaimForm();
  const { draft, create } = f;
  return (
    // Never wider than the screen: long class, provisioner and volume names wrap (a phone is 390 px wide).
    <Stack gap="md" maw={860} miw={0} style={{ overflowWrap: 'anywhere' }} data-testid="claim-form">
      <Group justify="space-between">
        <Title order={1} size="h3">
          Request storage
        </Title>
        <Anchor component={Link} href="/claims" size="sm">
          Back to claims
        </Anchor>
      </Group>
      <Tabs defaultValue="form">
        <Tabs.List>
          <Tabs.Tab value="form">Form</Tabs.Tab>
          <Tabs.Tab value="yaml">YAML</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="form" pt="md">
          <form
            aria-label="Claim"
            onSubmit={(e) => {
              e.preventDefault();
              f.submit();
            }}
          >
            <Stack gap="md">
              <PlaceFields f={f} />
              <ClassPicker f={f} />
              <ClaimSourceField source={draft.dataSource} state={f.source} onChange={(s) => f.set({ dataSource: s })} />
              <AccessModes f={f} />
              <ModeAndSize f={f} />
              {/* One outcome: a claim the quota refuses is not also "Will be provisioned". */}
              {!f.overQuota && <CheckResult complete={f.complete} check={f.check} />}
              <QuotaRoom data={f.quota} />
              {create.error && <SaveError title="Not created" message={errorInfo(create.error).message} causes={errorInfo(create.error).causes} />}
              <SubmitRow f={f} />
            </Stack>
          </form>
        </Tabs.Panel>
        <Tabs.Panel value="yaml" pt="md">
          <Stack gap="xs">
            <Text size="sm">The claim this form makes. To write one by hand, use the YAML editor.</Text>
            <Code block data-testid="claim-yaml">
              {yamlOf(draft)}
            </Code>
            <Button component={Link} href={`/new?kind=PersistentVolumeClaim&namespace=${encodeURIComponent(draft.namespace)}`} variant="default" w="fit-content">
              Open the YAML editor
            </Button>
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

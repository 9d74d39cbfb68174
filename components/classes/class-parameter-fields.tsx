'use client';
// The parameters part of the StorageClass form: the in-tree plugin's own fields, or free
// key/value rows for an external provisioner.
import { ActionIcon, Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import type { FieldError } from '@/server/domain/errors';
import { errorFor, parameterValue, provisionerChoice, withParameter, type ClassDraft } from './class-draft';

export function ClassParameterFields({ draft, onChange, errors, disabled }: { draft: ClassDraft; onChange: (d: ClassDraft) => void; errors: FieldError[]; disabled?: boolean }) {
  const choice = provisionerChoice(draft.provisioner);
  if (choice?.fields) {
    if (choice.fields.length === 0) {
      return (
        <Text size="sm" c="dimmed" data-testid="no-parameters-needed">
          This provisioner takes no parameters.
        </Text>
      );
    }
    return (
      <Stack gap="xs">
        {choice.fields.map((f) =>
          f.options ? (
            <Select
              key={f.key}
              label={`${f.label} (${f.key})`}
              description={f.description}
              data={[...f.options]}
              value={parameterValue(draft, f.key) || null}
              onChange={(v) => onChange(withParameter(draft, f.key, v ?? ''))}
              clearable
              disabled={disabled}
              error={errorFor(errors, `parameters.${f.key}`)}
            />
          ) : (
            <TextInput
              key={f.key}
              label={`${f.label} (${f.key})`}
              description={f.description}
              placeholder={f.placeholder}
              withAsterisk={f.required}
              value={parameterValue(draft, f.key)}
              onChange={(e) => onChange(withParameter(draft, f.key, e.currentTarget.value))}
              disabled={disabled}
              error={errorFor(errors, `parameters.${f.key}`)}
            />
          ),
        )}
        {draft.parameters
          .filter((p) => !choice.fields!.some((f) => f.key === p.key))
          .map((p) => (
            <Text key={p.key} size="sm" c="red">
              {errorFor(errors, `parameters.${p.key}`) ?? `Parameter "${p.key}" is not one of this provisioner's`}
            </Text>
          ))}
      </Stack>
    );
  }
  const rows = draft.parameters;
  const set = (i: number, key: string, value: string) => onChange({ ...draft, parameters: rows.map((r, j) => (j === i ? { key, value } : r)) });
  return (
    <Stack gap="xs" data-testid="free-parameters">
      <Text size="sm" c="dimmed">
        Passed to the external provisioner as they are.
      </Text>
      {rows.map((r, i) => (
        <Group key={i} gap="xs" align="flex-start" wrap="nowrap">
          <TextInput
            aria-label={`Parameter ${i + 1} key`}
            placeholder="key"
            value={r.key}
            onChange={(e) => set(i, e.currentTarget.value, r.value)}
            disabled={disabled}
            error={errorFor(errors, `parameters[${i}]`) ?? (r.key.trim() ? errorFor(errors, `parameters.${r.key.trim()}`) : undefined)}
            style={{ flex: 1 }}
          />
          <TextInput aria-label={`Parameter ${i + 1} value`} placeholder="value" value={r.value} onChange={(e) => set(i, r.key, e.currentTarget.value)} disabled={disabled} style={{ flex: 1 }} />
          <ActionIcon variant="default" size="lg" aria-label={`Remove parameter ${i + 1}`} disabled={disabled} onClick={() => onChange({ ...draft, parameters: rows.filter((_, j) => j !== i) })}>
            ×
          </ActionIcon>
        </Group>
      ))}
      <Button size="xs" variant="default" w="fit-content" disabled={disabled} onClick={() => onChange({ ...draft, parameters: [...rows, { key: '', value: '' }] })}>
        Add parameter
      </Button>
    </Stack>
  );
}

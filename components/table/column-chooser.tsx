'use client';
// Which columns a list shows: kubectl's (with -o wide) and any label as a column.
import { Button, Checkbox, Group, Popover, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { isQualifiedName } from '@/server/domain/names';
import { LABEL_PREFIX, type ListColumn } from './table-model';

export function ColumnChooser({
  available,
  shown,
  onChange,
  onReset,
}: {
  available: ListColumn[];
  shown: string[];
  onChange: (headers: string[]) => void;
  onReset: () => void;
}) {
  const [label, setLabel] = useState('');
  // Controlled, so Escape closes it from any control inside (the page's own key handling must not swallow it).
  const [opened, setOpened] = useState(false);
  const labelError = label && isQualifiedName(label).length > 0 ? 'Not a label key' : undefined;
  const toggle = (h: string) => onChange(shown.includes(h) ? shown.filter((x) => x !== h) : [...shown, h]);
  const labels = shown.filter((h) => h.startsWith(LABEL_PREFIX));
  const addLabel = () => {
    if (!label || labelError) return;
    onChange([...shown.filter((h) => h !== LABEL_PREFIX + label), LABEL_PREFIX + label]);
    setLabel('');
  };
  return (
    <Popover position="bottom-end" withArrow shadow="md" trapFocus opened={opened} onChange={setOpened} returnFocus>
      <Popover.Target>
        <Button size="sm" variant="default" onClick={() => setOpened((o) => !o)} aria-expanded={opened}>
          Columns
        </Button>
      </Popover.Target>
      <Popover.Dropdown
        onKeyDownCapture={(e) => {
          if (e.key !== 'Escape') return;
          e.stopPropagation();
          setOpened(false);
        }}
        data-testid="columns-popover"
      >
        <Stack gap={6} aria-label="Columns" role="group">
          {available.map((c) => (
            <Checkbox key={c.header} size="xs" label={c.header} checked={shown.includes(c.header) || c.header === 'NAME'} disabled={c.header === 'NAME'} onChange={() => toggle(c.header)} />
          ))}
          {labels.map((h) => (
            <Checkbox key={h} size="xs" label={`Label ${h.slice(LABEL_PREFIX.length)}`} checked onChange={() => toggle(h)} />
          ))}
          <Group gap={4} align="flex-start" wrap="nowrap">
            <TextInput
              size="xs"
              placeholder="label key"
              aria-label="Add a label column"
              value={label}
              error={labelError}
              onChange={(e) => setLabel(e.currentTarget.value.trim())}
              onKeyDown={(e) => e.key === 'Enter' && addLabel()}
            />
            <Button size="xs" variant="default" onClick={addLabel} disabled={!label || Boolean(labelError)}>
              Add
            </Button>
          </Group>
          <Text size="xs">
            <Button size="compact-xs" variant="subtle" onClick={onReset}>
              Reset to kubectl&apos;s columns
            </Button>
          </Text>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

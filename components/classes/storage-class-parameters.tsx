'use client';
// A StorageClass's parameters as a key/value table; values of keys that name secrets are
// masked and cannot be revealed here.
import { Code, Paper, Text, Tooltip } from '@mantine/core';
import type { StorageClass } from '@/server/resources/storage-class/schema';
import { DataTable, type DataColumn } from '../table/data-table';
import { parameterRows, type ParameterRow } from './class-parameters';

const PARAMETER_COLUMNS: DataColumn<ParameterRow>[] = [
  { key: 'key', header: 'KEY', cell: (r) => <Code>{r.key}</Code> },
  {
    key: 'value',
    header: 'VALUE',
    width: 'minmax(120px, 2fr)',
    cell: (r) =>
      r.masked ? (
        <Tooltip label="Hidden: this parameter names a secret">
          <Text span size="sm" c="dimmed" aria-label="hidden value" data-testid="masked-value">
            {r.value}
          </Text>
        </Tooltip>
      ) : (
        <Code data-testid="parameter-value">{r.value}</Code>
      ),
  },
];

export function StorageClassParameters({ sc }: { sc: StorageClass }) {
  const rows = parameterRows(sc.parameters);
  return (
    <Paper withBorder p="md" data-testid="class-parameters">
      <Text fw={600} size="sm" mb="xs">
        Parameters{' '}
        <Text span c="dimmed" fw={400} inherit>
          (passed to {sc.provisioner ? <Code>{sc.provisioner}</Code> : 'the provisioner'} as they are)
        </Text>
      </Text>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="no-parameters">
          None.
        </Text>
      ) : (
        <DataTable
          label="Parameters"
          columns={PARAMETER_COLUMNS}
          rows={rows}
          rowKey={(r) => r.key}
          rowProps={(r) => ({ 'data-testid': 'parameter-row', 'data-key': r.key, 'data-masked': r.masked })}
          striped={false}
        />
      )}
    </Paper>
  );
}

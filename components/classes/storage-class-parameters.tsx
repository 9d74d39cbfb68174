'use client';
// A StorageClass's parameters as a key/value table; values of keys that name secrets are
// masked and cannot be revealed here.
import { Code, Paper, Table, Text, Tooltip } from '@mantine/core';
import type { KubeObject } from '@/server/resources/types';
import { parameterRows } from './class-parameters';

export function StorageClassParameters({ sc }: { sc: KubeObject }) {
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
        <Table aria-label="Parameters" withRowBorders verticalSpacing={4}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th fz="xs">KEY</Table.Th>
              <Table.Th fz="xs">VALUE</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.key} data-testid="parameter-row" data-key={r.key} data-masked={r.masked}>
                <Table.Td>
                  <Code>{r.key}</Code>
                </Table.Td>
                <Table.Td>
                  {r.masked ? (
                    <Tooltip label="Hidden: this parameter names a secret">
                      <Text span size="sm" c="dimmed" aria-label="hidden value" data-testid="masked-value">
                        {r.value}
                      </Text>
                    </Tooltip>
                  ) : (
                    <Code data-testid="parameter-value">{r.value}</Code>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}

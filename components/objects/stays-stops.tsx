'use client';
// What a delete leaves as it is and what stops working once the object is gone, as every
// delete dialog says it (a claim, several claims, a class, a backup target). `children`
// goes inside "What stops" (e.g. a button that pauses the schedules first).
import { Alert, List, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export function StaysStops({ stays, stops, testId = 'delete', children }: { stays: string[]; stops: string[]; testId?: string; children?: ReactNode }) {
  if (stays.length === 0 && stops.length === 0) return null;
  return (
    <Stack gap="xs" data-testid={`${testId}-dependents`}>
      {stays.length > 0 && (
        <div>
          <Text size="sm" fw={600}>
            What stays
          </Text>
          <List size="sm" data-testid={`${testId}-stays`}>
            {stays.map((t) => (
              <List.Item key={t}>{t}</List.Item>
            ))}
          </List>
        </div>
      )}
      {stops.length > 0 && (
        <Alert color="orange" title="What stops" data-testid={`${testId}-stops`}>
          <Stack gap={6}>
            {stops.map((t) => (
              <Text key={t} size="sm">
                {t}
              </Text>
            ))}
            {children}
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}

'use client';
// A failed create or update: the server's message, and each field path with its
// message; clicking one shows its line in the editor.
import { Alert, Anchor, Code, List, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { LocatedCause } from './manifest-check';
import { humanMessage } from '../format/quota-refusal';

/** 'PersistentVolume "x" is invalid: [a, b]' -> 'PersistentVolume "x" is invalid:' when the causes are listed below. */
function headline(message: string): string {
  const m = /^(.*? is invalid):/.exec(message);
  return m ? `${m[1]}:` : message;
}

export function SaveError({
  title,
  message,
  causes,
  onJump,
  action,
}: {
  title: string;
  message: string;
  causes: LocatedCause[];
  onJump?: (line: number) => void;
  action?: ReactNode;
}) {
  return (
    <Alert color="red" title={title} role="alert" data-testid="save-error">
      <Text size="sm" data-testid="save-error-message" style={{ wordBreak: 'break-word' }} title={message}>
        {causes.length > 0 ? headline(message) : humanMessage(message)}
      </Text>
      {causes.length > 0 && (
        <List size="sm" mt="xs" spacing={4} data-testid="field-errors">
          {causes.map((c, i) => (
            <List.Item key={`${c.field}-${i}`} data-testid="field-error" data-field={c.field}>
              <Code>{c.field || '(object)'}</Code> {c.message}
              {c.line !== undefined && onJump && (
                <>
                  {' '}
                  <Anchor component="button" type="button" size="xs" onClick={() => onJump(c.line!)}>
                    line {c.line}
                  </Anchor>
                </>
              )}
            </List.Item>
          ))}
        </List>
      )}
      {action}
    </Alert>
  );
}

/** A form's own checks that failed before anything was sent: each field with its message. */
export function FormErrors({ errors }: { errors: { field: string; message: string }[] }) {
  if (errors.length === 0) return null;
  return (
    <Alert color="red" title="Fix these first" role="alert" data-testid="form-errors">
      <List size="sm">
        {errors.map((e, i) => (
          <List.Item key={i}>
            {e.field}: {e.message}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}

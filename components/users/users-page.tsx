'use client';
// Users (admins only): who may sign in, with which role and namespaces; add, change,
// reset passwords, revoke tokens, remove. Passwords are shown once, when set.
import { Alert, Badge, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Role } from '@/server/domain/authorization';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { useMe } from '../session/session';
import { DataTable } from '../table/data-table';
import { SecretOnce } from './secret-once';
import { UserActions } from './user-actions';
import { AddUserForm, EditUserModal } from './user-forms';

interface UserRow {
  name: string;
  role: Role;
  namespaces: string[];
  tokens: number;
}

function UserTable({ rows, onEdit, onPassword }: { rows: UserRow[]; onEdit: (u: UserRow) => void; onPassword: (name: string, password: string) => void }) {
  const me = useMe();
  return (
    <DataTable<UserRow>
      label="Users"
      data-testid="user-table"
      rows={rows}
      rowKey={(u) => u.name}
      rowProps={(u) => ({ 'data-testid': 'user-row', 'data-name': u.name })}
      columns={[
        { key: 'name', header: 'NAME', cell: (u) => (u.name === me.name ? `${u.name} (you)` : u.name) },
        { key: 'role', header: 'ROLE', width: 'minmax(90px, 0.6fr)', cell: (u) => <Badge variant="light" color={u.role === 'admin' ? 'indigo' : 'gray'} tt="none">{u.role}</Badge> },
        {
          key: 'namespaces',
          header: 'NAMESPACES',
          cell: (u) => (u.role === 'developer' ? u.namespaces.join(', ') || <Text span c="dimmed" inherit>none</Text> : <Text span c="dimmed" inherit>all ({u.role === 'admin' ? 'read and write' : 'read'})</Text>),
        },
        { key: 'tokens', header: 'API TOKENS', width: 'minmax(80px, 0.5fr)', cellProps: () => ({ 'data-testid': 'user-tokens' }), cell: (u) => u.tokens },
        { key: 'actions', header: 'ACTIONS', width: 'max-content', cell: (u) => <UserActions name={u.name} self={u.name === me.name} onEdit={() => onEdit(u)} onPassword={(p) => onPassword(u.name, p)} /> },
      ]}
    />
  );
}

export function UsersPage() {
  const trpc = useTRPC();
  const users = useQuery(trpc.users.list.queryOptions());
  const [editing, setEditing] = useState<UserRow | null>(null);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const showPassword = (name: string, password: string) => setSecret({ title: `Password of ${name}`, value: password });
  return (
    <Stack gap="md">
      <Title order={1} size="h3">
        Users
      </Title>
      <Paper withBorder p="md">
        <AddUserForm onAdded={showPassword} />
      </Paper>
      {secret && <SecretOnce title={secret.title} secret={secret.value} onClose={() => setSecret(null)} testId="new-password" />}
      {users.isPending ? (
        <Loader size="sm" />
      ) : users.isError ? (
        <Alert color={errorInfo(users.error).code === 'FORBIDDEN' ? 'gray' : 'red'} title="Could not list users" data-testid="users-error">
          {errorInfo(users.error).message}
        </Alert>
      ) : (
        <UserTable rows={users.data} onEdit={setEditing} onPassword={showPassword} />
      )}
      <EditUserModal user={editing} onClose={() => setEditing(null)} />
    </Stack>
  );
}

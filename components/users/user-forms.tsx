'use client';
// The admin's forms for users: add one (the password, given or generated, shown once) and
// change one's role and namespaces.
import { Button, Group, Modal, PasswordInput, Select, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ROLES, type Role } from '@/server/domain/authorization';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';

const ROLE_OPTIONS = ROLES.map((r) => ({ value: r, label: r }));
const NAMESPACES_HINT = 'Developers read and write only in these';

function ErrorLine({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <Text size="sm" c="red" role="alert">
      {errorInfo(error).message}
    </Text>
  );
}

export function AddUserForm({ onAdded }: { onAdded: (name: string, password: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [namespaces, setNamespaces] = useState<string[]>([]);
  const [password, setPassword] = useState('');
  const add = useMutation(
    trpc.users.add.mutationOptions({
      onSuccess: (r) => {
        onAdded(r.name, r.password);
        setName('');
        setNamespaces([]);
        setPassword('');
        void queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() });
      },
    }),
  );
  return (
    <form
      aria-label="Add a user"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate({ name: name.trim(), role, namespaces, password: password || undefined });
      }}
    >
      <Group align="flex-start" gap="sm">
        <TextInput label="User name" value={name} onChange={(e) => setName(e.currentTarget.value)} required maxLength={63} />
        <Select label="Role" data={ROLE_OPTIONS} value={role} onChange={(v) => v && setRole(v)} allowDeselect={false} w={140} />
        <TagsInput label="Namespaces" description={NAMESPACES_HINT} value={namespaces} onChange={setNamespaces} w={260} />
        <PasswordInput label="Password" description="Empty: generate one" value={password} onChange={(e) => setPassword(e.currentTarget.value)} w={200} />
        <Button type="submit" mt={24} loading={add.isPending} disabled={!name.trim()}>
          Add user
        </Button>
      </Group>
      <ErrorLine error={add.error} />
    </form>
  );
}

export function EditUserModal({ user, onClose }: { user: { name: string; role: Role; namespaces: string[] } | null; onClose: () => void }) {
  // Mounted only while open, so its title never shows without a user.
  if (!user) return null;
  return (
    <Modal opened onClose={onClose} title={<Text fw={600}>Change {user.name}</Text>}>
      <EditUserFields key={user.name} user={user} onClose={onClose} />
    </Modal>
  );
}

function EditUserFields({ user, onClose }: { user: { name: string; role: Role; namespaces: string[] }; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>(user.role);
  const [namespaces, setNamespaces] = useState<string[]>(user.namespaces);
  const update = useMutation(
    trpc.users.update.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() });
        onClose();
      },
    }),
  );
  return (
    <Stack gap="sm">
      <Select label="Role" data={ROLE_OPTIONS} value={role} onChange={(v) => v && setRole(v)} allowDeselect={false} comboboxProps={{ withinPortal: false }} />
      <TagsInput label="Namespaces" description={NAMESPACES_HINT} value={namespaces} onChange={setNamespaces} />
      <ErrorLine error={update.error} />
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button loading={update.isPending} onClick={() => update.mutate({ name: user.name, role, namespaces })} data-testid="save-user">
          Save
        </Button>
      </Group>
    </Stack>
  );
}

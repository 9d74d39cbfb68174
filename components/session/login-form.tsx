'use client';
// Sign-in: user name and password; errors inline; then back to where the user was going.
import { Alert, Button, Center, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState, type FormEvent } from 'react';
import { errorInfo, messageSentence } from '../format/format';
import { useMeQuery } from './session';
import { Logo } from '../shell/shell';
import { useTRPC } from '../data/trpc';

/** Only paths on this site, never another origin ("//evil.example"). */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || next.startsWith('/login')) return '/';
  return next;
}

export function LoginForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const params = useSearchParams();
  const next = safeNext(params.get('next'));
  const me = useMeQuery();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');

  const signIn = useMutation(
    trpc.auth.signIn.mutationOptions({
      onSuccess: (user) => {
        queryClient.clear();
        queryClient.setQueryData(trpc.auth.me.queryKey(), user);
        router.replace(next);
      },
    }),
  );

  // Already signed in: go on.
  useEffect(() => {
    if (me.data) router.replace(next);
  }, [me.data, next, router]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name || !password) return;
    signIn.mutate({ name: name.trim(), password });
  };

  const error = signIn.error ? errorInfo(signIn.error) : undefined;
  return (
    <Center component="main" mih="100vh" bg="var(--mantine-color-default-hover)">
      <Paper withBorder shadow="sm" p="xl" w={380} radius="md">
        <form onSubmit={submit} aria-label="Sign in">
          <Stack gap="md">
            <Group gap={8}>
              <Logo size={26} />
              <Title order={1} fz="h3">
                Stowage
              </Title>
            </Group>
            <Text size="sm" c="dimmed">
              Sign in to manage volumes, claims and storage classes.
            </Text>
            {error && (
              <Alert color="red" variant="light" role="alert" data-testid="login-error">
                {error.code === 'UNAUTHORIZED' || error.code === 'BAD_REQUEST' ? messageSentence(error.message || 'Wrong user name or password') : messageSentence(error.message)}
              </Alert>
            )}
            <TextInput
              label="User name"
              name="username"
              autoComplete="username"
              required
              autoFocus
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
            />
            <PasswordInput
              label="Password"
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
            <Button type="submit" loading={signIn.isPending} fullWidth>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}

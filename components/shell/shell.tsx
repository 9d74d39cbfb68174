'use client';
// The signed-in frame of every page: header (user, role, live indicator, sign out),
// navigation by role, and the live stream. Sends signed-out visitors to /login.
import { ActionIcon, AppShell, Badge, Box, Burger, Button, Center, Group, Loader, Menu, NavLink, Stack, Text, Alert } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { Suspense, useEffect, useMemo, type ReactNode } from 'react';
import { CommandPalette, openPalette } from '../palette/command-palette';
import { ThemeSwitch } from './theme-switch';
import { KINDS } from '../objects/kinds';
import { isActive, menuPages, navTestId, pagesFor } from './navigation';
import { LiveIndicator, LiveUpdates } from '../data/live';
import { MeProvider, permissionsOf, useMeQuery, type Me } from '../session/session';
import { useSignOut } from '../session/use-sign-out';
import { errorInfo } from '../format/format';

export function loginHref(): string {
  const here = typeof window === 'undefined' ? '/' : window.location.pathname + window.location.search;
  return here === '/' || here.startsWith('/login') ? '/login' : `/login?next=${encodeURIComponent(here)}`;
}

export function Shell({ children }: { children: ReactNode }) {
  const me = useMeQuery();
  const router = useRouter();
  const signedOut = me.isSuccess && me.data === null;

  useEffect(() => {
    if (signedOut) router.replace(loginHref());
  }, [signedOut, router]);

  if (me.isError) {
    return (
      <Center h="100vh">
        <Alert color="red" title="Stowage is not reachable" maw={480}>
          {errorInfo(me.error).message}
          <Button mt="sm" size="xs" variant="light" onClick={() => void me.refetch()}>
            Try again
          </Button>
        </Alert>
      </Center>
    );
  }
  if (!me.data) {
    return (
      <Center h="100vh">
        <Loader role="status" aria-label="Loading" />
      </Center>
    );
  }
  return (
    <MeProvider me={me.data}>
      <LiveUpdates>
        <Frame me={me.data}>{children}</Frame>
      </LiveUpdates>
    </MeProvider>
  );
}

function Frame({ me, children }: { me: Me; children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure();
  const pathname = usePathname();
  const perms = permissionsOf(me);
  const pages = useMemo(() => {
    const p = permissionsOf(me);
    return pagesFor({ admin: me.role === 'admin', canList: (k) => p.canListSomewhere(k.kind, k.namespaced) });
  }, [me]);
  const mayCreate = KINDS.some((k) => {
    const ns = perms.namespacesFor('create', k.kind);
    return ns === 'all' || ns.length > 0;
  });

  useEffect(() => close(), [pathname, close]);

  return (
    <AppShell header={{ height: 52 }} navbar={{ width: 200, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <a href="#main-content" className="skip-link" data-testid="skip-link">
          Skip to content
        </a>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Link href="/" style={{ textDecoration: 'none', color: 'inherit' }}>
              <Group gap={8} wrap="nowrap">
                <Logo />
                <Text fw={700} size="lg" span>
                  Stowage
                </Text>
              </Group>
            </Link>
          </Group>
          <Group gap="md" wrap="nowrap">
            <Button size="xs" variant="default" onClick={openPalette} visibleFrom="md" aria-keyshortcuts="Control+K Meta+K" data-testid="palette-button">
              Search (Ctrl K)
            </Button>
            <LiveIndicator />
            <Group gap="md" wrap="nowrap" visibleFrom="md">
              <ThemeSwitch />
              <UserBox me={me} />
            </Group>
            <CompactHeader me={me} />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <nav aria-label="Main">
          <Stack gap={2}>
            {menuPages(pages).map((p) => (
              <NavLink key={p.route} component={Link} href={p.route} label={p.title} active={isActive(p, pathname)} data-testid={navTestId(p)} />
            ))}
          </Stack>
        </nav>
        {mayCreate && (
          <AppShell.Section mt="auto" pt="sm">
            <Button component={Link} href="/new" prefetch={false} variant="light" fullWidth size="sm" px="xs">
              Create from YAML
            </Button>
          </AppShell.Section>
        )}
      </AppShell.Navbar>
      <CommandPalette
        pages={pages}
        mayCreateClaim={perms.namespacesFor('create', 'PersistentVolumeClaim') === 'all' || perms.namespacesFor('create', 'PersistentVolumeClaim').length > 0}
        mayCreateVolume={perms.can('create', 'PersistentVolume')}
        mayCreateAny={mayCreate}
        admin={me.role === 'admin'}
      />
      <AppShell.Main id="main-content" tabIndex={-1} style={{ outline: 'none' }}>
        <Suspense
          fallback={
            <Center py="xl">
              <Loader />
            </Center>
          }
        >
          {children}
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}

/** Below the md breakpoint: search (the palette, reachable by touch) and one menu with the user, the theme and sign-out. */
function CompactHeader({ me }: { me: Me }) {
  const signOut = useSignOut();
  return (
    <Group gap={6} wrap="nowrap" hiddenFrom="md" data-testid="compact-header">
      <ActionIcon variant="default" size="lg" onClick={openPalette} aria-label="Search" data-testid="palette-button-compact">
        <svg width={16} height={16} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2.2} aria-hidden="true">
          <circle cx="11" cy="11" r="7" />
          <path d="m20 20-3.5-3.5" />
        </svg>
      </ActionIcon>
      <Menu position="bottom-end" width={240} withinPortal>
        <Menu.Target>
          <ActionIcon variant="default" size="lg" aria-label={`Account, theme and sign out (${me.name})`} data-testid="header-menu">
            <Text span fw={700} size="sm" aria-hidden>
              {me.name.slice(0, 1).toUpperCase()}
            </Text>
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown data-testid="header-menu-dropdown">
          <Menu.Label>
            {me.name} · {me.role}
          </Menu.Label>
          {me.role === 'developer' && me.namespaces.length > 0 && (
            <Text size="xs" c="dimmed" px="sm" pb={4} style={{ overflowWrap: 'anywhere' }}>
              {me.namespaces.join(', ')}
            </Text>
          )}
          <Box px="sm" py={4}>
            <ThemeSwitch always />
          </Box>
          <Menu.Divider />
          <Menu.Item onClick={() => signOut.mutate()} data-testid="menu-sign-out">
            Sign out
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </Group>
  );
}

function UserBox({ me }: { me: Me }) {
  const signOut = useSignOut();
  const roleColor = me.role === 'admin' ? 'grape' : me.role === 'developer' ? 'blue' : 'gray';
  return (
    <Group gap="xs" wrap="nowrap" data-testid="user-box">
      <Text size="sm" fw={500} data-testid="user-name" visibleFrom="xs">
        {me.name}
      </Text>
      <Badge color={roleColor} variant="light" data-testid="user-role" miw="max-content" visibleFrom="sm">
        {me.role}
      </Badge>
      {me.role === 'developer' && me.namespaces.length > 0 && (
        <Text size="xs" c="dimmed" visibleFrom="md">
          {me.namespaces.join(', ')}
        </Text>
      )}
      <Button size="xs" variant="default" onClick={() => signOut.mutate()} loading={signOut.isPending} miw="max-content">
        Sign out
      </Button>
    </Group>
  );
}

export function Logo({ size = 22 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" aria-hidden="true">
      <rect x="3" y="3" width="18" height="5" rx="1.5" fill="#4c6ef5" />
      <rect x="3" y="9.5" width="18" height="5" rx="1.5" fill="#748ffc" />
      <rect x="3" y="16" width="18" height="5" rx="1.5" fill="#bac8ff" />
    </svg>
  );
}

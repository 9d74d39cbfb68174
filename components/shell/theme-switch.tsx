'use client';
// Light, dark or the system's choice: Mantine keeps it in localStorage, and the script in
// the document head applies it before the first paint, so a page never flashes the
// wrong colours.
import { SegmentedControl, useMantineColorScheme, type MantineColorScheme } from '@mantine/core';
import { useEffect, useState } from 'react';

const OPTIONS: { label: string; value: MantineColorScheme }[] = [
  { label: 'Light', value: 'light' },
  { label: 'Dark', value: 'dark' },
  { label: 'System', value: 'auto' },
];

/** `always`: shown at every width (inside the compact header's menu); else from the md breakpoint. */
export function ThemeSwitch({ always }: { always?: boolean }) {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  // The stored choice is known only in the browser: render the default until mounted.
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return (
    <SegmentedControl
      size="xs"
      aria-label="Colour theme"
      data-testid="theme-switch"
      data={OPTIONS}
      value={mounted ? colorScheme : 'auto'}
      onChange={(v) => setColorScheme(v)}
      visibleFrom={always ? undefined : 'md'}
      fullWidth={always}
    />
  );
}

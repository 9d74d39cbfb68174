import '@mantine/core/styles.css';
// The charts' styles are global: imported by the one chart component, Next preloaded the
// chunk on every page and Chromium warned that it went unused (13 KB; now applied once).
import '@mantine/charts/styles.css';
import './globals.css';
import { ColorSchemeScript, MantineProvider, mantineHtmlProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { theme } from '@/components/shell/theme';
import { TrpcProviders } from '@/components/data/trpc';

export const metadata = { title: 'Stowage', description: 'Storage control plane' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" {...mantineHtmlProps}>
      <head>
        <ColorSchemeScript defaultColorScheme="auto" />
      </head>
      <body>
        <MantineProvider theme={theme} defaultColorScheme="auto">
          <TrpcProviders>{children}</TrpcProviders>
        </MantineProvider>
      </body>
    </html>
  );
}

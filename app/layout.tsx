import '@mantine/core/styles.css';
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

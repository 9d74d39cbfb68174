import '@mantine/core/styles.css';
import { ColorSchemeScript, MantineProvider, mantineHtmlProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { TrpcProviders } from '@/components/trpc';

export const metadata = { title: 'Stowage', description: 'Storage control plane' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" {...mantineHtmlProps}>
      <head>
        <ColorSchemeScript />
      </head>
      <body>
        <MantineProvider>
          <TrpcProviders>{children}</TrpcProviders>
        </MantineProvider>
      </body>
    </html>
  );
}

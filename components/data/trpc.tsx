'use client';
// The browser's tRPC client: batched queries over HTTP, live changes over SSE, and
// TanStack Query for caching.
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { useState, type ReactNode } from 'react';
import type { AppRouter } from '@/server/trpc/root';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function makeQueryClient() {
  const client: QueryClient = new QueryClient({
    // A session that ended (expired, signed out in another tab) makes queries fail with
    // UNAUTHORIZED: refetch `auth.me`, and the shell then sends the user to /login.
    queryCache: new QueryCache({
      onError: (err, query) => {
        const code = (err as { data?: { code?: string } })?.data?.code;
        const path = (query.queryKey[0] as string[] | undefined)?.join('.');
        if (code === 'UNAUTHORIZED' && path !== 'auth.me') void client.invalidateQueries({ queryKey: [['auth', 'me']] });
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        retry: (count, err: unknown) => {
          const code = (err as { data?: { code?: string } })?.data?.code;
          if (code && ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'BAD_REQUEST', 'UNPROCESSABLE_CONTENT', 'CONFLICT'].includes(code)) return false;
          return count < 2;
        },
      },
    },
  });
  return client;
}

export function TrpcProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          condition: (op) => op.type === 'subscription',
          true: httpSubscriptionLink({ url: '/api/trpc' }),
          false: httpBatchLink({ url: '/api/trpc', maxItems: 20 }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

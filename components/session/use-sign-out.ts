'use client';
// Signing out: the server ends the session, the browser forgets every cached answer and
// goes to the sign-in page (also when the server could not be reached).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useTRPC } from '../data/trpc';

export function useSignOut() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  return useMutation(
    trpc.auth.signOut.mutationOptions({
      onSettled: () => {
        queryClient.clear();
        router.replace('/login');
      },
    }),
  );
}

'use client';
import { TokensPage } from '@/components/users/tokens-page';

export default function Page() {
  return <TokensPage />;
}

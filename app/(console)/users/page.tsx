'use client';
import { UsersPage } from '@/components/users/users-page';

export default function Page() {
  return <UsersPage />;
}

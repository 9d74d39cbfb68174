'use client';
import { CreatePage } from '@/components/create-page';

export default function Page() {
  return <CreatePage />;
}

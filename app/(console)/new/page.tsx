'use client';
import { CreatePage } from '@/components/forms/create-page';

export default function Page() {
  return <CreatePage />;
}

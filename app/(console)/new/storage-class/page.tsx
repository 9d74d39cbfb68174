'use client';
import { ClassForm } from '@/components/classes/class-form';

export default function Page() {
  return <ClassForm />;
}

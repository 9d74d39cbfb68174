'use client';
import { VolumeForm } from '@/components/volumes/volume-form';

export default function Page() {
  return <VolumeForm />;
}

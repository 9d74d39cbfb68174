'use client';
import { ClaimForm } from '@/components/claims/claim-form';

export default function Page() {
  return <ClaimForm />;
}

'use client';
// The start page: what needs attention, and capacity per class.
import { HealthSummary } from '@/components/home/health-summary';

export default function Home() {
  return <HealthSummary />;
}

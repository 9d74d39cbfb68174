// The shapes the dashboard reads and sends, named from the tRPC router's own types. The UI
// imports no service or store module (the layer rules in .dependency-cruiser.cjs): what a
// procedure returns is its contract with the dashboard.
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/root';

type Out = inferRouterOutputs<AppRouter>;
type In = inferRouterInputs<AppRouter>;

export type NodeSummary = Out['localVolumes']['rollup'][number];
export type DiskView = Out['localVolumes']['nodeDisks']['disks'][number];
export type JobView = Out['localVolumes']['volumeHistory']['jobs'][number];

export type HistoryRow = Out['history']['audit']['items'][number];
export type ClassCapacity = Out['lists']['health']['classes'][number];
export type LaggingReplicas = NonNullable<Out['lists']['health']['laggingReplicas']>;

export type ReclaimVolume = Out['reclaim']['overview']['volumes'][number];
export type ReclaimClaim = Out['reclaim']['overview']['claims'][number];
export type ActionState = ReclaimVolume['actions'][keyof ReclaimVolume['actions']];
export type ReclaimTarget = In['reclaim']['preview']['targets'][number];
export type PreviewRow = Out['reclaim']['preview'][number];
export type ApplyResult = Out['reclaim']['act'];

export type CapacityOverview = Out['capacity']['overview'];
export type CapacityTrend = Out['capacity']['trend'];
export type ClassTrend = CapacityTrend['classes'][number];
export type NamespaceQuotaForecast = Out['capacity']['quotaForecast'][number];

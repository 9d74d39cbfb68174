'use client';
// The trend of one class's provisioned, bound and requested bytes (from the history), and
// the "days until full" estimate drawn from it.
import { LineChart } from '@mantine/charts';
import { Group, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { forecastText } from '@/server/domain/capacity-forecast';
import type { CapacityTrend } from '../data/api-types';
import { formatSize } from '../format/size';
import { chartAxis, inUnit, tickText } from './capacity-format';

function tick(iso: string, stepMs: number): string {
  const d = new Date(iso);
  return stepMs < 24 * 3600 * 1000
    ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

export function CapacityTrendChart({ trend, seeVolumes }: { trend: CapacityTrend; seeVolumes: boolean }) {
  const classes = trend.classes;
  const [picked, setPicked] = useState<string | null>(null);
  const current = classes.find((c) => c.storageClass === picked) ?? classes[0];
  if (!current) {
    return (
      <Text size="sm" c="dimmed">
        No volume or claim has been recorded in the last 30 days.
      </Text>
    );
  }
  // One unit for the whole chart, from its largest value: ticks are short numbers in it.
  const shown = (p: (typeof current.points)[number]) => (seeVolumes ? [p.provisionedBytes, p.boundBytes, p.requestedBytes] : [p.requestedBytes]);
  const max = current.points.flatMap(shown).reduce((m, b) => (BigInt(b) > m ? BigInt(b) : m), 0n);
  const axis = chartAxis(max);
  const data = current.points.map((p) => ({
    time: tick(p.t, trend.stepMs),
    ...(seeVolumes ? { Provisioned: inUnit(p.provisionedBytes, axis.unit), Bound: inUnit(p.boundBytes, axis.unit) } : {}),
    Requested: inUnit(p.requestedBytes, axis.unit),
  }));
  const last = current.points.at(-1)!;
  // One small chart per series on one scale: lines of equal values (bound = requested) would
  // lie on top of each other and read as one in a single chart.
  const series = [
    ...(seeVolumes
      ? [
          { name: 'Provisioned', color: 'blue.7' },
          { name: 'Bound', color: 'teal.8' },
        ]
      : []),
    { name: 'Requested', color: 'orange.8' },
  ];
  return (
    <Stack gap="sm">
      <Group align="end" justify="space-between">
        <Select
          label="Class"
          data={classes.map((c) => ({ value: c.storageClass, label: c.storageClass || '(no class)' }))}
          value={current.storageClass}
          onChange={setPicked}
          allowDeselect={false}
          w={240}
          data-testid="trend-class"
        />
        <Paper withBorder p="sm" data-testid="forecast">
          <Text size="sm" c="dimmed">
            Days until full
          </Text>
          <Text fw={700}>{forecastText(current.forecast)}</Text>
        </Paper>
      </Group>
      <figure style={{ margin: 0 }} data-testid="trend-chart" aria-label={`Trend of ${current.storageClass || 'volumes without a class'}, ${axis.unit}`}>
        <Stack gap={4}>
          {series.map((s) => (
            <div key={s.name} data-testid={`trend-${s.name.toLowerCase()}`}>
              <Text size="xs" fw={600}>
                {s.name}
              </Text>
              <LineChart
                h={seeVolumes ? 110 : 220}
                data={data}
                dataKey="time"
                series={[s]}
                curveType="stepAfter"
                withDots={false}
                valueFormatter={(v) => `${tickText(v)} ${axis.unit}`}
                yAxisLabel={axis.unit}
                yAxisProps={{ width: axis.width, ticks: axis.ticks, domain: [0, axis.ticks.at(-1)!], tickFormatter: (v: number) => tickText(v), interval: 0 }}
              />
            </div>
          ))}
        </Stack>
        <Text component="figcaption" size="sm" c="dimmed" mt="xs">
          {stepText(trend.stepMs)} since {new Date(trend.from).toLocaleString()}; now{' '}
          {seeVolumes ? `${formatSize(last.provisionedBytes)} provisioned, ${formatSize(last.boundBytes)} bound, ` : ''}
          {formatSize(last.requestedBytes)} requested.
        </Text>
      </figure>
    </Stack>
  );
}

/** "Every 5 minutes", "Hourly", "Daily": the buckets of the trend. */
export function stepText(stepMs: number): string {
  const min = 60 * 1000;
  if (stepMs >= 24 * 60 * min) return 'Daily';
  if (stepMs >= 60 * min) return 'Hourly';
  return `Every ${Math.round(stepMs / min)} minutes`;
}

export function TrendSection({ trend, seeVolumes }: { trend: CapacityTrend | undefined; seeVolumes: boolean }) {
  return (
    <section aria-labelledby="trend">
      <Title order={2} size="h4" id="trend" mb="xs">
        Trend
      </Title>
      {trend ? <CapacityTrendChart trend={trend} seeVolumes={seeVolumes} /> : <Text size="sm">Loading the trend…</Text>}
    </section>
  );
}

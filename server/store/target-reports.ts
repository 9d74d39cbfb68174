// The agents' latest look at each backup target (table backup_target_reports): one row per
// (node, target), replaced by each report. The backup-target controller reads them all to
// write each target's status (reachable and writable per node, backups found, figures).
import { targetReportSchema, type TargetReport } from '../contracts/data-jobs';
import type { SqlClient } from './pg';
import { sqlOf, type Queryable } from './sql-handle';

export interface TargetReportRow {
  node: string;
  report: TargetReport;
  at: Date;
}

export class TargetReports {
  private readonly sql: SqlClient;

  constructor(on: Queryable) {
    this.sql = sqlOf(on);
  }

  /**
   * Replaces `node`'s reports with `reports` (one per target): a target the node no longer
   * reports on (removed, renamed) loses that node's row.
   */
  async save(node: string, reports: readonly TargetReport[]): Promise<void> {
    const names = reports.map((r) => r.name);
    await this.sql.$executeRawUnsafe(
      `WITH gone AS (DELETE FROM backup_target_reports WHERE node_name = $1 AND NOT (target_name = ANY($2::text[])))
       INSERT INTO backup_target_reports (node_name, target_name, report, reported_at)
       SELECT $1, r->>'name', r, now() FROM jsonb_array_elements($3::jsonb) AS r
       ON CONFLICT (node_name, target_name) DO UPDATE SET report = EXCLUDED.report, reported_at = EXCLUDED.reported_at`,
      node,
      names,
      JSON.stringify(reports),
    );
  }

  /** Every node's latest report on every target (a row that no longer parses is skipped). */
  async list(): Promise<TargetReportRow[]> {
    const rows = await this.sql.$queryRawUnsafe<{ node_name: string; report: unknown; reported_at: Date }[]>(
      'SELECT node_name, report, reported_at FROM backup_target_reports ORDER BY target_name, node_name',
    );
    const out: TargetReportRow[] = [];
    for (const r of rows) {
      const parsed = targetReportSchema.safeParse(typeof r.report === 'string' ? JSON.parse(r.report) : r.report);
      if (parsed.success) out.push({ node: r.node_name, report: parsed.data, at: new Date(r.reported_at) });
    }
    return out;
  }

  /** Forgets a node's reports (the node was removed). */
  async forgetNode(node: string): Promise<void> {
    await this.sql.$executeRawUnsafe('DELETE FROM backup_target_reports WHERE node_name = $1', node);
  }
}

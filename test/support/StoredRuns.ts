/** What ingest stored for runs of these monitors: per (job, region), how many results and misses. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export interface StoredRun {
  readonly jobId: string
  readonly region: string
  readonly results: number
  readonly misses: number
}

/** The query docs/monitor-fleet.md ("Misses") gives for checking the one-result-or-one-miss invariant. */
export const storedRuns = (monitorIds: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<StoredRun>`
      select job_id, region, count(*) filter (where kind = 'result')::int as results,
             count(*) filter (where kind = 'miss')::int as misses
      from (select job_id, region, 'result' as kind from check_results where monitor_id = any(${monitorIds}::text[])
            union all
            select job_id, region, 'miss' from missed_checks where monitor_id = any(${monitorIds}::text[])) as runs
      group by job_id, region order by job_id, region`)

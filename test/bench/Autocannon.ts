/**
 * What the benchmarks share to load the public side: autocannon in a child process (so the load
 * generator does not share the servers' event loop), a GET of the bytes as they travel, and the
 * history of resolved incidents the public reads are measured over.
 */
import { execFile } from "node:child_process"
import { get, type IncomingHttpHeaders } from "node:http"

import type { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"

import { sqlStatements } from "../../src/persistence/Migrations.js"

export interface RawResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/** A GET as autocannon sends it, on a connection of its own, with the body as it travelled (not unpacked). */
export const rawGet = (url: string, headers: Record<string, string> = {}) =>
  new Promise<RawResponse>((resolve, reject) => {
    get(url, { headers, agent: false }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on(
        "end",
        () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) })
      )
      response.on("error", reject)
    }).on("error", reject)
  })

export interface AutocannonResult {
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  readonly p999: number
  readonly max: number
  readonly non2xx: number
  /** Requests answered in the whole load. */
  readonly total: number
}

export interface AutocannonOptions {
  readonly connections: number
  readonly seconds: number
  /** Requests per second in all; none: as many as it can. */
  readonly rate?: number
  readonly headers?: ReadonlyArray<string>
  /** CPUs to run autocannon on (`taskset -c`, e.g. "1"); none: wherever the kernel puts it. */
  readonly cpus?: string
}

export const autocannon = (url: string, options: AutocannonOptions) =>
  Effect.callback<AutocannonResult, Error>((resume) => {
    const args = ["--json", "-c", String(options.connections), "-d", String(options.seconds)]
    if (options.rate !== undefined && options.rate > 0) args.push("-R", String(options.rate))
    for (const header of options.headers ?? []) args.push("-H", header)
    const [command, prefix] = options.cpus === undefined
      ? ["node_modules/.bin/autocannon", []]
      : ["taskset", ["-c", options.cpus, "node_modules/.bin/autocannon"]]
    execFile(command, [...prefix, ...args, url], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      if (error) return resume(Effect.fail(error))
      const report = JSON.parse(stdout)
      resume(Effect.succeed({
        requestsPerSecond: report.requests.average,
        p50: report.latency.p50,
        p99: report.latency.p99,
        p999: report.latency.p99_9,
        max: report.latency.max,
        non2xx: report.non2xx,
        total: report.requests.total
      }))
    })
  })

/**
 * SQL adding 500 resolved incidents, one a day back from yesterday, each naming one of the first
 * 20 components and with 4 timeline entries (2,000 updates).
 */
export const incidentHistorySql = `
  insert into incidents (id, title, status, severity, created_at, updated_at, resolved_at, chosen_public)
  select 'history-' || g, 'Historic incident ' || g || ': elevated error rates on the API', 'resolved', 'minor',
    now() - g * interval '1 day', now() - g * interval '1 day' + interval '3 hours', now() - g * interval '1 day' + interval '3 hours',
    true
  from generate_series(1, 500) g;
  insert into incident_components (incident_id, component_id)
  select 'history-' || g, (select id from components order by display_order, name offset (g % 20) limit 1)
  from generate_series(1, 500) g;
  insert into incident_updates (incident_id, status, message, created_at)
  select 'history-' || g, (array['investigating', 'identified', 'monitoring', 'resolved'])[k],
    'Update ' || k || ': we are looking into elevated error rates and slow responses; the next update follows within the hour.',
    now() - g * interval '1 day' + k * interval '45 minutes'
  from generate_series(1, 500) g, generate_series(1, 4) k`

/** Adds the history (`incidentHistorySql`) through `sql`, in one transaction. */
export const seedHistory = (sql: PgClient.PgClient) =>
  sql.withTransaction(
    Effect.forEach(sqlStatements(incidentHistorySql), (statement) => sql.unsafe(statement).unprepared, {
      discard: true
    })
  )

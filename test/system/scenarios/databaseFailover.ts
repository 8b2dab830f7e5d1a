/**
 * PostgreSQL failover under the events workload. A bed of its own: a primary and a standby
 * (`initdb`, then `pg_basebackup -R`) on loopback ports, the standby streaming through a link
 * that holds each byte `linkDelayMs` each way (a standby in another zone or region); two API
 * instances, the scheduler (with ingest and the in-process probe, one monitor) and the
 * dispatcher, every one with `DATABASE_URL=postgres://…@primary,standby/status?target_session_attrs=read-write`;
 * the webhook receivers and an SMTP server. While the operators make their changes, the primary
 * is SIGKILLed with its link (what was on the way to the standby is lost with it), and the
 * standby promoted `promoteAfterMs` later, as a failover manager would.
 *
 * Run twice: with synchronous replication (`synchronous_standby_names = '*'`), judged from the
 * client's record (eventsOracle.ts) — no acknowledged change lost, its events delivered and its
 * outbox row present; public reads 200 throughout; writes 503 during the switch and back within
 * 30 s; the dispatcher and the scheduler going on by themselves — and with asynchronous
 * replication, where the acknowledged changes lost are measured, not judged.
 */
import { Effect, Exit, Scope } from "effect"
import pg from "pg"

import { listeningUrl, runCommand, waitFor200 } from "../../support/ChildProcess.js"
import { type Cluster, delayedLink, makeClusters, walLostInFailover } from "../../support/PostgresCluster.js"
import { smtpCapture } from "../../support/SmtpCapture.js"
import { operator, publicGet } from "../Client.js"
import { type ManagedProcess, managedProcess, sleep, until } from "../Processes.js"
import type { Random } from "../Random.js"
import { startTargets, startWebhookSink } from "../Sinks.js"
import type { Api } from "../TestBed.js"
import { type EventsBed, type EventsReport, runEventsWorkload } from "./events.js"

const operations = 400
const workloadMs = 30_000
/** The primary dies this far into the workload (a random moment between the two). */
const killWindowMs = [8_000, 12_000] as const
/** How long a failover manager takes to notice and promote the standby. */
const promoteAfterMs = 2_000
/** One way; the default, 50 ms, is a standby about 100 ms away. */
const linkDelayMs = Number(process.env.SYSTEM_FAILOVER_LINK_DELAY_MS ?? 50)
const writesBackLimitMs = 30_000
const readers = 4
const publicPaths = ["/api/v1/status", "/api/v1/status/components", "/api/v1/status/incidents", "/"]
const monitorIntervalSeconds = 10

export type Replication = "synchronous" | "asynchronous"

export interface FailoverPhaseReport {
  readonly replication: Replication
  readonly linkDelayMs: number
  /** The standby as the primary saw it a moment before the kill. */
  readonly standbyBeforeKill: { readonly syncState: string; readonly flushLagMs: number | null }
  readonly events: EventsReport
  /** The acknowledged writes answered before the kill (the events report's figures include those after, on a primary without a standby). */
  readonly writeLatencyBeforeKillMs: { readonly p50: number; readonly p99: number }
  /**
   * The transactions the dead primary committed after the point where the promoted standby's
   * history begins, read from its WAL: lost with it, acknowledged to their clients or not (with
   * synchronous replication, only those still waiting for the standby).
   */
  readonly walLost: { readonly commits: number; readonly bytes: number } | null
  readonly killedAfterMs: number
  readonly promotedAfterMs: number
  readonly writes: {
    /** Writes answered from the kill until both instances took writes again. */
    readonly duringSwitch: number
    readonly answered503: number
    /** Answers during the switch other than 503 with an error body or 2xx (a 500, no answer). */
    readonly other: ReadonlyArray<string>
    /** Writes that failed after the switch, each (statuses): changes that met one lost with the old primary. */
    readonly failedAfter: ReadonlyArray<string>
    /** From the kill until both instances took a write again; null if not within 30 s. */
    readonly backAfterMs: number | null
    readonly backAfterPromotionMs: number | null
  }
  readonly publicReads: { readonly total: number; readonly failed: number; readonly failures: ReadonlyArray<string> }
  /** Webhook deliveries received after writes came back. */
  readonly deliveredAfterSwitch: number
  /** `maintenance.started` and `maintenance.completed` of the clock's windows received after writes came back. */
  readonly clockEventsAfterSwitch: number
  /** From the promotion until the first check made after it that was stored; null if none within 30 s. */
  readonly checksStoredAfterPromotionMs: number | null
}

export interface DatabaseFailoverReport {
  readonly synchronous: FailoverPhaseReport
  readonly asynchronous: FailoverPhaseReport
}

const isErrorBody = (body: unknown) =>
  typeof body === "object" && body !== null && typeof (body as { _tag?: unknown })._tag === "string" &&
  typeof (body as { message?: unknown }).message === "string"

/** One query on `cluster`'s `status` database, on a connection of its own. */
const queryOn = async <R extends pg.QueryResultRow>(
  cluster: Cluster,
  text: string,
  values?: ReadonlyArray<unknown>
) => {
  const client = new pg.Client({ connectionString: cluster.url("status") })
  // A server that dies under it is an error event, not a crash.
  client.on("error", () => undefined)
  await client.connect()
  try {
    return await client.query<R>(text, values as Array<unknown>)
  } finally {
    await client.end().catch(() => undefined)
  }
}

interface FailoverBed extends EventsBed {
  readonly primary: Cluster
  readonly standby: Cluster
  readonly cutLink: () => void
  readonly scheduler: ManagedProcess
  readonly close: () => Promise<void>
}

const startBed = async (replication: Replication, log: (line: string) => void): Promise<FailoverBed> => {
  const scope = Effect.runSync(Scope.make())
  const closers: Array<() => Promise<void>> = [() => Effect.runPromise(Scope.close(scope, Exit.void))]
  const processes: Array<ManagedProcess> = []
  const close = async () => {
    await Promise.all(processes.map((process) => process.stop(5_000)))
    for (const closer of closers.reverse()) await closer().catch(() => undefined)
  }
  try {
    const clusters = await makeClusters()
    closers.push(clusters.remove)
    const primary = await clusters.primary("primary")
    const admin = new pg.Client({ connectionString: primary.url() })
    await admin.connect()
    await admin.query("create database status")
    await admin.end()
    const link = await delayedLink(primary.port, linkDelayMs)
    closers.push(link.close)
    const standby = await clusters.standby("standby", primary, { via: link.port })
    // Set once the standby is cloned, which does not inherit it: once promoted, it waits for no one.
    if (replication === "synchronous") {
      await queryOn(primary, "alter system set synchronous_standby_names = '*'")
      await queryOn(primary, "select pg_reload_conf()")
    }
    await until(
      "the standby streaming",
      async () => {
        const { rows } = await queryOn<{ state: string; sync_state: string }>(
          primary,
          "select state, sync_state from pg_stat_replication"
        )
        return rows.some((row) =>
          row.state === "streaming" && (replication === "asynchronous" || row.sync_state === "sync")
        )
      },
      30_000,
      200
    )
    log(`  ${replication}: primary on ${primary.port}, standby on ${standby.port} (${linkDelayMs} ms each way)`)

    const webhooks = await startWebhookSink()
    closers.push(webhooks.close)
    const targets = await startTargets(0)
    closers.push(targets.close)
    const smtp = await Effect.runPromise(Scope.provide(smtpCapture, scope))

    const databaseUrl = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/status` +
      "?target_session_attrs=read-write"
    const service = (name: string, roles: string, extra: Record<string, string> = {}) => {
      const process = managedProcess(`failover-${replication}-${name}`, "src/main.ts", {
        DATABASE_URL: databaseUrl,
        PUBLIC_URL: "https://status.system.test",
        SMTP_URL: smtp.url,
        HOST: "127.0.0.1",
        ROLES: roles,
        ...extra
      })
      processes.push(process)
      return process
    }
    const apiProcesses = [service("api-1", "api", { PORT: "0" }), service("api-2", "api", { PORT: "0" })] as const
    // The first instance migrates the database; the rest start on a ready schema.
    apiProcesses[0].start()
    const firstUrl = await listeningUrl(apiProcesses[0], 120_000)
    await waitFor200(`${firstUrl}/readyz`, 120_000)
    const key = await runCommand("src/cli/main.ts", ["api-key", "create", "--name", "failover"], {
      DATABASE_URL: databaseUrl
    })
    if (key.code !== 0) throw new Error(`creating the API key failed: ${key.stderr}`)
    const apiKey = key.stdout.trim()
    // Without Redis, the scheduler's jobs go to ingest and a probe in its own process.
    const scheduler = service("scheduler", "scheduler,ingest")
    const dispatcher = service("dispatcher", "dispatcher")
    for (const process of processes) if (!process.alive()) process.start()
    const secondUrl = await listeningUrl(apiProcesses[1], 120_000)
    await Promise.all([
      waitFor200(`${secondUrl}/readyz`, 120_000),
      scheduler.waitForOutput("Scheduler active", 120_000),
      dispatcher.waitForOutput("Dispatcher started", 120_000)
    ])
    const apis = [[apiProcesses[0], firstUrl], [apiProcesses[1], secondUrl]].map(([process, baseUrl]) => ({
      process: process as ManagedProcess,
      baseUrl: baseUrl as string,
      operator: operator(baseUrl as string, apiKey)
    })) as unknown as readonly [Api, Api]

    // One monitor, so that the scheduler has checks to publish and ingest results to store.
    const component = await apis[0].operator.ok<{ id: string }>("POST", "/api/v1/admin/components", {
      name: "Failover monitor"
    })
    await apis[0].operator.ok("POST", "/api/v1/admin/monitors", {
      componentId: component.id,
      type: "http",
      url: targets.url(1),
      intervalSeconds: monitorIntervalSeconds
    })

    // The outbox check reads the primary of the moment.
    let current = primary
    const sql = {
      query: ((text: string, values?: ReadonlyArray<unknown>) => queryOn(current, text, values)) as pg.Client["query"]
    }
    return {
      apis,
      webhooks,
      smtp,
      dispatcher,
      scheduler,
      sql,
      primary,
      standby,
      cutLink: () => {
        link.cut()
        current = standby
      },
      close
    }
  } catch (error) {
    await close()
    throw error
  }
}

const percentiles = (values: Array<number>) => {
  values.sort((a, b) => a - b)
  return {
    p50: values[Math.floor(values.length / 2)] ?? 0,
    p99: values[Math.floor(values.length * 0.99)] ?? 0
  }
}

interface WriteAnswer {
  readonly answeredAt: number
  /** Taken (2xx), or refused as a client may retry: 503 with an error body. */
  readonly fine: boolean
  readonly refused: boolean
  readonly detail: string
}

const runPhase = async (
  replication: Replication,
  random: Random,
  log: (line: string) => void
): Promise<FailoverPhaseReport> => {
  const bed = await startBed(replication, log)
  try {
    // Public readers on both instances, for the whole run.
    let reading = true
    const reads = { total: 0, failed: 0, failures: [] as Array<string> }
    const reader = async (n: number) => {
      for (let i = n; reading; i++) {
        const path = publicPaths[i % publicPaths.length]!
        reads.total++
        const answer = await publicGet(bed.apis[i % 2]!.baseUrl, path).catch((error: unknown) => String(error))
        if (typeof answer === "string" || answer.status !== 200) {
          reads.failed++
          if (reads.failures.length < 20) {
            reads.failures.push(`${path} ${typeof answer === "string" ? answer : answer.status}`)
          }
        }
        await sleep(20)
      }
    }
    const readersDone = Promise.all(Array.from({ length: readers }, (_, n) => reader(n)))

    // Writes of the prober's own (a component's description), from the kill until both instances take them.
    const prober = await bed.apis[0].operator.ok<{ id: string }>("POST", "/api/v1/admin/components", {
      name: "Failover prober"
    })
    const probeWrites = async (promoted: () => number | undefined, killedAt: number) => {
      const answers: Array<WriteAnswer> = []
      const back = new Map<number, number>()
      while (back.size < 2 && Date.now() - killedAt < writesBackLimitMs) {
        await Promise.all(bed.apis.map(async (api, i) => {
          if (back.has(i)) return
          const answer = await api.operator.request("PUT", `/api/v1/admin/components/${prober.id}`, {
            description: `probe ${Date.now()}`
          }).catch((error: unknown) => ({ status: undefined, body: String(error) }))
          const answeredAt = Date.now()
          const taken = answer.status !== undefined && answer.status < 300
          answers.push({
            answeredAt,
            fine: taken || (answer.status === 503 && isErrorBody(answer.body)),
            refused: answer.status === 503,
            detail: `api-${i + 1} PUT: ${answer.status ?? "no answer"} ${JSON.stringify(answer.body).slice(0, 200)}`
          })
          if (taken && promoted() !== undefined) back.set(i, answeredAt)
        }))
        await sleep(100)
      }
      return { answers, backAt: back.size === 2 ? Math.max(...back.values()) : undefined }
    }

    let killedAt = 0
    let promotedAt: number | undefined
    let backAt: number | undefined
    let standbyBeforeKill: FailoverPhaseReport["standbyBeforeKill"] = { syncState: "none", flushLagMs: null }
    let probed: Array<WriteAnswer> = []
    let walLost: FailoverPhaseReport["walLost"] = null
    const startedAt = Date.now()
    const { operations: done, report: events } = await runEventsWorkload(bed, random, log, {
      operations,
      workloadMs,
      fault: async () => {
        await sleep(random.between(...killWindowMs))
        const { rows } = await queryOn<{ syncState: string; flushLagMs: number | null }>(
          bed.primary,
          `select sync_state as "syncState", (extract(epoch from flush_lag) * 1000)::float8 as "flushLagMs"
             from pg_stat_replication`
        ).catch(() => ({ rows: [] }))
        standbyBeforeKill = rows[0] ?? standbyBeforeKill
        killedAt = Date.now()
        await bed.primary.kill()
        bed.cutLink()
        log(`  ${replication}: primary SIGKILLed ${killedAt - startedAt} ms into the workload`)
        const probing = probeWrites(() => promotedAt, killedAt)
        await sleep(promoteAfterMs)
        await bed.standby.promote()
        promotedAt = Date.now()
        log(`  ${replication}: standby promoted ${promotedAt - killedAt} ms after the kill`)
        walLost = await walLostInFailover(bed.primary, bed.standby).catch((error: unknown) => {
          log(`  reading the dead primary's WAL failed: ${String(error)}`)
          return null
        })
        const probe = await probing
        probed = probe.answers
        backAt = probe.backAt
        log(
          `  ${replication}: writes back ${
            backAt === undefined ? "not within 30 s" : `${backAt - killedAt} ms after the kill`
          }`
        )
        return [{ from: killedAt, to: backAt ?? Date.now() }]
      }
    })
    const switchEnd = backAt ?? killedAt + writesBackLimitMs

    // Every write answered during the switch, the workload's and the prober's.
    const answered: Array<WriteAnswer> = [
      ...probed,
      ...done.map((operation) => ({
        answeredAt: operation.answeredAt,
        fine: operation.acknowledged || operation.answeredStatus === 503,
        refused: operation.answeredStatus === 503,
        detail: `${operation.kind} ${operation.marker}: ${
          operation.acknowledged ? "acknowledged" : operation.answeredStatus ?? "no answer"
        }`
      }))
    ]
    const duringSwitch = answered.filter((write) => write.answeredAt >= killedAt && write.answeredAt <= switchEnd)
    const other = duringSwitch.filter((write) => !write.fine)
    const failedAfter = done.filter((operation) => !operation.acknowledged && operation.answeredAt > switchEnd)

    // The scheduler: the first check made after the promotion, once stored (the workload has ended by now).
    const firstCheckAfter = async () =>
      (await bed.sql.query<{ at: Date | null }>(
        "select min(checked_at) as at from check_results where checked_at > $1",
        [new Date(promotedAt!)]
      )).rows[0]?.at ?? null
    const checksStoredAfterPromotionMs = promotedAt === undefined ? null : await until(
      "a check made after the promotion stored",
      async () => (await firstCheckAfter()) !== null,
      monitorIntervalSeconds * 1000 + 20_000,
      500
    ).then(async () => {
      const at = (await firstCheckAfter())!.getTime() - promotedAt!
      return at <= writesBackLimitMs ? at : null
    }, () => null)

    reading = false
    await readersDone
    const after = (at: number) => backAt !== undefined && at > backAt
    return {
      replication,
      linkDelayMs,
      standbyBeforeKill,
      events,
      writeLatencyBeforeKillMs: percentiles(
        done.filter((operation) => operation.acknowledged && operation.answeredAt < killedAt).map((operation) =>
          operation.answeredAt - operation.sentAt
        )
      ),
      walLost,
      killedAfterMs: killedAt - startedAt,
      promotedAfterMs: promotedAt === undefined ? -1 : promotedAt - killedAt,
      writes: {
        duringSwitch: duringSwitch.length,
        answered503: duringSwitch.filter((write) => write.fine && write.refused).length,
        other: other.slice(0, 10).map((write) => write.detail),
        failedAfter: failedAfter.slice(0, 10).map((operation) =>
          `${operation.kind} ${operation.marker}: ${operation.answeredStatus ?? "no answer"}`
        ),
        backAfterMs: backAt === undefined ? null : backAt - killedAt,
        backAfterPromotionMs: backAt === undefined || promotedAt === undefined ? null : backAt - promotedAt
      },
      publicReads: reads,
      deliveredAfterSwitch: bed.webhooks.receipts.filter((receipt) => after(receipt.receivedAt)).length,
      clockEventsAfterSwitch: bed.webhooks.receipts.filter((receipt) =>
        receipt.hook === "all" &&
        (receipt.event === "maintenance.started" || receipt.event === "maintenance.completed") &&
        after(receipt.receivedAt)
      ).length,
      checksStoredAfterPromotionMs
    }
  } finally {
    await bed.close()
  }
}

export const runDatabaseFailoverScenario = async (
  random: Random,
  log: (line: string) => void
): Promise<DatabaseFailoverReport> => ({
  synchronous: await runPhase("synchronous", random, log),
  asynchronous: await runPhase("asynchronous", random, log)
})

type Judge = (scenario: string, property: string, holds: boolean, detail: string) => void

/**
 * The verdicts (main.ts's `check`), for each run; what asynchronous replication loses is a figure
 * (`target`: reported, it does not fail the run).
 */
export const judgeDatabaseFailover = (report: DatabaseFailoverReport, check: Judge, target: Judge) => {
  for (const phase of [report.synchronous, report.asynchronous]) {
    const { events, writes } = phase
    const name = `${phase.replication} replication`
    const lost =
      `${events.acknowledgedNotCommitted} of ${events.expectedEvents} acknowledged changes' events not in the outbox once; webhooks ${events.webhooks.delivered}/${events.webhooks.expected} delivered, mail ${events.mail.delivered}/${events.mail.expected}; the standby was ${phase.standbyBeforeKill.syncState}, ${
        phase.standbyBeforeKill.flushLagMs ?? "?"
      } ms behind in flushing; the dead primary's WAL held ${phase.walLost?.commits ?? "?"} commits (${
        phase.walLost?.bytes ?? "?"
      } bytes) the standby never had`
    const kept = events.acknowledgedNotCommitted === 0 && events.webhooks.lost === 0 && events.mail.lost === 0
    if (phase.replication === "synchronous") {
      check("databaseFailover", `${name}: no acknowledged change lost`, kept, lost)
      check(
        "databaseFailover",
        `${name}: nothing unexpected, mail twice only across the switch`,
        events.webhooks.unexpected === 0 && events.webhooks.mismatched === 0 &&
          events.webhooks.duplicatesWithDifferentIds === 0 && events.webhooks.badSignatures === 0 &&
          events.mail.unexpected === 0 && events.mail.duplicatedWithoutKill === 0,
        `${events.webhooks.unexpected} unexpected deliveries, ${events.webhooks.mismatched} not as the client sent, ${events.webhooks.duplicated} duplicated (${events.webhooks.duplicatesWithDifferentIds} under another id); mail ${events.mail.unexpected} unexpected, ${events.mail.duplicated} twice (${events.mail.duplicatedWithoutKill} not across the switch)`
      )
    } else {
      target("databaseFailover", `${name}: acknowledged changes lost (a figure)`, kept, lost)
    }
    check(
      "databaseFailover",
      `${name}: public reads 200 throughout`,
      phase.publicReads.total > 0 && phase.publicReads.failed === 0,
      `${phase.publicReads.total - phase.publicReads.failed}/${phase.publicReads.total}${
        phase.publicReads.failures.length > 0 ? `; ${phase.publicReads.failures.join("; ")}` : ""
      }`
    )
    check(
      "databaseFailover",
      `${name}: writes answer 503 during the switch`,
      writes.answered503 > 0 && writes.other.length === 0,
      `${writes.answered503} of the ${writes.duringSwitch} writes answered during the switch were 503 with an error body, the rest taken${
        writes.other.length > 0 ? `; otherwise: ${writes.other.join("; ")}` : ""
      }`
    )
    check(
      "databaseFailover",
      `${name}: writes back within 30 s`,
      writes.backAfterMs !== null && writes.backAfterMs <= writesBackLimitMs &&
        (phase.replication === "asynchronous" || writes.failedAfter.length === 0),
      `on both instances ${writes.backAfterMs} ms after the kill, ${writes.backAfterPromotionMs} ms after the promotion (${phase.promotedAfterMs} ms after the kill); ${
        writes.failedAfter.length === 0 ? "none failed after" : `failed after: ${writes.failedAfter.join("; ")}`
      }; ${events.acknowledgedOperations} changes acknowledged, ${events.indeterminateOperations} not; write p50 ${phase.writeLatencyBeforeKillMs.p50} ms, p99 ${phase.writeLatencyBeforeKillMs.p99} ms before the kill`
    )
    check(
      "databaseFailover",
      `${name}: dispatcher and scheduler go on by themselves`,
      phase.deliveredAfterSwitch > 0 && phase.clockEventsAfterSwitch > 0 &&
        phase.checksStoredAfterPromotionMs !== null,
      `${phase.deliveredAfterSwitch} webhook deliveries after writes came back, ${phase.clockEventsAfterSwitch} of them the maintenance clock's; the first check after the promotion made ${phase.checksStoredAfterPromotionMs} ms after it, and stored`
    )
  }
}

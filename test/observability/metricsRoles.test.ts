/**
 * The metrics of one process running every role: the API on the test's server (port 0, so no
 * race for a port) with the api role's gauges beside it, and the scheduler, ingest and
 * dispatcher roles composed as src/main.ts composes them (`Roles`, ROLES naming those three),
 * with the in-process job transport and probe. After a monitor's failing check, a webhook
 * delivery that fails (a closed loopback port), a confirmation mail and a public page, a scrape
 * of /metrics holds every family docs/operations.md's metrics table lists, with the type it
 * gives, and the series those events count: the scheduler's runs and lag, the attempts by
 * outcome and attempt number, the retry backlog, the dispatcher's and the database's gauges.
 */
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"

import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import type { NetAddress } from "effect/net"

import { poolSize } from "../../src/persistence/Database.js"
import { SnapshotGauges } from "../../src/public/state/SnapshotGauges.js"
import { Roles } from "../../src/Roles.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { checkResult } from "../support/CheckResults.js"
import { freePort } from "../support/ChildProcess.js"
import { eventually, realPause } from "../support/Eventually.js"
import { type Family, family, parseMetrics, valueOf } from "../support/Prometheus.js"
import { type SmtpCapture, smtpCapture } from "../support/SmtpCapture.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

const token = "metrics-token-for-the-roles"

interface Fixture {
  /** A loopback port bound and closed again: connections to it are refused. */
  readonly closedPort: number
  readonly smtp: SmtpCapture
}
class Env extends Context.Service<Env, Fixture>()("test/Env") {}

const Service = Layer.unwrap(Effect.gen(function*() {
  const smtp = yield* smtpCapture
  const closedPort = yield* Effect.promise(freePort)
  // ResultIngest is for the test: a forged report.
  return Layer.mergeAll(Roles, SnapshotGauges, ResultIngest.layer).pipe(
    Layer.provideMerge(LiveTestServer({
      ROLES: "scheduler,ingest,dispatcher",
      METRICS_TOKEN: token,
      SMTP_URL: smtp.url,
      MAIL_FROM: "status@example.test",
      PUBLIC_URL: "https://status.example.test"
    })),
    Layer.merge(Layer.succeed(Env, { closedPort, smtp }))
  )
}))

const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address as NetAddress.InetAddress
  return `http://127.0.0.1:${address.port}`
})

const scrape = Effect.flatMap(baseUrl, (base) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } })
    if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`)
    return parseMetrics(await response.text())
  }))

/** The rows (`metric`, `type`) of the table under `heading` in docs/operations.md's "Metrics". */
const documented = (heading: string) => {
  const operations = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8")
  const table = operations.slice(operations.indexOf(heading)).split("\n\n")[1]!
  return [...table.matchAll(/^\| `(status_page_\w+)` \| (\w+) \|/gm)].map(([, name, type]) => ({
    name: name!,
    type: type!.toUpperCase()
  }))
}

/** Whether the scrape shows what the test's events cause, so the assertions can follow. */
const caughtUp = (families: ReadonlyArray<Family>) =>
  valueOf(families, "status_page_scheduler_runs_published_total") >= 1 &&
  valueOf(families, "status_page_checks_total", { region: "local", outcome: "failed" }) >= 1 &&
  valueOf(families, "status_page_webhook_attempts_total", { outcome: "failed", attempt: "1" }) >= 1 &&
  // Counted as the attempt ends, and waiting for its retry once its outcome is stored.
  valueOf(families, "status_page_delivery_retry_backlog", { channel: "webhook" }) >= 1 &&
  valueOf(families, "status_page_mail_attempts_total", { outcome: "sent", attempt: "1" }) >= 1 &&
  valueOf(families, "status_page_reports_refused_total") >= 1 &&
  family(families, "status_page_public_snapshot_age_seconds") !== undefined

layer(Service, { excludeTestServices: true, timeout: "60 seconds" })("metrics of every role", (it) => {
  it.effect("a scrape holds every documented family with its type, and the series the events counted", () =>
    Effect.gen(function*() {
      const { closedPort, smtp } = yield* Env
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Measured" } })
      yield* client.webhooks.create({
        payload: { name: "closed port", url: `http://127.0.0.1:${closedPort}/hook`, type: "generic" }
      })
      // Scheduled at once (its latest slot), checked by the in-process probe: refused, so failed and down.
      yield* client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: `http://127.0.0.1:${closedPort}/`,
          intervalSeconds: 10,
          timeoutMs: 2000,
          failureThreshold: 1
        }
      })
      // An event for the webhook, whose first attempt is refused and retried after 5 s.
      yield* client.components.setStatus({ params: { id: component.id }, payload: { status: "degraded" } })
      yield* client.subscriptions.subscribe({ payload: { email: "metrics@example.test" } })
      // The public page builds the public snapshot, whose age the api role reports.
      const base = yield* baseUrl
      const status = yield* Effect.promise(() => fetch(`${base}/api/v1/status`))
      expect(status.status).toBe(200)
      // A report of a run nobody scheduled (no such monitor), as a forged one would be.
      yield* (yield* ResultIngest).ingest([checkResult(randomUUID(), "local", Date.now(), false)])

      const families = yield* eventually(Effect.tap(scrape, realPause(200)), caughtUp, 30_000)
      expect(caughtUp(families)).toBe(true)

      // Every family of docs/operations.md's table (and of the in-process probe's but jobs
      // refused, which metricsProbe.test.ts causes), with its documented type.
      const service = documented("**The metrics.**")
      const probe = documented("**A probe's metrics.**")
      expect(service.length).toBeGreaterThanOrEqual(19)
      expect(probe.map(({ name }) => name)).toContain("status_page_probe_jobs_refused_total")
      const expected = [...service, ...probe.filter(({ name }) => name !== "status_page_probe_jobs_refused_total")]
      const types = new Map(families.map((f) => [f.name, f.type]))
      expect(Object.fromEntries(expected.map(({ name }) => [name, types.get(name)]))).toEqual(
        Object.fromEntries(expected.map(({ name, type }) => [name, type]))
      )

      // The scheduler's lag: a histogram without labels, with its buckets, count and sum.
      const [lag] = family(families, "status_page_scheduler_lag_seconds")!.metrics
      expect(Number(lag!.count)).toBeGreaterThanOrEqual(1)
      expect(Number(lag!.buckets!["+Inf"])).toBe(Number(lag!.count))
      expect(Number(lag!.sum)).toBeGreaterThanOrEqual(0)
      // The dispatcher's: the failed delivery waits for its retry (caughtUp), the mail went out.
      expect(family(families, "status_page_delivery_retry_backlog")!.metrics.map((m) => m.labels?.channel).sort())
        .toEqual(["mail", "webhook"])
      expect(valueOf(families, "status_page_webhook_attempts_total", { outcome: "delivered" })).toBe(0)
      expect(smtp.messages.some((mail) => mail.envelopeTo.includes("metrics@example.test"))).toBe(true)
      expect(valueOf(families, "status_page_outbox_backlog")).toBeGreaterThanOrEqual(0)
      expect(valueOf(families, "status_page_outbox_oldest_seconds")).toBeGreaterThanOrEqual(0)
      // The database's: this pool's size, and the connections by state (the scrape's own query is active).
      expect(valueOf(families, "status_page_db_pool_max")).toBe(poolSize)
      expect(valueOf(families, "status_page_db_connections", { state: "active" })).toBeGreaterThanOrEqual(1)
      // The api role's snapshot gauges.
      expect(valueOf(families, "status_page_public_snapshot_age_seconds")).toBeGreaterThanOrEqual(0)
      expect([0, 1]).toContain(valueOf(families, "status_page_public_snapshot_behind"))
      // The monitor's check went down, and the transport's gauges name the local region.
      expect(valueOf(families, "status_page_monitor_transitions_total", { to: "down" })).toBeGreaterThanOrEqual(1)
      expect(valueOf(families, "status_page_probe_checks_total", { type: "http", outcome: "failed" }))
        .toBeGreaterThanOrEqual(1)
      expect(family(families, "status_page_stream_length")!.metrics.some((m) => m.labels?.region === "local"))
        .toBe(true)
    }))
})

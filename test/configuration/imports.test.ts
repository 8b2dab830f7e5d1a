/**
 * `status-page import` end to end, as child processes against a real service on a fresh
 * database: the Uptime Kuma database made by Kuma 2.5.3 (test/fixtures/uptime-kuma) and an
 * Atlassian Statuspage export (test/fixtures/statuspage). A dry run writes nothing; an import
 * makes what the plan said, in one transaction; importing again makes nothing twice; the push
 * URL of an imported Kuma monitor keeps working with its old token.
 */
import { Effect, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

import { runCommand } from "../support/ChildProcess.js"
import { ApiClient, LiveTestServer, SuiteApiKey } from "../support/TestServer.js"

const runtime = ManagedRuntime.make(LiveTestServer())
let env: Record<string, string>

const api = <A, E>(use: (client: Effect.Success<typeof ApiClient>) => Effect.Effect<A, E>) =>
  runtime.runPromise(Effect.flatMap(ApiClient, use))
const cli = (args: ReadonlyArray<string>) => runCommand("src/cli/main.ts", args, env, { directNode: true })

const kumaDatabase = "test/fixtures/uptime-kuma/kuma.db"
const statuspageExport = "test/fixtures/statuspage"

beforeAll(async () => {
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag === "UnixPathAddress") throw new Error("the test server is not on TCP")
  env = {
    STATUS_PAGE_URL: `http://127.0.0.1:${address.port}`,
    STATUS_PAGE_API_KEY: await runtime.runPromise(SuiteApiKey)
  }
})

afterAll(() => runtime.dispose())

/** The counts of a plan's summary line. */
const summary = (stdout: string) => {
  const match = /Applied: (\d+) created, (\d+) updated, (\d+) deleted, (\d+) unchanged\./.exec(stdout)
  expect(match, stdout).not.toBeNull()
  const [, created, updated, deleted, unchanged] = match!.map(Number)
  return { created, updated, deleted, unchanged }
}

describe("import uptime-kuma", () => {
  it("plans without writing, imports in one go, and importing again makes nothing twice", async () => {
    const dry = await cli(["import", "uptime-kuma", kumaDatabase, "--dry-run"])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain("+ monitor uptime-kuma/monitor/8")
    expect(dry.stdout).toMatch(/Plan: \d+ to create/)
    // What Kuma has and this service has not is said, with why.
    expect(dry.stderr).toMatch(/skipped .+: .+/)
    expect(await api((client) => client.components.list({ query: {} }))).toEqual([])

    const imported = await cli(["import", "uptime-kuma", kumaDatabase])
    expect(imported.code, imported.stderr).toBe(0)
    const first = summary(imported.stdout)
    expect(first.created).toBeGreaterThanOrEqual(11 + 11 + 3 + 2 + 1)

    const components = await api((client) => client.components.list({ query: {} }))
    expect(components.map((c) => c.name)).toEqual(
      expect.arrayContaining(["Acme website", "SMTP relay", "Nightly backup"])
    )
    const monitors = await api((client) => client.monitors.list({ query: {} }))
    expect(monitors.map((m) => m.type).sort()).toEqual(
      ["dns", "grpc", "http", "http", "http", "icmp", "mqtt", "postgres", "push", "redis", "tcp"]
    )
    expect(monitors.filter((m) => m.paused)).toHaveLength(6)
    const pages = await api((client) => client.statusPages.list({ query: {} }))
    expect(pages.map((p) => p.slug).sort()).toEqual(["acme", "default", "internal"])
    const incidents = await api((client) => client.incidents.list({ query: {} }))
    expect(incidents.map((i) => i.title)).toEqual(["Checkout latency elevated"])

    // Cron lines keep working: the push URL's token is Kuma's.
    const push = await fetch(`${env.STATUS_PAGE_URL}/api/v1/push/fixturePushTok1?status=up&msg=OK&ping=12`)
    expect(push.status).toBe(200)
    const pushMonitor = monitors.find((m) => m.type === "push")!
    const runs = await api((client) => client.monitors.results({ params: { id: pushMonitor.id }, query: {} }))
    expect(runs.some((run) => run.outcome === "checked" && run.ok)).toBe(true)

    const again = await cli(["import", "uptime-kuma", kumaDatabase])
    expect(again.code, again.stderr).toBe(0)
    expect(summary(again.stdout)).toEqual({
      created: 0,
      updated: 0,
      deleted: 0,
      unchanged: first.created + first.updated
    })
    expect(await api((client) => client.components.list({ query: {} }))).toHaveLength(components.length)
  })

  it("refuses what is not a Kuma database, naming it, before sending anything", async () => {
    const missing = await cli(["import", "uptime-kuma", "test/fixtures/uptime-kuma/no-such.db"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("no-such.db")
    const notKuma = await cli(["import", "uptime-kuma", "test/fixtures/uptime-kuma/README.md"])
    expect(notKuma.code).toBe(2)
  })
})

describe("import statuspage", () => {
  it("imports components with their statuses, incidents with their history, and subscribers only when asked", async () => {
    const imported = await cli(["import", "statuspage", statuspageExport])
    expect(imported.code, imported.stderr).toBe(0)
    expect(summary(imported.stdout).created).toBeGreaterThan(0)
    const subscribersBefore = await api((client) => client.subscribers.list({ query: {} }))
    expect(subscribersBefore).toEqual([])

    const incidents = await api((client) => client.incidents.list({ query: { limit: 100 } }))
    const imported_ = incidents.filter((i) => i.title !== "Checkout latency elevated")
    expect(imported_).toHaveLength(4)
    // History: every update, at its own time, oldest first; resolved ones resolved.
    const resolved = imported_.filter((i) => i.status === "resolved")
    expect(resolved).toHaveLength(3)
    for (const incident of imported_) {
      const times = incident.updates.map((u) => u.createdAt.epochMilliseconds)
      expect(incident.updates.length).toBeGreaterThanOrEqual(2)
      expect(times.every((t) => t < Date.now() - 60_000)).toBe(true)
    }
    const components = await api((client) => client.components.list({ query: {} }))
    expect(components.map((c) => c.status)).toEqual(
      expect.arrayContaining(["degraded", "partial_outage", "major_outage"])
    )

    const withSubscribers = await cli(["import", "statuspage", statuspageExport, "--import-subscribers"])
    expect(withSubscribers.code, withSubscribers.stderr).toBe(0)
    const subscribers = await api((client) => client.subscribers.list({ query: {} }))
    expect(subscribers.length).toBeGreaterThan(0)
    expect(subscribers.every((s) => s.verified)).toBe(true)

    const again = await cli(["import", "statuspage", statuspageExport, "--import-subscribers"])
    expect(again.code, again.stderr).toBe(0)
    const counts = summary(again.stdout)
    expect([counts.created, counts.updated, counts.deleted]).toEqual([0, 0, 0])
    expect(await api((client) => client.incidents.list({ query: { limit: 100 } }))).toHaveLength(incidents.length)
  })
})

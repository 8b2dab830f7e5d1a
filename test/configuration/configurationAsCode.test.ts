/**
 * Configuration as code end to end: `status-page export` and `apply -f` as child processes
 * against two real services on fresh databases. A setup made through the API is exported with
 * its secrets as references, applied to an empty instance (with the variables set) and exported
 * there again to the same file; applying it again changes nothing; `--prune` deletes what the
 * file no longer names; a refused entry changes nothing; a dry run changes nothing.
 */
import { mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { Effect, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import YAML from "yaml"

import { runCommand } from "../support/ChildProcess.js"
import { ApiClient, LiveTestServer, sendJson, SuiteApiKey } from "../support/TestServer.js"

interface Instance {
  readonly env: Record<string, string>
  readonly api: <A, E>(use: (client: Effect.Success<typeof ApiClient>) => Effect.Effect<A, E>) => Promise<A>
  readonly send: (
    method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH",
    path: string,
    body?: unknown
  ) => Promise<{ status: number; body: unknown }>
  readonly dispose: () => Promise<void>
}

const start = async (): Promise<Instance> => {
  const runtime = ManagedRuntime.make(LiveTestServer())
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag === "UnixPathAddress") throw new Error("the test server is not on TCP")
  const apiKey = await runtime.runPromise(SuiteApiKey)
  return {
    env: { STATUS_PAGE_URL: `http://127.0.0.1:${address.port}`, STATUS_PAGE_API_KEY: apiKey },
    api: (use) => runtime.runPromise(Effect.flatMap(ApiClient, use)),
    send: (method, path, body) =>
      runtime.runPromise(
        Effect.map(sendJson(method, path, body), (answer) => ({ status: answer.status, body: answer.body }))
      ),
    dispose: () => runtime.dispose()
  }
}

const cli = (instance: Instance, args: ReadonlyArray<string>, extraEnv: Record<string, string> = {}) =>
  runCommand("src/cli/main.ts", args, { ...instance.env, ...extraEnv }, { directNode: true })

let source: Instance
let target: Instance
let dir: string

/** The values of the secrets the source was given, by the variable export names them with. */
const secrets = {
  MONITOR_DB_PASSWORD: "s3cret-db",
  MONITOR_API_HEADER_AUTHORIZATION: "Bearer api-token",
  MONITOR_NIGHTLY_BACKUP_PUSH_TOKEN: "nightlyBackupToken1",
  PAGE_PARTNERS_PASSWORD: "partners-only-1",
  WEBHOOK_PAGER_INTEGRATION_KEY: "0123456789abcdef0123456789abcdef"
}

const startedAt = Date.now()
/** A time `days` from the suite's start: the same in every file the suite writes. */
const soon = (days: number) => new Date(startedAt + days * 86_400_000).toISOString().replace(/\.\d+Z$/, "Z")

/** A file applied to the source to make its setup, with the keys the test refers to. */
const setupFile = () => ({
  version: 1,
  organization: { name: "Acme", timezone: "Europe/Paris" },
  groups: [{ key: "storefront", name: "Storefront", displayOrder: 1 }],
  components: [
    { key: "api", name: "API", displayOrder: 1, group: "storefront" },
    { key: "website", name: "Website", description: "www", displayOrder: 2, group: "storefront" },
    { key: "db", name: "Database", displayOrder: 3, isPublic: false }
  ],
  templates: [{
    key: "outage",
    name: "Outage",
    title: "Outage",
    message: "Looking into it",
    severity: "major",
    components: ["api"]
  }],
  monitors: [
    {
      key: "api",
      component: "api",
      type: "http",
      url: "http://127.0.0.1:9/health",
      intervalSeconds: 30,
      headers: { Authorization: "${MONITOR_API_HEADER_AUTHORIZATION}" },
      assertions: [{ path: "$.status", op: "==", value: "ok" }],
      incidentPolicy: "draft",
      incidentTemplate: "outage"
    },
    {
      key: "db",
      component: "db",
      type: "postgres",
      url: "postgres://monitor@127.0.0.1:5432/postgres",
      password: "${MONITOR_DB_PASSWORD}",
      paused: true
    },
    {
      key: "nightly-backup",
      component: "website",
      type: "push",
      intervalSeconds: 86400,
      pushToken: "${MONITOR_NIGHTLY_BACKUP_PUSH_TOKEN}"
    }
  ],
  pages: [
    { slug: "status", title: "Acme status", isDefault: true, items: [{ type: "group", key: "storefront" }] },
    {
      slug: "partners",
      audience: "protected",
      password: "${PAGE_PARTNERS_PASSWORD}",
      items: [{ type: "component", key: "db" }]
    }
  ],
  webhooks: [
    { key: "chat", name: "Chat", url: "https://hooks.example.com/chat", type: "chat_a", components: ["api"] },
    {
      key: "pager",
      name: "Pager",
      url: "https://events.pagerduty.com/v2/enqueue",
      type: "pagerduty",
      integrationKey: "${WEBHOOK_PAGER_INTEGRATION_KEY}"
    }
  ],
  maintenance: [
    { key: "upgrade", title: "Database upgrade", scheduledStart: soon(3), scheduledEnd: soon(3.1), components: ["db"] },
    {
      key: "weekly",
      title: "Weekly window",
      scheduledStart: soon(2),
      scheduledEnd: soon(2.05),
      recurrence: { frequency: "weekly", interval: 1, count: 4 }
    }
  ]
})

beforeAll(async () => {
  ;[source, target] = await Promise.all([start(), start()])
  dir = await mkdtemp(join(tmpdir(), "configuration-as-code-"))
})

afterAll(async () => {
  await Promise.all([source?.dispose(), target?.dispose()])
})

const write = async (name: string, content: unknown) => {
  const path = join(dir, name)
  await writeFile(path, typeof content === "string" ? content : YAML.stringify(content))
  return path
}

describe("configuration as code", () => {
  it("applies a file, shows its plan, and a second apply changes nothing", async () => {
    const file = await write("setup.yaml", setupFile())
    const dry = await cli(source, ["apply", "-f", file, "--dry-run"], secrets)
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain("+ monitor api")
    expect(dry.stdout).toContain("Plan: 14 to create, 1 to update, 0 to delete, 0 unchanged.")
    expect(await source.api((client) => client.components.list({ query: {} }))).toEqual([])

    const applied = await cli(source, ["apply", "-f", file], secrets)
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.stdout).toContain("Applied: 14 created, 1 updated, 0 deleted, 0 unchanged.")
    // The generic webhook's secret and a new push token are shown once; here the token was given.
    expect(applied.stdout).not.toContain("push token, shown once")

    const again = await cli(source, ["apply", "-f", file], secrets)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain("Applied: 0 created, 0 updated, 0 deleted, 15 unchanged.")

    const push = await fetch(`${source.env.STATUS_PAGE_URL}/api/v1/push/${secrets.MONITOR_NIGHTLY_BACKUP_PUSH_TOKEN}`)
    expect(push.status).toBe(200)
  })

  it("exports secrets as references; apply into an empty instance and export again gives the same file", async () => {
    const exported = await cli(source, ["export"])
    expect(exported.code, exported.stderr).toBe(0)
    for (const value of Object.values(secrets)) expect(exported.stdout).not.toContain(value)
    for (const name of Object.keys(secrets)) expect(exported.stdout).toContain("${" + name + "}")
    const document = YAML.parse(exported.stdout) as ReturnType<typeof setupFile>
    expect(document.components.map((c) => c.key)).toEqual(["api", "website", "db"])
    expect(document.pages.map((p) => p.slug)).toEqual(["default", "partners", "status"])
    expect(document.monitors.find((m) => m.key === "db")).toMatchObject({
      paused: true,
      password: "${MONITOR_DB_PASSWORD}"
    })
    expect(document.maintenance.map((m) => m.key)).toEqual(["weekly", "upgrade"])

    const file = await write("exported.yaml", exported.stdout)
    const applied = await cli(target, ["apply", "-f", file], secrets)
    expect(applied.code, applied.stderr).toBe(0)
    const roundTrip = await cli(target, ["export", "-o", join(dir, "round-trip.yaml")])
    expect(roundTrip.code, roundTrip.stderr).toBe(0)
    expect(await readFile(join(dir, "round-trip.yaml"), "utf8")).toBe(exported.stdout)

    // The secrets arrived: the push URL, the page's password.
    expect(
      (await fetch(`${target.env.STATUS_PAGE_URL}/api/v1/push/${secrets.MONITOR_NIGHTLY_BACKUP_PUSH_TOKEN}`)).status
    )
      .toBe(200)
    const signIn = await fetch(`${target.env.STATUS_PAGE_URL}/p/partners/`, { redirect: "manual" })
    expect(signIn.status).toBe(401)

    // Without the variables, the stored secrets are kept and nothing changes.
    const unset = await cli(target, ["apply", "-f", file])
    expect(unset.code, unset.stderr).toBe(0)
    expect(unset.stdout).toMatch(/Applied: 0 created, 0 updated, 0 deleted, \d+ unchanged\./)
  })

  it("refuses an entry naming what is not there, changing nothing; an unset variable outside a secret is a usage error", async () => {
    const broken = setupFile()
    broken.components.push({ key: "search", name: "Search", displayOrder: 4, group: "no-such-group" })
    const refused = await cli(source, ["apply", "-f", await write("broken.yaml", broken)], secrets)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("components[search]")
    expect((await source.api((client) => client.components.list({ query: {} }))).map((c) => c.name)).not.toContain(
      "Search"
    )

    const unset = setupFile()
    unset.webhooks[0]!.url = "${CHAT_URL}"
    const usage = await cli(source, ["apply", "-f", await write("unset.yaml", unset)], secrets)
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain("Set CHAT_URL")
  })

  it("--prune deletes what the file no longer names", async () => {
    const pruned = setupFile()
    pruned.webhooks = pruned.webhooks.filter((webhook) => webhook.key !== "chat")
    pruned.maintenance = pruned.maintenance.filter((window) => window.key !== "upgrade")
    const file = await write("pruned.yaml", pruned)
    const plan = await cli(source, ["apply", "-f", file, "--prune", "--dry-run"], secrets)
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.stdout).toContain("- webhook chat")
    expect(plan.stdout).toContain("- maintenance upgrade")
    expect((await source.api((client) => client.webhooks.list({ query: {} }))).map((w) => w.name)).toContain("Chat")

    const applied = await cli(source, ["apply", "-f", file, "--prune"], secrets)
    expect(applied.code, applied.stderr).toBe(0)
    expect((await source.api((client) => client.webhooks.list({ query: {} }))).map((w) => w.name)).toEqual(["Pager"])
    const windows = await source.api((client) => client.maintenance.list({ query: {} }))
    expect(windows.filter((w) => w.title === "Database upgrade").every((w) => w.status === "cancelled")).toBe(true)
  })

  it("serves the file's JSON Schema to editors, without authentication", async () => {
    const response = await fetch(`${source.env.STATUS_PAGE_URL}/api/v1/configuration.schema.json`)
    expect(response.status).toBe(200)
    const schema = await response.json() as {
      $schema: string
      $defs: Record<string, { properties?: Record<string, unknown> }>
    }
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema")
    expect(Object.keys(schema.$defs)).toEqual(expect.arrayContaining(["MonitorEntry", "PageEntry", "WebhookEntry"]))
    expect(JSON.stringify(schema.$defs.MonitorEntry!.properties!.password)).toContain("\\\\$\\\\{")
  })

  it("applies for owners only: an admin's key may export but not apply", async () => {
    const created = await source.send("POST", "/api/v1/admin/api-keys", { name: "automation", role: "admin" })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const key = (created.body as { key: string }).key
    expect((await cli(source, ["export"], { STATUS_PAGE_API_KEY: key })).code).toBe(0)
    const file = await write("admin.yaml", setupFile())
    const refused = await cli(source, ["apply", "-f", file], { ...secrets, STATUS_PAGE_API_KEY: key })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("Forbidden")
  })
})

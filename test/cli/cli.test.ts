/**
 * `status-page` end to end: the CLI runs as a child process (`tsx src/cli/main.ts`) against the
 * real HTTP stack on a loopback port, over a fresh database, with the maintenance clock running;
 * its effects are checked through the API.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

import { DateTime, Effect, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

import type { ComponentId } from "../../src/domain/Component.js"
import { IncidentId } from "../../src/domain/Incident.js"
import { MaintenanceId } from "../../src/domain/Maintenance.js"
import { freePort, runCommand } from "../support/ChildProcess.js"
import { TestDatabaseUrl } from "../support/TestDatabase.js"
import { ApiClient, LiveTestServer, SuiteApiKey, withMaintenanceClock } from "../support/TestServer.js"

const runtime = ManagedRuntime.make(withMaintenanceClock(LiveTestServer()))
let env: Record<string, string>
let apiKey: string
let databaseUrl: string
let checkout: ComponentId
let search: ComponentId

const api = <A, E>(use: (client: Effect.Success<typeof ApiClient>) => Effect.Effect<A, E>) =>
  runtime.runPromise(Effect.flatMap(ApiClient, use))

/**
 * `node --import tsx`, one process instead of tsx's two: the suite spawns the CLI about thirty
 * times. `preload` are modules imported before it (test/support/NoDnsLookups.ts).
 */
const cli = (args: ReadonlyArray<string>, extraEnv: Record<string, string> = {}, preload: ReadonlyArray<string> = []) =>
  runCommand("src/cli/main.ts", args, { ...env, ...extraEnv }, {
    directNode: true,
    nodeFlags: preload.flatMap((module) => ["--import", module])
  })

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000)
const isoInHours = (hours: number) => inHours(hours).toISOString().replace(/\.\d+Z$/, "Z")

beforeAll(async () => {
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag === "UnixPathAddress") throw new Error("the test server is not on TCP")
  apiKey = await runtime.runPromise(SuiteApiKey)
  databaseUrl = await runtime.runPromise(TestDatabaseUrl)
  env = { STATUS_PAGE_URL: `http://127.0.0.1:${address.port}`, STATUS_PAGE_API_KEY: apiKey }
  checkout = (await api((client) => client.components.create({ payload: { name: "Checkout" } }))).id
  search = (await api((client) => client.components.create({ payload: { name: "Search", isPublic: false } }))).id
})

afterAll(() => runtime.dispose())

describe("components", () => {
  it("lists them, and sets a status the API then answers", async () => {
    const listed = await cli(["components", "list"])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toMatch(new RegExp(`${checkout}\\s+operational\\s+yes\\s+Checkout`))
    expect(listed.stdout).toMatch(new RegExp(`${search}\\s+operational\\s+no\\s+Search`))

    const set = await cli(["components", "set-status", checkout, "major_outage"])
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toContain(`Component ${checkout} "Checkout" is major_outage.`)
    const components = await api((client) => client.components.list({ query: {} }))
    expect(components.find((c) => c.id === checkout)?.status).toBe("major_outage")

    const json = await cli(["components", "list", "--json"])
    expect(json.code, json.stderr).toBe(0)
    const answer = JSON.parse(json.stdout) as Array<Record<string, unknown>>
    expect(answer.map((c) => [c.id, c.name, c.status, c.isPublic])).toEqual([
      [checkout, "Checkout", "major_outage", true],
      [search, "Search", "operational", false]
    ])
  })

  it("refuses an unknown id (1) and an unknown status (2)", async () => {
    const [unknown, badStatus] = await Promise.all([
      cli(["components", "set-status", "no-such-component", "degraded"]),
      cli(["components", "set-status", checkout, "on_fire"])
    ])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("NotFound: Component \"no-such-component\" was not found")
    expect(badStatus.code).toBe(2)
    expect(badStatus.stderr).toContain(
      "\"operational\" | \"degraded\" | \"partial_outage\" | \"major_outage\" | \"maintenance\""
    )
  })
})

describe("incidents", () => {
  it("opens one (--json), posts an update, resolves it, and refuses to resolve it twice", async () => {
    const opened = await cli([
      "incidents",
      "open",
      "--title",
      "Checkout errors",
      "--message",
      "Payments fail for some customers",
      "--component",
      checkout,
      "--component",
      search,
      "--severity",
      "major",
      "--json"
    ])
    expect(opened.code, opened.stderr).toBe(0)
    const incident = JSON.parse(opened.stdout)
    expect(incident).toMatchObject({
      title: "Checkout errors",
      status: "investigating",
      severity: "major",
      message: "Payments fail for some customers",
      componentIds: [checkout, search].sort(),
      resolvedAt: null
    })
    const id = IncidentId.make(incident.id)
    expect((await api((client) => client.incidents.get({ params: { id } }))).title).toBe("Checkout errors")

    const updated = await cli(["incidents", "update", id, "--message", "Cause found", "--status", "identified"])
    expect(updated.code, updated.stderr).toBe(0)
    expect(updated.stdout).toContain(`Updated incident ${id} "Checkout errors": identified, severity major.`)
    // Without --status, the update keeps the incident's status.
    const kept = await cli(["incidents", "update", id, "--message", "Fix deploying"])
    expect(kept.code, kept.stderr).toBe(0)
    const afterUpdates = await api((client) => client.incidents.get({ params: { id } }))
    expect(afterUpdates.updates.map((u) => [u.status, u.message])).toEqual([
      ["investigating", "Payments fail for some customers"],
      ["identified", "Cause found"],
      ["identified", "Fix deploying"]
    ])

    const resolved = await cli(["incidents", "resolve", id, "--json"])
    expect(resolved.code, resolved.stderr).toBe(0)
    const answer = JSON.parse(resolved.stdout)
    expect(answer.status).toBe("resolved")
    expect(answer.message).toBe("This incident has been resolved.")
    expect(typeof answer.resolvedAt).toBe("string")

    const again = await cli(["incidents", "resolve", id])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/^Conflict: /)
  })

  it("answers the server's refusal of an unknown component (1) and a missing title (2)", async () => {
    const [unknownComponent, noTitle] = await Promise.all([
      cli(["incidents", "open", "--title", "T", "--message", "M", "--component", "no-such-component"]),
      cli(["incidents", "open", "--message", "M"])
    ])
    expect(unknownComponent.code).toBe(1)
    expect(unknownComponent.stderr).toMatch(/^BadRequest: Unknown componentIds: "no-such-component"/)
    // Then each field the refusal names, `path: message`.
    expect(unknownComponent.stderr).toContain("\n  componentIds[0]: unknown component \"no-such-component\"")
    expect(noTitle.code).toBe(2)
    expect(noTitle.stderr).toContain("--title")
  })

  it("opens an incident from a template, the options given overriding it", async () => {
    const template = await api((client) =>
      client.incidentTemplates.create({
        payload: {
          name: `Checkout down ${Date.now()}`,
          title: "Checkout is down",
          message: "We are looking into it.",
          severity: "major",
          status: "investigating",
          componentIds: [checkout]
        }
      })
    )
    const opened = await cli(["incidents", "open", "--template", template.id, "--title", "Checkout is slow", "--json"])
    expect(opened.code, opened.stderr).toBe(0)
    expect(JSON.parse(opened.stdout)).toMatchObject({
      title: "Checkout is slow",
      severity: "major",
      componentIds: [checkout],
      updates: [expect.objectContaining({ message: "We are looking into it." })]
    })
    const unknown = await cli(["incidents", "open", "--template", "no-such-template"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^NotFound: /)
  })

  it("opens a draft the public does not see, publishes it, and resolves it restoring its component", async () => {
    // A component of its own: restoring it leaves the suite's components as the other cases set them.
    const cart = await api((client) => client.components.create({ payload: { name: "Cart" } }))
    const publicTitles = () =>
      api((client) => client.status.incidents({ query: {} })).then((page) => page.map((i) => i.title))

    const opened = await cli(["incidents", "open", "--title", "Cart errors", "--message", "M", "--draft"])
    expect(opened.code, opened.stderr).toBe(0)
    const match = /^Opened incident (\S+) "Cart errors": investigating, severity minor \(draft\)\.$/m.exec(
      opened.stdout
    )
    expect(match, opened.stdout).not.toBeNull()
    const id = IncidentId.make(match![1]!)
    expect((await api((client) => client.incidents.get({ params: { id } }))).published).toBe(false)
    expect(await publicTitles()).not.toContain("Cart errors")
    // What the draft's components are set to goes through the API here; the CLI has no option for it.
    await api((client) =>
      client.incidents.update({ params: { id }, payload: { componentStatuses: { [cart.id]: "major_outage" } } })
    )

    const published = await cli(["incidents", "publish", id, "--json"])
    expect(published.code, published.stderr).toBe(0)
    expect(JSON.parse(published.stdout)).toMatchObject({ id, published: true, componentIds: [cart.id] })
    expect(await publicTitles()).toContain("Cart errors")
    // Publishing a published incident changes nothing and is no failure.
    const again = await cli(["incidents", "publish", id])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain(`Published incident ${id} "Cart errors": investigating, severity minor.`)

    const resolved = await cli(["incidents", "resolve", id, "--restore-components"])
    expect(resolved.code, resolved.stderr).toBe(0)
    expect(resolved.stdout).toContain(`Resolved incident ${id} "Cart errors": resolved, severity minor.`)
    const components = await api((client) => client.components.list({ query: {} }))
    expect(components.find((c) => c.id === cart.id)?.status).toBe("operational")
    const detail = await api((client) => client.incidents.get({ params: { id } }))
    expect(detail.message).toBe("This incident has been resolved.")

    const unknown = await cli(["incidents", "publish", "no-such-incident"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^NotFound: /)
  })
})

describe("maintenance", () => {
  it("schedules a window, starts it and completes it through the maintenance clock", async () => {
    const scheduled = await cli([
      "maintenance",
      "schedule",
      "--title",
      "Database upgrade",
      "--starts-at",
      isoInHours(1),
      "--ends-at",
      isoInHours(2),
      "--component",
      search,
      "--message",
      "Read-only for a while",
      "--json"
    ])
    expect(scheduled.code, scheduled.stderr).toBe(0)
    const window = JSON.parse(scheduled.stdout)
    expect(window).toMatchObject({
      title: "Database upgrade",
      description: "Read-only for a while",
      status: "scheduled",
      componentIds: [search]
    })
    const id = MaintenanceId.make(window.id)

    const early = await cli(["maintenance", "complete", id])
    expect(early.code).toBe(1)
    expect(early.stderr).toContain("has not started")

    const started = await cli(["maintenance", "start", id, "--json"])
    expect(started.code, started.stderr).toBe(0)
    expect(JSON.parse(started.stdout).status).toBe("in_progress")
    const during = await api((client) => client.components.list({ query: {} }))
    expect(during.find((c) => c.id === search)?.status).toBe("maintenance")

    const completed = await cli(["maintenance", "complete", id])
    expect(completed.code, completed.stderr).toBe(0)
    expect(completed.stdout).toMatch(
      new RegExp(`^Completed maintenance ${id} "Database upgrade": completed, \\S+Z to \\S+Z\\.`)
    )
    expect((await api((client) => client.maintenance.get({ params: { id } }))).status).toBe("completed")
    const after = await api((client) => client.components.list({ query: {} }))
    expect(after.find((c) => c.id === search)?.status).toBe("operational")
  })

  it("cancels a window, then refuses to cancel it again", async () => {
    const created = await api((client) =>
      client.maintenance.create({
        payload: {
          title: "Network change",
          scheduledStart: DateTime.makeUnsafe(inHours(3)),
          scheduledEnd: DateTime.makeUnsafe(inHours(4))
        }
      })
    )
    const cancelled = await cli(["maintenance", "cancel", created.id, "--json"])
    expect(cancelled.code, cancelled.stderr).toBe(0)
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ id: created.id, status: "cancelled" })
    const again = await cli(["maintenance", "cancel", created.id])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/^Conflict: /)
  })

  it("schedules a weekly series, cancels an occurrence, then the rest of the series", async () => {
    const until = isoInHours(24 * 30)
    const scheduled = await cli([
      "maintenance",
      "schedule",
      "--title",
      "Weekly patching",
      "--starts-at",
      isoInHours(5),
      "--ends-at",
      isoInHours(6),
      "--repeat",
      "weekly",
      "--interval",
      "1",
      "--count",
      "3",
      "--until",
      until
    ])
    expect(scheduled.code, scheduled.stderr).toBe(0)
    expect(scheduled.stdout).toMatch(
      new RegExp(
        `^Scheduled maintenance \\S+ "Weekly patching": scheduled, \\S+Z to \\S+Z, repeats weekly, 3 times until `
      )
    )
    const first = (await api((client) => client.maintenance.list({ query: {} }))).find((w) =>
      w.title === "Weekly patching"
    )!
    expect(first.recurrence).toMatchObject({ frequency: "weekly", interval: 1, count: 3 })

    const one = await cli(["maintenance", "cancel", first.id, "--json"])
    expect(one.code, one.stderr).toBe(0)
    const series = () =>
      api((client) => client.maintenance.list({ query: {} })).then((all) =>
        all.filter((w) => w.seriesId === first.id).map((w) => w.status).toSorted()
      )
    expect(await series()).toEqual(["cancelled", "scheduled"])
    const next = (await api((client) => client.maintenance.list({ query: {} }))).find((w) =>
      w.seriesId === first.id && w.status === "scheduled"
    )!
    const rest = await cli(["maintenance", "cancel", next.id, "--series"])
    expect(rest.code, rest.stderr).toBe(0)
    expect(rest.stdout).toContain("and the rest of its series.")
    expect(await series()).toEqual(["cancelled", "cancelled"])

    const stray = await cli([
      "maintenance",
      "schedule",
      "--title",
      "T",
      "--starts-at",
      isoInHours(1),
      "--ends-at",
      isoInHours(2),
      "--count",
      "2"
    ])
    expect(stray.code).toBe(2)
    expect(stray.stderr).toContain("--count and --until need --repeat")
  })

  it("refuses a start that is not an ISO 8601 UTC timestamp before sending anything (2)", async () => {
    const bad = await cli([
      "maintenance",
      "schedule",
      "--title",
      "T",
      "--starts-at",
      "tomorrow",
      "--ends-at",
      isoInHours(2)
    ])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("scheduledStart: must be an ISO 8601 UTC timestamp such as 2030-01-31T09:00:00Z")
  })
})

describe("monitors", () => {
  it("lists them, pauses and resumes one", async () => {
    const monitor = await api((client) =>
      client.monitors.create({ payload: { componentId: checkout, type: "tcp", url: "tcp://127.0.0.1:9" } })
    )
    const [human, json] = await Promise.all([cli(["monitors", "list"]), cli(["monitors", "list", "--json"])])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toMatch(
      new RegExp(`${monitor.id}\\s+unknown\\s+tcp\\s+${checkout}\\s+tcp://127\\.0\\.0\\.1:9`)
    )
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ id: monitor.id, componentId: checkout, type: "tcp", state: "unknown" })
    ])

    const paused = await cli(["monitors", "pause", monitor.id])
    expect(paused.code, paused.stderr).toBe(0)
    expect(paused.stdout).toContain(`Monitor ${monitor.id} is paused.`)
    const listedPaused = await cli(["monitors", "list"])
    expect(listedPaused.stdout).toMatch(new RegExp(`${monitor.id}\\s+paused\\s+tcp`))
    const resumed = await cli(["monitors", "resume", monitor.id, "--json"])
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id: monitor.id, paused: false })
    const all = await api((client) => client.monitors.list({ query: {} }))
    expect(all.find((m) => m.id === monitor.id)?.paused).toBe(false)
    const unknown = await cli(["monitors", "pause", "no-such-monitor"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("NotFound")
  })
})

describe("push monitors", () => {
  it("rotate-push-token prints the new URL, which takes pushes; the old one is refused", async () => {
    const monitor = await api((client) =>
      client.monitors.create({ payload: { componentId: checkout, type: "push", intervalSeconds: 60 } })
    )
    const listed = await cli(["monitors", "list"])
    expect(listed.stdout).toMatch(new RegExp(`${monitor.id}\\s+unknown\\s+push\\s+${checkout}\\s+/api/v1/push/\\*{8}`))
    expect(listed.stdout).not.toContain(monitor.pushToken!)
    const rotated = await cli(["monitors", "rotate-push-token", monitor.id])
    expect(rotated.code, rotated.stderr).toBe(0)
    const url = /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/push\/[A-Za-z0-9_-]{32}$/m.exec(rotated.stdout)?.[0]
    expect(url, rotated.stdout).toBeDefined()
    expect((await fetch(`${url}?status=up`)).status).toBe(200)
    expect((await fetch(`${env.STATUS_PAGE_URL}/api/v1/push/${monitor.pushToken}`)).status).toBe(404)
    const notPush = await cli([
      "monitors",
      "rotate-push-token",
      (await api((client) =>
        client.monitors.create({ payload: { componentId: checkout, type: "tcp", url: "tcp://127.0.0.1:9" } })
      )).id
    ])
    expect(notPush.code).toBe(1)
    expect(notPush.stderr).toContain("only a push monitor has a push token")
  })
})

describe("credentials and reachability", () => {
  it("is refused without a key or with a wrong one (1), and never prints the key", async () => {
    const wrongKey = "svc_" + "x".repeat(32)
    const [none, wrong, asOption] = await Promise.all([
      cli(["components", "list"], { STATUS_PAGE_API_KEY: "" }),
      cli(["components", "list"], { STATUS_PAGE_API_KEY: wrongKey }),
      cli(["components", "list", "--api-key", wrongKey], { STATUS_PAGE_API_KEY: "" })
    ])
    for (const run of [none, wrong, asOption]) {
      expect(run.code).toBe(1)
      expect(run.stderr).toMatch(/^Unauthorized: /)
      expect(run.stdout + run.stderr).not.toContain(wrongKey)
    }
  })

  it("tells an unreachable service (3) from a missing address (2)", async () => {
    const closed = await freePort()
    const [unreachable, noUrl, notAUrl] = await Promise.all([
      cli(["components", "list"], { STATUS_PAGE_URL: `http://127.0.0.1:${closed}` }),
      cli(["components", "list"], { STATUS_PAGE_URL: "" }),
      cli(["components", "list", "--url", "not a url"])
    ])
    expect(unreachable.code).toBe(3)
    expect(unreachable.stderr).toMatch(/^Unreachable: .*ECONNREFUSED/)
    expect(noUrl.code).toBe(2)
    expect(noUrl.stderr).toContain("STATUS_PAGE_URL")
    expect(notAUrl.code).toBe(2)
    expect(unreachable.stderr + noUrl.stderr).not.toContain(apiKey)
  })

  it("refuses plain http:// to a host other than loopback before looking it up (2), unless --insecure", async () => {
    // The child looks no name up: a lookup fails and says so, so none reaches a resolver.
    const noDns = ["./test/support/NoDnsLookups.ts"]
    const remote = "http://status.example.test"
    const [refused, insecure, https, loopback] = await Promise.all([
      cli(["incidents", "resolve", "some-id", "--url", `${remote}:8080/`], {}, noDns),
      cli(["components", "list", "--insecure"], { STATUS_PAGE_URL: remote }, noDns),
      cli(["components", "list"], { STATUS_PAGE_URL: "https://status.example.test" }, noDns),
      // Loopback over http stays allowed (which names are loopback: test/domain/networkAddress.unit.test.ts).
      cli(["components", "list"], { STATUS_PAGE_URL: env.STATUS_PAGE_URL!.replace("127.0.0.1", "localhost") })
    ])
    expect(refused.code, refused.stderr).toBe(2)
    expect(refused.stderr).toContain("Refusing to send the API key over plain http:// to status.example.test:8080")
    expect(refused.stderr).toContain("--insecure")
    expect(refused.stderr).not.toContain("DNS lookup")
    expect(refused.stdout + refused.stderr).not.toContain(apiKey)
    // --insecure, and https://, go on to look the name up, which the test refuses: unreachable (3).
    for (const run of [insecure, https]) {
      expect(run.code, run.stderr).toBe(3)
      expect(run.stderr).toContain("DNS lookup of status.example.test refused by the test")
    }
    expect(loopback.code, loopback.stderr).toBe(0)
  })

  it("gives up on a silent server after --timeout (3) and retries on a 503 (3)", async () => {
    // How long each silent request held its connection, timed here: the three processes' start
    // takes seconds of its own on a busy machine.
    const held: Array<number> = []
    const server = createServer((request, response) => {
      // One address never answers, one sends its headers and stalls in the body; the other is a
      // service whose database is away.
      if (request.url?.includes("components") || request.url?.includes("incidents")) {
        const arrived = Date.now()
        request.socket.once("close", () => held.push(Date.now() - arrived))
      }
      if (request.url?.includes("components")) return
      if (request.url?.includes("incidents")) {
        response.writeHead(200, { "content-type": "application/json" })
        response.write("[")
        return
      }
      response.writeHead(503, { "content-type": "application/json" })
      response.end(JSON.stringify({ _tag: "ServiceUnavailable", message: "The database is unreachable" }))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const [silent, stalled, unavailable] = await Promise.all([
        cli(["components", "list", "--timeout", "1"], { STATUS_PAGE_URL: url }),
        cli(["incidents", "update", "some-id", "--message", "m", "--timeout", "1"], { STATUS_PAGE_URL: url }),
        cli(["monitors", "list"], { STATUS_PAGE_URL: url })
      ])
      expect(silent.code).toBe(3)
      expect(silent.stderr).toMatch(/^Unreachable: no answer within 1s/)
      expect(stalled.code).toBe(3)
      expect(stalled.stderr).toMatch(/^Unreachable: no answer within 1s/)
      // Given up after its 1 s, not the default 30 s.
      for (let wait = 0; wait < 100 && held.length < 2; wait++) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(held).toHaveLength(2)
      expect(Math.max(...held)).toBeLessThan(15_000)
      expect(unavailable.code).toBe(3)
      expect(unavailable.stderr).toContain("ServiceUnavailable: The database is unreachable")
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("answers an unknown command with a usage error (2)", async () => {
    const unknown = await cli(["incidents", "reopen", "x"])
    expect(unknown.code).toBe(2)
  })
})

describe("local commands", () => {
  it("creates an API key in the database that the remote commands then use", async () => {
    const created = await cli(["api-key", "create", "--name", "pipeline"], { DATABASE_URL: databaseUrl })
    expect(created.code, created.stderr).toBe(0)
    const key = created.stdout.trim()
    expect(key).toMatch(/^svc_[A-Za-z0-9]{32}$/)
    expect(created.stderr).toContain("Created API key \"pipeline\"")
    const listed = await cli(["components", "list", "--json"], { STATUS_PAGE_API_KEY: key })
    expect(listed.code, listed.stderr).toBe(0)
  })
})

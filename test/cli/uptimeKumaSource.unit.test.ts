/**
 * Reading an Uptime Kuma database (src/cli/import/UptimeKumaSource.ts) into an ImportBundle: the
 * fixture of test/fixtures/uptime-kuma (a real Kuma 2.5.3 database, see its README) record by
 * record, the bundle checked against ImportBundle itself (encoded, then decoded as the service
 * would); copies of it altered with node:sqlite for what the fixture does not hold (each Kuma
 * type and setting the mapping treats, the other maintenance strategies, notifications that
 * become webhooks); and the files it refuses, each naming the file and the record.
 *
 * Every read works on a copy in a directory of its own, which the tests alter.
 */
import { existsSync, statSync } from "node:fs"
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync, type SQLInputValue } from "node:sqlite"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { TestClock } from "effect/testing"

import { readUptimeKuma } from "../../src/cli/import/UptimeKumaSource.js"
import { ImportBundle } from "../../src/domain/ImportBundle.js"

const fixture = join(import.meta.dirname, "../fixtures/uptime-kuma/kuma.db")
/** A Monday, two days after the fixture was made: its one-off window (1 December, 23:49 UTC) is to come. */
const monday = Date.parse("2026-11-30T09:00:00Z")

/** A copy of the fixture (or of `source`), changed by `alter` through a writable connection first. */
const withDatabase = <A, E>(
  alter: ((database: DatabaseSync) => void) | null,
  use: (path: string) => Effect.Effect<A, E>,
  source: ((path: string) => Promise<void>) | null = null
) =>
  Effect.acquireUseRelease(
    Effect.promise(async () => {
      const dir = await mkdtemp(join(tmpdir(), "uptime-kuma-"))
      const path = join(dir, "kuma.db")
      if (source === null) await copyFile(fixture, path)
      else await source(path)
      if (alter !== null) {
        const database = new DatabaseSync(path)
        try {
          alter(database)
        } finally {
          database.close()
        }
      }
      return { dir, path }
    }),
    ({ path }) => use(path),
    ({ dir }) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  )

/** Adds a row; answers its id. */
const insert = (database: DatabaseSync, table: string, values: Record<string, SQLInputValue>) => {
  const columns = Object.keys(values)
  const result = database.prepare(
    `INSERT INTO "${table}" (${columns.map((column) => `"${column}"`).join(", ")}) VALUES (${
      columns.map(() => "?").join(", ")
    })`
  ).run(...Object.values(values))
  return Number(result.lastInsertRowid)
}

/** The bundle as the service receives it, after ImportBundle has checked it both ways. */
const checked = (bundle: ImportBundle) =>
  Effect.gen(function*() {
    const encoded = yield* Schema.encodeEffect(ImportBundle)(bundle)
    yield* Schema.decodeUnknownEffect(ImportBundle)(encoded)
    return JSON.parse(JSON.stringify(encoded)) as Record<string, any>
  })

/** What the reader makes of the fixture (altered by `alter`) at `now`: the checked bundle and the skipped records. */
const read = (alter: ((database: DatabaseSync) => void) | null = null, now = monday) =>
  withDatabase(alter, (path) =>
    Effect.gen(function*() {
      yield* TestClock.setTime(now)
      const result = yield* readUptimeKuma(path)
      return { bundle: yield* checked(result.bundle), skipped: result.skipped }
    }))

const monitor = (id: number) => `uptime-kuma/monitor/${id}`
const section = (id: number) => `uptime-kuma/group/${id}`
const byKey = (entries: ReadonlyArray<Record<string, any>> | undefined, key: string) =>
  entries?.find((entry) => entry.key === key)
const reasonOf = (skipped: ReadonlyArray<{ record: string; reason: string }>, record: string) =>
  skipped.find((entry) => entry.record === record)?.reason

describe("readUptimeKuma: the fixture", () => {
  it.effect("makes each monitor a component and a check of the mapped type", () =>
    Effect.gen(function*() {
      const { bundle } = yield* read()
      expect(bundle.configuration.version).toBe(1)
      expect(bundle.configuration.monitors).toEqual([
        {
          key: monitor(2),
          component: monitor(2),
          type: "http",
          url: "http://127.0.0.1:9/",
          intervalSeconds: 30,
          timeoutMs: 24000,
          // Two retries after the first failure: down on the third.
          failureThreshold: 3,
          method: "GET",
          expectedStatusCodes: ["200-299"]
        },
        {
          key: monitor(3),
          component: monitor(3),
          type: "http",
          url: "http://127.0.0.1:9/health",
          intervalSeconds: 60,
          timeoutMs: 48000,
          failureThreshold: 1,
          method: "GET",
          expectedStatusCodes: ["200-299", "301"],
          bodyContains: "ok"
        },
        {
          key: monitor(4),
          component: monitor(4),
          type: "http",
          url: "http://127.0.0.1:9/status.json",
          intervalSeconds: 120,
          timeoutMs: 48000,
          failureThreshold: 1,
          method: "GET",
          expectedStatusCodes: ["200-299"],
          assertions: [{ path: "$.status", op: "==", value: "up" }]
        },
        {
          key: monitor(5),
          component: monitor(5),
          type: "tcp",
          url: "tcp://127.0.0.1:25",
          intervalSeconds: 90,
          timeoutMs: 48000,
          failureThreshold: 1
        },
        {
          key: monitor(7),
          component: monitor(7),
          type: "dns",
          url: "example.test",
          intervalSeconds: 60,
          timeoutMs: 48000,
          failureThreshold: 1,
          dnsRecordType: "A",
          paused: true
        },
        {
          key: monitor(9),
          component: monitor(9),
          type: "postgres",
          url: "postgres://reader@127.0.0.1:5432/orders",
          intervalSeconds: 60,
          timeoutMs: 48000,
          failureThreshold: 1,
          password: "secret",
          paused: true
        },
        {
          key: monitor(10),
          component: monitor(10),
          type: "redis",
          url: "redis://127.0.0.1:6379",
          intervalSeconds: 60,
          timeoutMs: 48000,
          failureThreshold: 1,
          paused: true
        },
        {
          key: monitor(8),
          component: monitor(8),
          type: "push",
          // Kept, so the cron line's token still counts here.
          pushToken: "fixturePushTok1",
          intervalSeconds: 86400,
          failureThreshold: 1
        },
        {
          key: monitor(6),
          component: monitor(6),
          type: "icmp",
          url: "127.0.0.1",
          intervalSeconds: 60,
          timeoutMs: 10000,
          failureThreshold: 1,
          pingCount: 1,
          paused: true
        },
        {
          key: monitor(11),
          component: monitor(11),
          type: "mqtt",
          url: "mqtt://127.0.0.1:1883",
          intervalSeconds: 60,
          timeoutMs: 48000,
          failureThreshold: 1,
          paused: true
        },
        {
          key: monitor(12),
          component: monitor(12),
          type: "grpc",
          url: "grpc://127.0.0.1:50051",
          intervalSeconds: 60,
          timeoutMs: 48000,
          failureThreshold: 1,
          paused: true
        }
      ])
      expect(bundle.componentStatuses).toBeUndefined()
      expect(bundle.configuration.webhooks).toBeUndefined()
    }))

  it.effect("makes the pages' sections groups, and each page lists what Kuma's showed", () =>
    Effect.gen(function*() {
      const { bundle, skipped } = yield* read()
      expect(bundle.configuration.groups).toEqual([
        { key: section(1), name: "Services", isPublic: true },
        { key: section(2), name: "Infrastructure", isPublic: true },
        { key: section(3), name: "Data", isPublic: true }
      ])
      expect(bundle.configuration.components).toEqual([
        { key: monitor(2), name: "Acme website", description: "The marketing site", group: section(1), isPublic: true },
        { key: monitor(3), name: "Public API", group: section(1), isPublic: true },
        { key: monitor(4), name: "Payments health", group: section(1), isPublic: true },
        { key: monitor(5), name: "SMTP relay", group: section(2), isPublic: true },
        { key: monitor(7), name: "Apex record", group: section(2), isPublic: true },
        { key: monitor(9), name: "Orders database", group: section(3), isPublic: true },
        { key: monitor(10), name: "Session cache", group: section(3), isPublic: true },
        { key: monitor(8), name: "Nightly backup", group: section(3), isPublic: true },
        // On no Kuma page: private, so the default page does not show them.
        { key: monitor(6), name: "Edge router", isPublic: false },
        { key: monitor(11), name: "Telemetry broker", isPublic: false },
        { key: monitor(12), name: "Inventory gRPC", isPublic: false }
      ])
      expect(bundle.configuration.pages).toEqual([
        {
          slug: "acme",
          title: "Acme Status",
          description: "Acme Status — live status of our services",
          items: [{ type: "group", key: section(1) }, { type: "group", key: section(2) }]
        },
        {
          slug: "internal",
          title: "Internal systems",
          description: "Internal systems — live status of our services",
          items: [{ type: "group", key: section(3) }]
        }
      ])
      // The group monitor's children are in the Services section, which became their group.
      expect(reasonOf(skipped, "monitor 1 \"Checkout\" (type group)")).toBe(
        "no group is made of it: every monitor under it is in the group of a status page section that shows it"
      )
    }))

  it.effect("keeps the windows to come: the one-off, and the weekly series from Berlin time", () =>
    Effect.gen(function*() {
      const { bundle, skipped } = yield* read()
      expect(bundle.configuration.maintenance).toEqual([
        {
          key: "uptime-kuma/maintenance/1",
          title: "Database upgrade",
          description: "Primary database upgrade; writes paused.",
          scheduledStart: "2026-12-01T23:49:00.000Z",
          scheduledEnd: "2026-12-02T01:49:00.000Z",
          components: [monitor(2), monitor(3)]
        },
        {
          key: "uptime-kuma/maintenance/2/tue",
          title: "Weekly patching",
          description: "Rolling OS updates.",
          // Tuesday 03:00–04:00 in Berlin, an hour ahead of UTC in winter.
          scheduledStart: "2026-12-01T02:00:00.000Z",
          scheduledEnd: "2026-12-01T03:00:00.000Z",
          recurrence: { frequency: "weekly", interval: 1 },
          components: [monitor(5)]
        }
      ])
      expect(reasonOf(skipped, "maintenance 2 \"Weekly patching\": timezone")).toMatch(
        /^its windows repeat in the organization's time zone here, Kuma's in Europe\/Berlin: .*\(03:00 in Europe\/Berlin, 2026-12-01T02:00:00Z\).*set that to Europe\/Berlin/
      )
    }))

  it.effect("leaves out a window that has ended, and starts a series at its next window", () =>
    Effect.gen(function*() {
      const december = yield* read(null, Date.parse("2026-12-05T12:00:00Z"))
      expect(december.bundle.configuration.maintenance.map((entry: any) => [entry.key, entry.scheduledStart])).toEqual([
        ["uptime-kuma/maintenance/2/tue", "2026-12-08T02:00:00.000Z"]
      ])
      expect(reasonOf(december.skipped, "maintenance 1 \"Database upgrade\"")).toBe(
        "it ended at 2026-12-02T01:49:00Z: only windows to come are imported"
      )
      // In summer Berlin is two hours ahead: 03:00 there is 01:00 UTC.
      const summer = yield* read(null, Date.parse("2027-06-28T12:00:00Z"))
      expect(byKey(summer.bundle.configuration.maintenance, "uptime-kuma/maintenance/2/tue")).toMatchObject({
        scheduledStart: "2027-06-29T01:00:00.000Z",
        scheduledEnd: "2027-06-29T02:00:00.000Z"
      })
    }))

  it.effect("opens the pinned incident on the components of its page", () =>
    Effect.gen(function*() {
      const { bundle } = yield* read()
      expect(bundle.incidents).toEqual([{
        key: "uptime-kuma/incident/1",
        title: "Checkout latency elevated",
        // Style warning.
        severity: "minor",
        components: [monitor(2), monitor(3), monitor(4), monitor(5), monitor(7)],
        updates: [{
          status: "investigating",
          message: "We are investigating **slow** card payments.",
          createdAt: "2026-11-28T23:49:39.000Z"
        }]
      }])
      expect(bundle.subscribers).toBeUndefined()
    }))

  it.effect("lists what it leaves out, and why", () =>
    Effect.gen(function*() {
      const { skipped } = yield* read()
      expect(skipped.map((entry) => entry.record)).toEqual([
        "monitor 7 \"Apex record\": dns_resolve_server",
        "monitor 11 \"Telemetry broker\": mqtt_topic",
        "status page 1 \"acme\": footer_text",
        "status page 1 \"acme\": show_tags",
        "status page 2 \"internal\": footer_text",
        "status page 2 \"internal\": show_tags",
        "monitor 1 \"Checkout\" (type group)",
        "maintenance 2 \"Weekly patching\": timezone",
        "notification 1 \"Ops webhook\" (type webhook)",
        "tag 1 \"production\"",
        "heartbeat (4 rows)",
        "user (1 row)"
      ])
      expect(reasonOf(skipped, "monitor 7 \"Apex record\": dns_resolve_server")).toBe(
        "has no counterpart: the probes ask their own resolvers; Kuma asked 127.0.0.1"
      )
      expect(reasonOf(skipped, "monitor 11 \"Telemetry broker\": mqtt_topic")).toBe(
        "has no counterpart: our mqtt check passes when the broker accepts its sign-in; it does not wait for a " +
          "message containing \"ok\" on \"health\""
      )
      expect(reasonOf(skipped, "notification 1 \"Ops webhook\" (type webhook)")).toMatch(
        /^its receiver reads Kuma's body/
      )
      expect(reasonOf(skipped, "tag 1 \"production\"")).toBe("tags have no counterpart here (it is on 3 monitors)")
      expect(reasonOf(skipped, "heartbeat (4 rows)")).toMatch(/^check history is not imported/)
    }))
})

describe("readUptimeKuma: the file", () => {
  it.effect("reads a running Kuma's writes still in its log, and writes nothing beside a stopped one's", () =>
    withDatabase(null, (path) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(monday)
        yield* readUptimeKuma(path)
        expect(existsSync(`${path}-shm`)).toBe(false)
        expect(existsSync(`${path}-wal`)).toBe(false)
        // Kuma, running: its last write is in the log until a checkpoint, which it holds off here.
        const name = yield* Effect.acquireUseRelease(
          Effect.sync(() => new DatabaseSync(path)),
          (kuma) =>
            Effect.gen(function*() {
              kuma.exec("PRAGMA wal_autocheckpoint = 0")
              kuma.prepare("UPDATE monitor SET name = 'Acme site' WHERE id = 2").run()
              expect(statSync(`${path}-wal`).size).toBeGreaterThan(0)
              const result = yield* readUptimeKuma(path)
              return result.bundle.configuration.components?.find((entry) => entry.key === monitor(2))?.name
            }),
          (kuma) => Effect.sync(() => kuma.close())
        )
        expect(name).toBe("Acme site")
      })))
})

describe("readUptimeKuma: what else Kuma's monitors hold", () => {
  /** Monitors added to a copy of the fixture, by name; each test reads its own copy. */
  const addMonitors = (ids: Record<string, number>) => (database: DatabaseSync) => {
    const add = (name: string, values: Record<string, SQLInputValue>) => {
      ids[name] = insert(database, "monitor", { name, user_id: 1, interval: 60, ...values })
    }
    add("Login API", {
      type: "http",
      url: "https://login.example.test/api",
      method: "POST",
      body: "user=probe",
      http_body_encoding: "form",
      headers: JSON.stringify({ "X-Probe": "kuma" }),
      auth_method: "basic",
      basic_auth_user: "probe",
      basic_auth_pass: "s3cret",
      ignore_tls: 1,
      interval: 5,
      timeout: 90,
      maxretries: 20
    })
    add("Status JSON", {
      type: "json-query",
      url: "https://api.example.test/status",
      json_path: "data.items[0].`state name`",
      json_path_operator: "!=",
      expected_value: "200"
    })
    add("Version", {
      type: "json-query",
      url: "https://api.example.test/version",
      json_path: "$.version",
      json_path_operator: "==",
      expected_value: "2"
    })
    add("Queue size", {
      type: "json-query",
      url: "https://api.example.test/queue",
      json_path: "$count(items)",
      json_path_operator: "<",
      expected_value: "100"
    })
    add("Latency", {
      type: "json-query",
      url: "https://api.example.test/latency",
      json_path: "$.ms",
      json_path_operator: ">=",
      expected_value: "5"
    })
    add("Inverted", { type: "http", url: "https://example.test/", upside_down: 1 })
    add("Deploy hook", { type: "http", url: "https://example.test/deploy", method: "PUT" })
    add("Containers", { type: "docker", docker_container: "web" })
    add("Error page", {
      type: "keyword",
      url: "https://example.test/",
      keyword: "error",
      invert_keyword: 1,
      body: "{\"a\": 1}"
    })
    add("CAA record", { type: "dns", hostname: "example.test", dns_resolve_type: "CAA" })
    add("Mail exchanger", {
      type: "dns",
      hostname: "Example.TEST",
      dns_resolve_type: "MX",
      conditions: JSON.stringify([
        { type: "expression", variable: "record", operator: "equals", value: "mx.example.test", andOr: "and" }
      ])
    })
    add("Short token", { type: "push", push_token: "abc" })
    add("Accounts DB", {
      type: "mysql",
      database_connection_string: "mysql://app:p%40ss@db.example.test:3306/accounts?ssl=true",
      database_query: "SELECT count(*) FROM users"
    })
    add("Broker WS", { type: "mqtt", hostname: "ws://broker.example.test", port: 80 })
    add("Secure broker", {
      type: "mqtt",
      hostname: "mqtts://broker.example.test",
      port: 8883,
      mqtt_username: "probe",
      mqtt_password: "pw",
      mqtt_topic: "health"
    })
    add("Echo gRPC", {
      type: "grpc-keyword",
      grpc_url: "127.0.0.1:50051",
      grpc_service_name: "echo.Echo",
      grpc_method: "Say"
    })
    add("Health gRPC", {
      type: "grpc-keyword",
      grpc_url: "api.example.test:443",
      grpc_enable_tls: 1,
      grpc_service_name: "grpc.health.v1.Health",
      grpc_method: "check",
      keyword: "NOT_SERVING",
      invert_keyword: 1,
      grpc_body: JSON.stringify({ service: "inventory" })
    })
    add("Manual", { type: "manual", manual_status: 0 })
    add("OAuth API", { type: "http", url: "https://example.test/", auth_method: "oauth2-cc" })
    add("Local port", { type: "port", hostname: "::1", port: 8080 })
  }

  it.effect("maps each type's settings, and notes what it drops", () =>
    Effect.gen(function*() {
      const ids: Record<string, number> = {}
      const { bundle, skipped } = yield* read(addMonitors(ids))
      const monitors = bundle.configuration.monitors
      const of = (name: string) => byKey(monitors, monitor(ids[name]!))
      const note = (name: string, column: string) =>
        reasonOf(skipped, `monitor ${ids[name]} ${JSON.stringify(name)}: ${column}`)

      expect(of("Login API")).toEqual({
        key: monitor(ids["Login API"]!),
        component: monitor(ids["Login API"]!),
        type: "http",
        url: "https://login.example.test/api",
        method: "POST",
        headers: {
          Authorization: "Basic cHJvYmU6czNjcmV0",
          "X-Probe": "kuma",
          "Content-Type": "application/x-www-form-urlencoded"
        },
        body: "user=probe",
        expectedStatusCodes: ["200-299"],
        // 5 s is below our 10 s; 90 s cannot end within 10 s: Kuma's 80% of it.
        intervalSeconds: 10,
        timeoutMs: 8000,
        failureThreshold: 10
      })
      expect(note("Login API", "ignore_tls")).toMatch(/^has no counterpart: our http check verifies the certificate/)
      expect(note("Login API", "interval")).toBe("5 s is outside our 10 s to 24 h: checked every 10 s")
      expect(note("Login API", "maxretries")).toBe("20 retries is more than ours: down after 10 failed checks")
      expect(note("Login API", "timeout")).toBe("90 s does not end within the 10 s interval: 8 s, 80% of it")

      // Kuma compares text: != 200 holds when the value is neither the number nor the string.
      expect(of("Status JSON")!.assertions).toEqual([
        { path: "$.data.items[0]['state name']", op: "!=", value: "200" },
        { path: "$.data.items[0]['state name']", op: "!=", value: 200 }
      ])
      expect(of("Version")!.assertions).toEqual([{ path: "$.version", op: "matches", value: "^2$" }])
      expect(of("Queue size")!.assertions).toBeUndefined()
      expect(note("Queue size", "json_path")).toBe(
        "not imported, its JSONata expression \"$count(items)\" is more than a path of names and [index] steps, " +
          "which is what our assertions take: only the status is checked"
      )
      expect(of("Latency")!.assertions).toBeUndefined()
      expect(note("Latency", "json_path")).toMatch(/its operator >= has no counterpart/)

      expect(of("Error page")).toMatchObject({ method: "GET", bodyNotContains: "error" })
      expect(of("Error page")!.body).toBeUndefined()
      expect(note("Error page", "body")).toBe("is sent with POST only here; Kuma sent it with GET: left out")

      expect(of("Mail exchanger")).toMatchObject({
        type: "dns",
        url: "example.test",
        dnsRecordType: "MX",
        dnsExpectedValues: ["mx.example.test"]
      })
      expect(of("Short token")).toMatchObject({ type: "push" })
      expect(of("Short token")!.pushToken).toBeUndefined()
      expect(note("Short token", "push_token")).toMatch(/the service makes a new one, so the job's URL changes$/)

      expect(of("Accounts DB")).toMatchObject({
        type: "mysql",
        url: "mysql://app@db.example.test:3306/accounts",
        password: "p@ss"
      })
      expect(note("Accounts DB", "database_connection_string")).toBe(
        "its parameters (ssl) are left out: our mysql check takes none"
      )
      expect(note("Accounts DB", "database_query")).toBe("has no counterpart: our mysql check runs SELECT 1")
      expect(of("Secure broker")).toMatchObject({
        type: "mqtt",
        url: "mqtts://probe@broker.example.test:8883",
        password: "pw"
      })
      expect(of("Health gRPC")).toMatchObject({
        type: "grpc",
        url: "grpcs://api.example.test:443",
        grpcService: "inventory"
      })
      expect(of("Local port")).toMatchObject({ type: "tcp", url: "tcp://[::1]:8080" })

      // A manual monitor: a component whose status is set by hand, and its Kuma status.
      expect(of("Manual")).toBeUndefined()
      expect(byKey(bundle.configuration.components, monitor(ids.Manual!))).toEqual({
        key: monitor(ids.Manual!),
        name: "Manual",
        isPublic: false
      })
      expect(bundle.componentStatuses).toEqual({ [monitor(ids.Manual!)]: "major_outage" })

      const reason = (name: string, type: string) =>
        reasonOf(skipped, `monitor ${ids[name]} ${JSON.stringify(name)} (type ${type})`)
      for (
        const [name, type] of [
          ["Inverted", "http"],
          ["Deploy hook", "http"],
          ["Containers", "docker"],
          ["CAA record", "dns"],
          ["Broker WS", "mqtt"],
          ["Echo gRPC", "grpc-keyword"],
          ["OAuth API", "http"]
        ] as const
      ) {
        expect(of(name)).toBeUndefined()
        expect(byKey(bundle.configuration.components, monitor(ids[name]!))).toBeUndefined()
        expect(reason(name, type)).toBeDefined()
      }
      expect(reason("Inverted", "http")).toBe("upside-down mode (up when the check fails) has no counterpart here")
      expect(reason("Deploy hook", "http")).toBe("it sends PUT: our http check sends GET, HEAD or POST")
      expect(reason("Containers", "docker")).toBe("it asks a Docker host about a container, which probes do not reach")
      expect(reason("CAA record", "dns")).toBe(
        "it resolves CAA records; our dns check resolves A, AAAA, CNAME, MX, TXT or NS"
      )
      expect(reason("Broker WS", "mqtt")).toBe("it connects over WebSocket; our mqtt check speaks MQTT over TCP")
      expect(reason("Echo gRPC", "grpc-keyword")).toMatch(
        /^it calls echo\.Echo\/Say; our grpc check calls the standard health check/
      )
      expect(reason("OAuth API", "http")).toMatch(/^it signs in with oauth2-cc \(OAuth 2 client credentials\)/)
    }))

  it.effect("joins a monitor on no page to its group monitor's group, and lists a monitor two sections show on its own", () =>
    Effect.gen(function*() {
      let edge = 0
      let checkoutSection = 0
      const { bundle, skipped } = yield* read((database) => {
        edge = insert(database, "monitor", { name: "Edge", type: "group", user_id: 1, description: "Network edge" })
        database.prepare("UPDATE monitor SET parent = ? WHERE id = 6").run(edge)
        // The internal page shows the Checkout group monitor too: its two children are already in Services.
        checkoutSection = insert(database, "group", { name: "Checkout", public: 1, weight: 2, status_page_id: 2 })
        insert(database, "monitor_group", { monitor_id: 1, group_id: checkoutSection, weight: 1 })
        insert(database, "status_page_cname", { status_page_id: 1, domain: "Status.Acme.test" })
        insert(database, "status_page_cname", { status_page_id: 1, domain: "status2.acme.test" })
        insert(database, "status_page", { slug: "Bad slug!", title: "Bad", icon: "/icon.svg", theme: "auto" })
      })
      expect(byKey(bundle.configuration.groups, monitor(edge))).toEqual({
        key: monitor(edge),
        name: "Edge",
        description: "Network edge",
        isPublic: false
      })
      expect(byKey(bundle.configuration.components, monitor(6))).toMatchObject({
        group: monitor(edge),
        isPublic: false
      })
      expect(byKey(bundle.configuration.groups, section(checkoutSection))).toBeUndefined()
      expect(bundle.configuration.pages.map((page: any) => [page.slug, page.domain, page.items])).toEqual([
        ["acme", "status.acme.test", [{ type: "group", key: section(1) }, { type: "group", key: section(2) }]],
        ["internal", undefined, [
          { type: "group", key: section(3) },
          { type: "component", key: monitor(3) },
          { type: "component", key: monitor(4) }
        ]]
      ])
      expect(reasonOf(skipped, `status page section ${checkoutSection} "Checkout"`)).toBe(
        "every monitor in it is in an earlier section's group: the page lists them on their own"
      )
      expect(reasonOf(skipped, "status page 1 \"acme\": domain \"status2.acme.test\"")).toBe(
        "a page here has one domain"
      )
      expect(reasonOf(skipped, "status page 3 \"bad slug!\"")).toMatch(/^it would be refused: slug: /)
      // The incident of acme now also names nothing more: its page's components are the same.
      expect(bundle.incidents[0].components).toEqual([monitor(2), monitor(3), monitor(4), monitor(5), monitor(7)])
    }))

  it.effect("maps a pinned incident's style to a severity, and leaves out one no longer pinned", () =>
    Effect.gen(function*() {
      const { bundle, skipped } = yield* read((database) => {
        insert(database, "incident", {
          title: "Database down",
          content: "",
          style: "danger",
          created_date: "2026-11-29 10:00:00",
          pin: 1,
          status_page_id: 2
        })
        insert(database, "incident", { title: "Old news", content: "Fixed.", style: "info", pin: 0, status_page_id: 1 })
      })
      expect(byKey(bundle.incidents, "uptime-kuma/incident/2")).toEqual({
        key: "uptime-kuma/incident/2",
        title: "Database down",
        severity: "major",
        components: [monitor(9), monitor(10), monitor(8)],
        // No content: the title is its message.
        updates: [{ status: "investigating", message: "Database down", createdAt: "2026-11-29T10:00:00.000Z" }]
      })
      expect(byKey(bundle.incidents, "uptime-kuma/incident/3")).toBeUndefined()
      expect(reasonOf(skipped, "incident 3 \"Old news\"")).toBe(
        "it is no longer pinned on its page: Kuma shows it no more, and keeps no timeline of it"
      )
    }))

  it.effect("makes Slack and PagerDuty notifications webhooks told of their monitors' events", () =>
    Effect.gen(function*() {
      const { bundle, skipped } = yield* read((database) => {
        const slack = insert(database, "notification", {
          name: "Ops Slack",
          active: 1,
          user_id: 1,
          config: JSON.stringify({ type: "slack", slackwebhookURL: "https://hooks.slack.example.test/T1/B2/x" })
        })
        const pager = insert(database, "notification", {
          name: "On call",
          active: 0,
          user_id: 1,
          config: JSON.stringify({ type: "PagerDuty", pagerdutyIntegrationKey: "0123456789abcdef0123456789abcdef" })
        })
        insert(database, "notification", {
          name: "Unused",
          user_id: 1,
          config: JSON.stringify({ type: "discord", discordWebhookUrl: "https://discord.example.test/api/webhooks/1" })
        })
        for (const monitorId of [5, 2]) {
          insert(database, "monitor_notification", { monitor_id: monitorId, notification_id: slack })
        }
        insert(database, "monitor_notification", { monitor_id: 9, notification_id: pager })
      })
      expect(bundle.configuration.webhooks).toEqual([
        {
          key: "uptime-kuma/notification/2",
          name: "Ops Slack",
          url: "https://hooks.slack.example.test/T1/B2/x",
          type: "chat_a",
          isActive: true,
          notifyOnIncident: false,
          notifyOnMaintenance: false,
          notifyOnComponentChange: false,
          notifyOnMonitor: true,
          components: [monitor(2), monitor(5)]
        },
        {
          key: "uptime-kuma/notification/3",
          name: "On call",
          url: "https://events.pagerduty.com/v2/enqueue",
          type: "pagerduty",
          isActive: false,
          notifyOnIncident: false,
          notifyOnMaintenance: false,
          notifyOnComponentChange: false,
          notifyOnMonitor: true,
          integrationKey: "0123456789abcdef0123456789abcdef",
          components: [monitor(9)]
        }
      ])
      expect(reasonOf(skipped, "notification 4 \"Unused\" (type discord)")).toBe("no imported monitor uses it")
    }))
})

describe("readUptimeKuma: maintenance strategies", () => {
  it.effect("reads weekday, day-of-month, interval and cron series, and leaves out what has no window to come", () =>
    Effect.gen(function*() {
      const { bundle, skipped } = yield* read((database) => {
        database.prepare("INSERT INTO setting (key, value) VALUES ('serverTimezone', '\"Asia/Tokyo\"')").run()
        const add = (values: Record<string, SQLInputValue>) =>
          insert(database, "maintenance", { description: "", user_id: 1, active: 1, ...values })
        // 3: Mondays and Fridays 22:30–01:30 New York time, until the end of January.
        add({
          title: "Night shift",
          strategy: "recurring-weekday",
          weekdays: "[5, 1]",
          start_time: "22:30",
          end_time: "01:30",
          end_date: "2027-01-31 00:00",
          timezone: "America/New_York"
        })
        // 4: the 15th and the 31st (and the month's last day, which ours cannot say).
        add({
          title: "Billing run",
          strategy: "recurring-day-of-month",
          days_of_month: "[31, 15, \"lastDay1\"]",
          start_time: "01:00",
          end_time: "02:00",
          timezone: "UTC"
        })
        // 5: every third day from 1 November, at 04:00 in the server's zone (Tokyo).
        add({
          title: "Backups",
          strategy: "recurring-interval",
          interval_day: 3,
          start_date: "2026-11-01 00:00",
          start_time: "04:00",
          end_time: "05:00",
          timezone: "SAME_AS_SERVER"
        })
        // 6: cron, Sundays 02:30 for half an hour.
        add({ title: "Sunday cron", strategy: "cron", cron: "30 2 * * 0", duration: 1800, timezone: "UTC" })
        add({ title: "Every five minutes", strategy: "cron", cron: "*/5 * * * *", duration: 60, timezone: "UTC" })
        add({ title: "By hand", strategy: "manual" })
        add({
          title: "Paused",
          strategy: "single",
          active: 0,
          start_date: "2027-01-01 00:00",
          end_date: "2027-01-01 01:00"
        })
        add({
          title: "Finished series",
          strategy: "recurring-weekday",
          weekdays: "[3]",
          start_time: "01:00",
          end_time: "02:00",
          end_date: "2026-06-01 00:00",
          timezone: "UTC"
        })
      })
      const fixtureKeys = ["uptime-kuma/maintenance/1", "uptime-kuma/maintenance/2/tue"]
      const entries = bundle.configuration.maintenance.filter((entry: any) => !fixtureKeys.includes(entry.key))
      expect(entries.map((entry: any) => [entry.key, entry.scheduledStart, entry.scheduledEnd, entry.recurrence]))
        .toEqual([
          // Monday 30 November 22:30 EST is 03:30 UTC on Tuesday; the window crosses midnight (3 hours).
          ["uptime-kuma/maintenance/3/mon", "2026-12-01T03:30:00.000Z", "2026-12-01T06:30:00.000Z", {
            frequency: "weekly",
            interval: 1,
            until: "2027-01-31T05:00:00.000Z"
          }],
          ["uptime-kuma/maintenance/3/fri", "2026-12-05T03:30:00.000Z", "2026-12-05T06:30:00.000Z", {
            frequency: "weekly",
            interval: 1,
            until: "2027-01-31T05:00:00.000Z"
          }],
          ["uptime-kuma/maintenance/4/day-15", "2026-12-15T01:00:00.000Z", "2026-12-15T02:00:00.000Z", {
            frequency: "monthly",
            interval: 1
          }],
          ["uptime-kuma/maintenance/4/day-31", "2026-12-31T01:00:00.000Z", "2026-12-31T02:00:00.000Z", {
            frequency: "monthly",
            interval: 1
          }],
          // 1, 4, … 28 November, then 1 December at 04:00 in Tokyo (19:00 UTC the day before).
          ["uptime-kuma/maintenance/5", "2026-11-30T19:00:00.000Z", "2026-11-30T20:00:00.000Z", {
            frequency: "daily",
            interval: 3
          }],
          ["uptime-kuma/maintenance/6/sun", "2026-12-06T02:30:00.000Z", "2026-12-06T03:00:00.000Z", {
            frequency: "weekly",
            interval: 1
          }]
        ])
      expect(entries.every((entry: any) => entry.components === undefined)).toBe(true)
      expect(reasonOf(skipped, "maintenance 3 \"Night shift\": monitors")).toBe(
        "it names no imported monitor: the window names no component, so it shows on the default page only"
      )
      expect(reasonOf(skipped, "maintenance 4 \"Billing run\": days_of_month")).toBe(
        "lastDay1 left out: ours repeat on a day of the month, not counted from its end"
      )
      expect(reasonOf(skipped, "maintenance 4 \"Billing run\" (day-31)")).toBe(
        "in a month without day 31 it falls on the month's last day here; Kuma skipped such months"
      )
      expect(reasonOf(skipped, "maintenance 7 \"Every five minutes\"")).toMatch(
        /^its cron "\*\/5 \* \* \* \*" is not one time a day/
      )
      expect(reasonOf(skipped, "maintenance 8 \"By hand\"")).toMatch(/^it is switched on and off by hand in Kuma/)
      expect(reasonOf(skipped, "maintenance 9 \"Paused\"")).toBe("it is paused in Kuma")
      expect(reasonOf(skipped, "maintenance 10 \"Finished series\" (wed)")).toBe(
        "its windows are over: only windows to come are imported"
      )
    }))
})

describe("readUptimeKuma: what it refuses", () => {
  const refusal = (source: (path: string) => Promise<void>, alter: ((database: DatabaseSync) => void) | null = null) =>
    withDatabase(alter, (path) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(readUptimeKuma(path))
        return { error, path }
      }), source)

  it.effect("a file that is not SQLite", () =>
    Effect.gen(function*() {
      const { error, path } = yield* refusal((path) => writeFile(path, "name,url\nsite,https://example.test\n"))
      expect(error._tag).toBe("ImportSourceError")
      expect(error.message).toBe(`${path}: is not an SQLite database (file is not a database)`)
    }))

  it.effect("an SQLite database without Kuma's tables", () =>
    Effect.gen(function*() {
      const { error, path } = yield* refusal(
        async () => {},
        (database) => database.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
      )
      expect(error.message).toBe(`${path}: is an SQLite database, but not Uptime Kuma's: it has no monitor table`)
    }))

  it.effect("a file that is not there", () =>
    Effect.gen(function*() {
      const path = join(tmpdir(), "uptime-kuma-missing", "kuma.db")
      const error = yield* Effect.flip(readUptimeKuma(path))
      expect(error.message).toBe(`${path}: cannot be opened (unable to open database file)`)
    }))

  it.effect("a monitor whose JSON column is not JSON, naming it", () =>
    Effect.gen(function*() {
      const { error, path } = yield* refusal(
        (path) => copyFile(fixture, path),
        (database) =>
          database.prepare("UPDATE monitor SET accepted_statuscodes_json = '[\"200-299\"' WHERE id = 3").run()
      )
      expect(error.message).toBe(`${path}: monitor 3 "Public API": accepted_statuscodes_json is not JSON`)
    }))

  it.effect("a notification whose config is not JSON, naming it", () =>
    Effect.gen(function*() {
      const { error, path } = yield* refusal(
        (path) => copyFile(fixture, path),
        (database) => database.prepare("UPDATE notification SET config = '{\"type\": \"webhook\"' WHERE id = 1").run()
      )
      expect(error.message).toBe(`${path}: notification 1 "Ops webhook": config is not JSON`)
    }))
})

/**
 * The monitor fields that say more than up or down, over the real API and database: quorum,
 * degradedAboveMs, the http request and its expectations, dns monitors. Header values are
 * masked in every answer and kept by an update that sends the mask; the jobs the real scheduler
 * publishes carry the fields (with the real header values).
 */
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

import type { CheckJob } from "../../src/domain/CheckJob.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { eventually, stepUntil } from "../support/Eventually.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

/** The stored header values, read behind the API (which never answers them). */
const storedHeaders = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ headers: unknown }>`select headers from monitors where id = ${id}`)
    .pipe(Effect.map((rows) => rows[0]?.headers))

/** The real CheckScheduler on the TestClock, publishing to an in-process transport that records every job. */
const startScheduler = Effect.gen(function*() {
  const inner = yield* InProcessJobTransport.make()
  const jobs: Array<CheckJob> = []
  const transport = JobTransport.of({
    ...inner,
    publishRuns: (runs) =>
      Effect.suspend(() => {
        for (const run of runs) jobs.push(run.template.job(run.scheduledAt))
        return inner.publishRuns(runs)
      })
  })
  yield* Layer.buildWithScope(
    Layer.fresh(CheckScheduler.pipe(Layer.provide(Layer.succeed(JobTransport, transport)))),
    yield* Effect.scope
  )
  return { jobsOf: (monitorId: string) => jobs.filter((job) => job.monitorId === monitorId) }
})

it.layer(TestServer(), { timeout: "120 seconds" })("monitor checks", (it) => {
  const component = Effect.flatMap(ApiClient, (client) => client.components.create({ payload: { name: "Checked" } }))

  it.effect("defaults keep a monitor as it was: majority, never degraded, a GET expecting 200", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component
      const http = yield* client.monitors.create({ payload: { componentId, type: "http", url: "https://a.example" } })
      expect(http).toMatchObject({
        quorum: "majority",
        degradedAboveMs: null,
        method: "GET",
        headers: null,
        body: null,
        expectedStatusCode: 200,
        expectedStatusCodes: ["200"],
        bodyContains: null,
        bodyNotContains: null,
        assertions: null,
        dnsRecordType: null,
        dnsExpectedValues: null,
        state: "unknown",
        reportingRegions: []
      })
      const tcp = yield* client.monitors.create({ payload: { componentId, type: "tcp", url: "a.example:22" } })
      expect(tcp).toMatchObject({
        method: null,
        expectedStatusCode: null,
        expectedStatusCodes: null,
        dnsRecordType: null
      })
    }))

  it.effect("stores an http check's request and expectations; header values are masked and kept on \"********\"", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component
      const created = yield* client.monitors.create({
        payload: {
          componentId,
          type: "http",
          url: "https://api.example/health",
          quorum: 2,
          regions: ["eu-west", "us-east", "ap-south"],
          degradedAboveMs: 800,
          method: "POST",
          headers: { Authorization: "Bearer s3cret", "X-Probe": "yes" },
          body: "{\"ping\":true}",
          expectedStatusCodes: ["200-299", "304"],
          bodyContains: "\"ok\"",
          bodyNotContains: "error"
        }
      })
      expect(created).toMatchObject({
        quorum: 2,
        degradedAboveMs: 800,
        method: "POST",
        headers: { Authorization: "********", "X-Probe": "********" },
        body: "{\"ping\":true}",
        expectedStatusCodes: ["200-299", "304"],
        expectedStatusCode: null,
        bodyContains: "\"ok\"",
        bodyNotContains: "error"
      })
      expect(yield* storedHeaders(created.id)).toEqual({ Authorization: "Bearer s3cret", "X-Probe": "yes" })
      const listed = (yield* client.monitors.list({ query: {} })).find((m) => m.id === created.id)
      expect(listed?.headers).toEqual({ Authorization: "********", "X-Probe": "********" })
      const raw = yield* sendJson("GET", "/api/v1/admin/monitors")
      expect(JSON.stringify(raw.body)).not.toContain("s3cret")

      // The mask keeps a value (its name compared case-insensitively); a new value replaces; a left-out name goes.
      const updated = yield* client.monitors.update({
        params: { id: created.id },
        payload: { headers: { authorization: "********", "X-Trace": "1" } }
      })
      expect(updated.headers).toEqual({ authorization: "********", "X-Trace": "********" })
      expect(yield* storedHeaders(created.id)).toEqual({ authorization: "Bearer s3cret", "X-Trace": "1" })
      // An update without headers leaves them alone; null removes them.
      yield* client.monitors.update({ params: { id: created.id }, payload: { degradedAboveMs: null } })
      expect(yield* storedHeaders(created.id)).toEqual({ authorization: "Bearer s3cret", "X-Trace": "1" })
      // Kept for the same host only: a target on another host needs the values given again.
      for (const headers of [undefined, { authorization: "********" }]) {
        const elsewhere = yield* sendJson("PUT", `/api/v1/admin/monitors/${created.id}`, {
          url: "https://attacker.example/health",
          ...(headers === undefined ? {} : { headers })
        })
        expect(elsewhere).toMatchObject({ status: 400, body: { issues: [{ path: ["headers"] }] } })
      }
      const samePath = yield* sendJson("PUT", `/api/v1/admin/monitors/${created.id}`, {
        url: "https://api.example/other"
      })
      expect(samePath.status).toBe(200)
      const cleared = yield* client.monitors.update({ params: { id: created.id }, payload: { headers: null } })
      expect(cleared).toMatchObject({ headers: null, degradedAboveMs: null })
      // The mask names a header that has no stored value: refused, nothing changes.
      const unknown = yield* sendJson("PUT", `/api/v1/admin/monitors/${created.id}`, {
        headers: { "X-New": "********" }
      })
      expect(unknown.status).toBe(400)
      expect(unknown.body).toMatchObject({ _tag: "BadRequest", issues: [{ path: ["headers", "X-New"] }] })
    }))

  it.effect("expectedStatusCode keeps working and mirrors a list of one code", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component
      const monitor = yield* client.monitors.create({
        payload: { componentId, type: "http", url: "https://b.example", expectedStatusCode: 204 }
      })
      expect(monitor).toMatchObject({ expectedStatusCode: 204, expectedStatusCodes: ["204"] })
      const ranged = yield* client.monitors.update({
        params: { id: monitor.id },
        payload: { expectedStatusCodes: ["200-299"] }
      })
      expect(ranged).toMatchObject({ expectedStatusCode: null, expectedStatusCodes: ["200-299"] })
      const single = yield* client.monitors.update({ params: { id: monitor.id }, payload: { expectedStatusCode: 301 } })
      expect(single).toMatchObject({ expectedStatusCode: 301, expectedStatusCodes: ["301"] })
      const both = yield* sendJson("PUT", `/api/v1/admin/monitors/${monitor.id}`, {
        expectedStatusCode: 200,
        expectedStatusCodes: ["200"]
      })
      expect(both.status).toBe(400)
      expect(both.body).toMatchObject({ _tag: "BadRequest", issues: [{ path: ["expectedStatusCodes"] }] })
    }))

  it.effect("a dns monitor resolves a bare host name; a type change resets the fields of a type", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component
      const dns = yield* client.monitors.create({
        payload: { componentId, type: "dns", url: "dns://Mail.Example.COM." }
      })
      expect(dns).toMatchObject({
        url: "mail.example.com",
        dnsRecordType: "A",
        dnsExpectedValues: null,
        method: null,
        expectedStatusCode: null,
        expectedStatusCodes: null
      })
      const mx = yield* client.monitors.update({
        params: { id: dns.id },
        payload: { dnsRecordType: "MX", dnsExpectedValues: ["mx1.example.com."], url: "_dmarc.example.com" }
      })
      expect(mx).toMatchObject({
        url: "_dmarc.example.com",
        dnsRecordType: "MX",
        dnsExpectedValues: ["mx1.example.com."]
      })

      const http = yield* client.monitors.update({
        params: { id: dns.id },
        payload: { type: "http", url: "https://example.com", headers: { "X-Key": "k" } }
      })
      expect(http).toMatchObject({
        dnsRecordType: null,
        dnsExpectedValues: null,
        method: "GET",
        expectedStatusCodes: ["200"],
        headers: { "X-Key": "********" }
      })
      const tcp = yield* client.monitors.update({
        params: { id: dns.id },
        payload: { type: "tcp", url: "example.com:25" }
      })
      expect(tcp).toMatchObject({ method: null, headers: null, expectedStatusCodes: null, expectedStatusCode: null })
      expect(yield* storedHeaders(dns.id)).toBeNull()
    }))

  it.effect("refuses every invalid check field with 400 naming it", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component
      const base = { componentId, type: "http", url: "https://example.com" }
      const dns = { componentId, type: "dns", url: "example.com" }
      const manyHeaders = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, "v"]))
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, ReadonlyArray<string | number>]> = [
        ["quorum zero", { ...base, quorum: 0 }, ["quorum"]],
        ["quorum fraction", { ...base, quorum: 1.5 }, ["quorum"]],
        ["quorum word", { ...base, quorum: "most" }, ["quorum"]],
        ["quorum above the regions", { ...base, quorum: 3, regions: ["eu", "us"] }, ["quorum"]],
        ["degraded zero", { ...base, degradedAboveMs: 0 }, ["degradedAboveMs"]],
        ["degraded above a minute", { ...base, degradedAboveMs: 60001 }, ["degradedAboveMs"]],
        ["unknown method", { ...base, method: "PUT" }, ["method"]],
        ["body with GET", { ...base, body: "x" }, ["body"]],
        ["body too long", { ...base, method: "POST", body: "x".repeat(65537) }, ["body"]],
        ["body text on HEAD", { ...base, method: "HEAD", bodyContains: "ok" }, ["bodyContains"]],
        ["empty body text", { ...base, bodyNotContains: "" }, ["bodyNotContains"]],
        ["body text too long", { ...base, bodyContains: "x".repeat(1025) }, ["bodyContains"]],
        ["Host header", { ...base, headers: { Host: "other.example" } }, ["headers", "Host"]],
        ["Content-Length header", { ...base, headers: { "content-length": "1" } }, ["headers", "content-length"]],
        ["header name with a space", { ...base, headers: { "X Y": "v" } }, ["headers", "X Y"]],
        ["header value with CRLF", { ...base, headers: { "X-A": "v\r\nX-B: w" } }, ["headers", "X-A"]],
        ["header value too long", { ...base, headers: { "X-A": "v".repeat(1025) } }, ["headers", "X-A"]],
        ["header repeated in another case", { ...base, headers: { "X-A": "1", "x-a": "2" } }, ["headers", "x-a"]],
        ["21 headers", { ...base, headers: manyHeaders }, ["headers"]],
        ["mask on creation", { ...base, headers: { "X-A": "********" } }, ["headers", "X-A"]],
        ["no status codes", { ...base, expectedStatusCodes: [] }, ["expectedStatusCodes"]],
        ["status code 99", { ...base, expectedStatusCodes: ["99"] }, ["expectedStatusCodes", 0]],
        ["status code 600", { ...base, expectedStatusCodes: ["200", "600"] }, ["expectedStatusCodes", 1]],
        ["backwards range", { ...base, expectedStatusCodes: ["299-200"] }, ["expectedStatusCodes", 0]],
        ["wildcard", { ...base, expectedStatusCodes: ["2xx"] }, ["expectedStatusCodes", 0]],
        ["a number, not a string", { ...base, expectedStatusCodes: [200] }, ["expectedStatusCodes", 0]],
        ["method for tcp", { componentId, type: "tcp", url: "a.example:1", method: "GET" }, ["method"]],
        ["status codes for dns", { ...dns, expectedStatusCodes: ["200"] }, ["expectedStatusCodes"]],
        ["record type for http", { ...base, dnsRecordType: "A" }, ["dnsRecordType"]],
        ["unknown record type", { ...dns, dnsRecordType: "SRV" }, ["dnsRecordType"]],
        ["no expected values", { ...dns, dnsExpectedValues: [] }, ["dnsExpectedValues"]],
        ["A record expecting a name", { ...dns, dnsExpectedValues: ["192.0.2.1", "mail.example"] }, [
          "dnsExpectedValues",
          1
        ]],
        ["A record expecting an IPv6 address", { ...dns, dnsExpectedValues: ["2001:db8::1"] }, [
          "dnsExpectedValues",
          0
        ]],
        ["A record with an octet over 255", { ...dns, dnsExpectedValues: ["192.0.2.256"] }, ["dnsExpectedValues", 0]],
        ["AAAA record expecting IPv4", { ...dns, dnsRecordType: "AAAA", dnsExpectedValues: ["192.0.2.1"] }, [
          "dnsExpectedValues",
          0
        ]],
        ["AAAA record with a zone", { ...dns, dnsRecordType: "AAAA", dnsExpectedValues: ["fe80::1%eth0"] }, [
          "dnsExpectedValues",
          0
        ]],
        ["dns name with a path", { ...dns, url: "dns://example.com/x" }, ["url"]],
        ["dns name with a port", { ...dns, url: "example.com:53" }, ["url"]],
        ["dns name as an http URL", { ...dns, url: "https://example.com" }, ["url"]],
        ["dns address", { ...dns, url: "10.0.0.1" }, ["url"]],
        ["dns name with a space", { ...dns, url: "exa mple.com" }, ["url"]]
      ]
      for (const [label, body, path] of cases) {
        const response = yield* sendJson("POST", "/api/v1/admin/monitors", body)
        expect(response.status, label).toBe(400)
        expect(response.body.issues, label).toEqual(
          expect.arrayContaining([expect.objectContaining({ path })])
        )
      }
      // Any integer quorum when the monitor is for every region; fewer regions than it later is refused.
      const monitor = yield* client.monitors.create({ payload: { ...base, type: "http", quorum: 5 } })
      expect(monitor.quorum).toBe(5)
      const fewer = yield* sendJson("PUT", `/api/v1/admin/monitors/${monitor.id}`, { regions: ["eu", "us"] })
      expect(fewer.status).toBe(400)
      expect(fewer.body).toMatchObject({ _tag: "BadRequest", issues: [{ path: ["quorum"] }] })
      // Switching from POST back to GET takes the body with it, or is refused.
      const post = yield* client.monitors.update({
        params: { id: monitor.id },
        payload: { method: "POST", body: "x", quorum: "any" }
      })
      expect(post).toMatchObject({ method: "POST", body: "x", quorum: "any" })
      const getWithBody = yield* sendJson("PUT", `/api/v1/admin/monitors/${monitor.id}`, { method: "GET" })
      expect(getWithBody.body).toMatchObject({ _tag: "BadRequest", issues: [{ path: ["body"] }] })
      expect(yield* client.monitors.update({ params: { id: monitor.id }, payload: { method: "GET", body: null } }))
        .toMatchObject({ method: "GET", body: null })
    }))

  it.effect("the scheduler's jobs carry the check fields with the real header values; an edit reschedules", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component
      const http = yield* client.monitors.create({
        payload: {
          componentId,
          type: "http",
          url: "http://127.0.0.1:9/health",
          intervalSeconds: 30,
          timeoutMs: 1000,
          method: "POST",
          headers: { Authorization: "Bearer s3cret" },
          body: "ping",
          expectedStatusCodes: ["200-299"],
          bodyContains: "pong"
        }
      })
      const dns = yield* client.monitors.create({
        payload: {
          componentId,
          type: "dns",
          url: "example.com",
          intervalSeconds: 30,
          timeoutMs: 1000,
          dnsRecordType: "TXT",
          dnsExpectedValues: ["v=spf1 -all"]
        }
      })
      const scheduler = yield* startScheduler
      yield* eventually(
        Effect.sync(() => scheduler.jobsOf(http.id).length + scheduler.jobsOf(dns.id).length),
        (n) => n >= 2,
        20_000
      )
      expect(scheduler.jobsOf(http.id)[0]).toMatchObject({
        type: "http",
        method: "POST",
        headers: { Authorization: "Bearer s3cret" },
        body: "ping",
        expectedStatusCodes: ["200-299"],
        bodyContains: "pong"
      })
      expect(scheduler.jobsOf(http.id)[0]?.bodyNotContains).toBeUndefined()
      expect(scheduler.jobsOf(dns.id)[0]).toMatchObject({
        type: "dns",
        url: "example.com",
        dnsRecordType: "TXT",
        dnsExpectedValues: ["v=spf1 -all"]
      })
      expect(scheduler.jobsOf(dns.id)[0]?.method).toBeUndefined()

      // A changed body, the header kept by its mask: published again at once with both.
      yield* client.monitors.update({
        params: { id: http.id },
        payload: { body: "ping 2", headers: { Authorization: "********" } }
      })
      const republished = () => scheduler.jobsOf(http.id).some((job) => job.body === "ping 2")
      expect(yield* stepUntil(republished)).toBe(true)
      expect(scheduler.jobsOf(http.id).find((job) => job.body === "ping 2")?.headers).toEqual({
        Authorization: "Bearer s3cret"
      })
    }))

  it.effect("stores an http monitor's JSON assertions, refuses bad ones naming them, and sends them in its jobs", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component
      const assertions = [
        { path: "$.status", op: "==", value: "ok" },
        { path: "/data/count", op: ">", value: 0 },
        { path: "$.version", op: "matches", value: "^2\\." },
        { path: "$.checks['db']", op: "!=", value: null },
        { path: "/error", op: "exists", value: false },
        { path: "/data/items/0", op: "exists" }
      ] as const
      const created = yield* client.monitors.create({
        payload: {
          componentId,
          type: "http",
          url: "http://127.0.0.1:9/health",
          intervalSeconds: 30,
          timeoutMs: 1000,
          assertions
        }
      })
      expect(created.assertions).toEqual(assertions)
      // The answer keeps an absent value absent, and null as null.
      const raw = yield* sendJson("GET", `/api/v1/admin/monitors/${created.id}`)
      expect(raw.body.assertions).toEqual(assertions)
      expect(raw.body.assertions[5]).not.toHaveProperty("value")
      expect(raw.body.assertions[3]).toHaveProperty("value", null)

      const scheduler = yield* startScheduler
      expect(yield* eventually(Effect.sync(() => scheduler.jobsOf(created.id)), (jobs) => jobs.length > 0, 20_000))
        .toEqual([expect.objectContaining({ type: "http", assertions })])
      // An update replaces the list (the job follows), null removes it, and a change of type drops it.
      const one = [{ path: "$.up", op: "==", value: true }] as const
      expect((yield* client.monitors.update({ params: { id: created.id }, payload: { assertions: one } })).assertions)
        .toEqual(one)
      expect(yield* stepUntil(() => scheduler.jobsOf(created.id).some((job) => job.assertions?.length === 1)))
        .toBe(true)
      expect((yield* client.monitors.update({ params: { id: created.id }, payload: { method: "POST" } })).assertions)
        .toEqual(one)
      expect((yield* client.monitors.update({ params: { id: created.id }, payload: { assertions: null } })).assertions)
        .toBeNull()
      yield* client.monitors.update({ params: { id: created.id }, payload: { assertions: one } })
      const tcp = yield* client.monitors.update({
        params: { id: created.id },
        payload: { type: "tcp", url: "127.0.0.1:9" }
      })
      expect(tcp.assertions).toBeNull()
      const plain = yield* client.monitors.create({ payload: { componentId, type: "http", url: "https://a.example" } })
      expect(plain.assertions).toBeNull()

      const base = { componentId, type: "http", url: "https://example.com" }
      const exists = { path: "$", op: "exists" }
      /** A monitor with these assertions, and the issue path of field `field` of assertion `index`. */
      const monitorWith = (...list: ReadonlyArray<unknown>) => ({ ...base, assertions: list })
      const at = (index: number, field: string) => ["assertions", index, field]
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, ReadonlyArray<string | number>]> = [
        ["JSONPath recursion", monitorWith(exists, { path: "$..id", op: "exists" }), at(1, "path")],
        ["a path without $ or /", monitorWith({ path: "status", op: "exists" }), at(0, "path")],
        ["a bad pointer escape", monitorWith({ path: "/a~2", op: "exists" }), at(0, "path")],
        ["an unknown op", monitorWith({ path: "$", op: "=~", value: "x" }), at(0, "op")],
        ["no value with ==", monitorWith({ path: "$.a", op: "==" }), at(0, "value")],
        ["an object value", monitorWith({ path: "$.a", op: "==", value: { b: 1 } }), at(0, "value")],
        ["a string with <", monitorWith({ path: "$.a", op: "<", value: "5" }), at(0, "value")],
        ["a value with exists", monitorWith({ path: "$.a", op: "exists", value: 1 }), at(0, "value")],
        ["a pattern that does not compile", monitorWith({ path: "$.a", op: "matches", value: "(" }), at(0, "value")],
        ["nested quantifiers", monitorWith({ path: "$.a", op: "matches", value: "(a+)+$" }), at(0, "value")],
        ["a pattern too long", monitorWith({ path: "$.a", op: "matches", value: "a".repeat(257) }), at(0, "value")],
        ["no assertions", monitorWith(), ["assertions"]],
        ["21 assertions", monitorWith(...Array.from({ length: 21 }, () => exists)), ["assertions"]],
        ["assertions on HEAD", { ...monitorWith(exists), method: "HEAD" }, ["assertions"]],
        ["assertions for tcp", { componentId, type: "tcp", url: "a.example:1", assertions: [exists] }, ["assertions"]]
      ]
      for (const [label, body, path] of cases) {
        const response = yield* sendJson("POST", "/api/v1/admin/monitors", body)
        expect(response.status, label).toBe(400)
        expect(response.body.issues, label).toEqual(expect.arrayContaining([expect.objectContaining({ path })]))
      }
    }))

  it.effect("icmp, grpc, database and broker monitors: their targets, a masked password kept on \"********\", their jobs", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const { id: componentId } = yield* component
      const create = (payload: Record<string, unknown>) =>
        Effect.map(
          sendJson("POST", "/api/v1/admin/monitors", { componentId, intervalSeconds: 30, timeoutMs: 1000, ...payload }),
          (r) => {
            expect(r.status, JSON.stringify(r.body)).toBe(201)
            return r.body as { id: string; url: string; password: unknown; grpcService: unknown; pingCount: unknown }
          }
        )
      const icmp = yield* create({ type: "icmp", url: "Host.Example." })
      expect(icmp).toMatchObject({ url: "host.example", pingCount: 3, password: null, grpcService: null })
      expect(yield* create({ type: "icmp", url: "[::1]", pingCount: 5 })).toMatchObject({ url: "::1", pingCount: 5 })
      const grpc = yield* create({ type: "grpc", url: "grpcs://Health.Example:443", grpcService: "shop.Cart" })
      expect(grpc).toMatchObject({ url: "grpcs://health.example:443", grpcService: "shop.Cart", pingCount: null })
      expect(yield* create({ type: "grpc", url: "grpc://127.0.0.1:50051", grpcService: "" }))
        .toMatchObject({ grpcService: null })
      const postgres = yield* create({ type: "postgres", url: "postgres://app@DB.example/app", password: "pg-s3cret" })
      expect(postgres).toMatchObject({ url: "postgres://app@db.example/app", password: "********", pingCount: null })
      const targets: ReadonlyArray<readonly [string, string, string]> = [
        ["mysql", "mysql://root@127.0.0.1:3306/shop", "mysql://root@127.0.0.1:3306/shop"],
        ["redis", "rediss://cache.example:6380/2", "rediss://cache.example:6380/2"],
        ["mqtt", "mqtts://probe@broker.example", "mqtts://probe@broker.example"],
        ["amqp", "amqp://app@mq.example/%2F", "amqp://app@mq.example/%2F"]
      ]
      for (const [type, url, stored] of targets) {
        expect(yield* create({ type, url }), type).toMatchObject({ url: stored, password: null })
      }
      // Masked in lists too; the stored value is the real one.
      const listed = yield* client.monitors.list({ query: {} })
      expect(listed.find((m) => m.id === postgres.id)?.password).toBe("********")
      const storedPassword = (id: string) =>
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ password: string | null }>`select password from monitors where id = ${id}`
        )
          .pipe(Effect.map((rows) => rows[0]?.password))
      expect(yield* storedPassword(postgres.id)).toBe("pg-s3cret")
      // "********" keeps it, a new value replaces it, null clears it; the answer never shows it.
      const kept = yield* sendJson("PUT", `/api/v1/admin/monitors/${postgres.id}`, {
        password: "********",
        url: "postgres://app@db.example/other"
      })
      expect(kept.body).toMatchObject({ password: "********", url: "postgres://app@db.example/other" })
      expect(yield* storedPassword(postgres.id)).toBe("pg-s3cret")
      // Kept on the same host only: another host's target needs the password given again.
      for (const password of [undefined, "********"]) {
        const elsewhere = yield* sendJson("PUT", `/api/v1/admin/monitors/${postgres.id}`, {
          url: "postgres://app@attacker.example/app",
          ...(password === undefined ? {} : { password })
        })
        expect(elsewhere).toMatchObject({ status: 400, body: { issues: [{ path: ["password"] }] } })
      }
      expect(yield* storedPassword(postgres.id)).toBe("pg-s3cret")
      const moved = yield* sendJson("PUT", `/api/v1/admin/monitors/${postgres.id}`, {
        url: "postgres://app@db2.example/app",
        password: "pg-s3cret-2"
      })
      expect(moved.body).toMatchObject({ url: "postgres://app@db2.example/app", password: "********" })
      yield* sendJson("PUT", `/api/v1/admin/monitors/${postgres.id}`, {
        url: "postgres://app@db.example/other",
        password: "pg-s3cret"
      })

      const scheduler = yield* startScheduler
      yield* eventually(
        Effect.sync(() => [postgres.id, grpc.id, icmp.id].every((id) => scheduler.jobsOf(id).length > 0)),
        (all) => all,
        20_000
      )
      expect(scheduler.jobsOf(postgres.id)[0]).toMatchObject({ type: "postgres", password: "pg-s3cret" })
      expect(scheduler.jobsOf(grpc.id)[0]).toMatchObject({ type: "grpc", grpcService: "shop.Cart" })
      expect(scheduler.jobsOf(grpc.id)[0]?.password).toBeUndefined()
      expect(scheduler.jobsOf(icmp.id)[0]).toMatchObject({ type: "icmp", url: "host.example", pingCount: 3 })

      const replaced = yield* sendJson("PUT", `/api/v1/admin/monitors/${postgres.id}`, { password: "pg-n3w" })
      expect(replaced.body).toMatchObject({ password: "********" })
      expect(yield* stepUntil(() => scheduler.jobsOf(postgres.id).some((job) => job.password === "pg-n3w"))).toBe(true)
      const cleared = yield* sendJson("PUT", `/api/v1/admin/monitors/${postgres.id}`, { password: null })
      expect(cleared.body).toMatchObject({ password: null })
      expect(yield* storedPassword(postgres.id)).toBeNull()
      // A change of type drops the fields of the old one.
      const retyped = yield* sendJson("PUT", `/api/v1/admin/monitors/${icmp.id}`, {
        type: "tcp",
        url: "host.example:22"
      })
      expect(retyped.body).toMatchObject({ type: "tcp", pingCount: null })
    }))

  it.effect("refuses bad icmp, grpc, database and broker fields with 400 naming them", () =>
    Effect.gen(function*() {
      const { id: componentId } = yield* component
      const redis = { componentId, type: "redis", url: "redis://cache.example" }
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, ReadonlyArray<string | number>]> = [
        ["a password in the URL", { ...redis, url: "redis://user:pw@cache.example" }, ["url"]],
        ["a password for http", { componentId, type: "http", url: "https://a.example", password: "x" }, ["password"]],
        ["a password for icmp", { componentId, type: "icmp", url: "a.example", password: "x" }, ["password"]],
        ["a password too long", { ...redis, password: "x".repeat(1025) }, ["password"]],
        ["the mask on creation", { ...redis, password: "********" }, ["password"]],
        ["grpcService for redis", { ...redis, grpcService: "x" }, ["grpcService"]],
        [
          "grpcService too long",
          { componentId, type: "grpc", url: "grpc://a.example:1", grpcService: "s".repeat(257) },
          [
            "grpcService"
          ]
        ],
        ["pingCount for tcp", { componentId, type: "tcp", url: "a.example:1", pingCount: 3 }, ["pingCount"]],
        ["pingCount 11", { componentId, type: "icmp", url: "a.example", pingCount: 11 }, ["pingCount"]],
        ["pingCount 0", { componentId, type: "icmp", url: "a.example", pingCount: 0 }, ["pingCount"]],
        ["icmp with a scheme", { componentId, type: "icmp", url: "http://a.example" }, ["url"]],
        ["icmp with a port", { componentId, type: "icmp", url: "a.example:80" }, ["url"]],
        ["grpc without a port", { componentId, type: "grpc", url: "grpc://a.example" }, ["url"]],
        ["grpc over http", { componentId, type: "grpc", url: "http://a.example:50051" }, ["url"]],
        ["redis database not a number", { ...redis, url: "redis://cache.example/zero" }, ["url"]],
        ["redis with the wrong scheme", { ...redis, url: "postgres://cache.example" }, ["url"]],
        ["mqtt with a path", { componentId, type: "mqtt", url: "mqtt://broker.example/topic" }, ["url"]],
        ["postgres with a query", { componentId, type: "postgres", url: "postgres://db.example/app?sslmode=require" }, [
          "url"
        ]],
        ["mysql with two path segments", { componentId, type: "mysql", url: "mysql://db.example/a/b" }, ["url"]],
        ["amqp with a port out of range", { componentId, type: "amqp", url: "amqp://mq.example:70000" }, ["url"]]
      ]
      for (const [label, body, path] of cases) {
        const response = yield* sendJson("POST", "/api/v1/admin/monitors", body)
        expect(response.status, label).toBe(400)
        expect(response.body.issues, label).toEqual(expect.arrayContaining([expect.objectContaining({ path })]))
      }
      const inUrl = yield* sendJson("POST", "/api/v1/admin/monitors", { ...redis, url: "redis://:pw@cache.example" })
      expect(inUrl.body.issues).toEqual([{ path: ["url"], message: "put the password in `password`, not in the URL" }])
    }))
})

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
})

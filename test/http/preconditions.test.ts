/**
 * Optimistic concurrency on the admin resources (docs/api.md, "Concurrent edits: ETag and
 * If-Match"), over real HTTP on a real PostgreSQL, and on the embedded one:
 *
 * - a `GET` of one resource, and every write that answers it, carries a strong ETag: the SHA-256
 *   (base64url, quoted) of the JSON a read then gives. Resources without a `GET` of their own are
 *   read from their list, whose element is the same JSON: the test computes the tag itself;
 * - `If-Match` with the current tag (or `*`) lets a write through; a stale or weak tag is 412
 *   `PreconditionFailed` and changes nothing; an unknown id stays 404; a malformed header is 400;
 * - the check and the write are one step: of conditional writes racing with the same tag exactly
 *   one succeeds, in one process, across two instances on one database, and on PGlite.
 */
import { createHash } from "node:crypto"

import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Schedule } from "effect"
import { HttpClient } from "effect/http"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { Api } from "../../src/api/Api.js"
import { embeddedConfig, testConfig, TestDatabaseUrl } from "../support/TestDatabase.js"
import { Anonymous, DatabaseProxy, sendJson, TestStack, TestStackBehindProxy } from "../support/TestServer.js"

// ---------------------------------------------------------------------------------------------
// Requests, by the API's own endpoints

const endpoints: ReadonlyMap<string, HttpApiEndpoint.Top> = new Map(
  (Object.values(Api.groups) as unknown as ReadonlyArray<HttpApiGroup.Top>).flatMap((group) =>
    (Object.values(group.endpoints) as ReadonlyArray<HttpApiEndpoint.Top>).map((endpoint) =>
      [`${group.identifier}.${endpoint.identifier}`, endpoint] as const
    )
  )
)

const endpointOf = (key: string) => {
  const endpoint = endpoints.get(key)
  if (endpoint === undefined) throw new Error(`The API has no endpoint ${key}`)
  return endpoint
}

const urlOf = (key: string, id?: string) =>
  endpointOf(key).path.replace(/:id\b/, () => {
    if (id === undefined) throw new Error(`${key}: no id`)
    return encodeURIComponent(id)
  })

interface Answer {
  readonly status: number
  readonly etag: string | undefined
  readonly body: any
}

/** Sends the endpoint `key` on `id`, with `If-Match` when given. */
const send = (
  key: string,
  options: { id?: string; body?: unknown; ifMatch?: string; headers?: Record<string, string> } = {}
) =>
  Effect.map(
    sendJson(endpointOf(key).method as Parameters<typeof sendJson>[0], urlOf(key, options.id), options.body, {
      ...(options.ifMatch === undefined ? {} : { "if-match": options.ifMatch }),
      ...options.headers
    }),
    (response): Answer => ({ status: response.status, etag: response.headers["etag"], body: response.body })
  )

/** What a 2xx must be, and its body. */
const ok = (answer: Answer, status = 200) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status)
  return answer.body
}

let sequence = 0
const unique = (prefix: string) => `${prefix} ${++sequence}-${Date.now().toString(36)}`
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z")

/** The contract's ETag of a JSON value, computed here: SHA-256 of its bytes, base64url, quoted. */
const tagOf = (value: unknown) => `"${createHash("sha256").update(JSON.stringify(value)).digest("base64url")}"`

const stale = "\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\""

/** A resource's current tag as a client learns it: its `GET`, or its list's element. */
const currentTag = (group: string, id: string) =>
  Effect.gen(function*() {
    if (endpoints.has(`${group}.get`)) {
      const read = yield* send(`${group}.get`, { id })
      ok(read)
      expect(read.etag).toBe(tagOf(read.body))
      return read.etag!
    }
    const list = ok(yield* send(`${group}.list`))
    const element = (list as ReadonlyArray<{ id: string }>).find((item) => item.id === id)
    expect(element, `${group} ${id} is listed`).toBeDefined()
    return tagOf(element)
  })

const created = (key: string, body: unknown) => Effect.map(send(key, { body }), (answer) => ok(answer, 201))

const preconditionFailed = (noun: string) => ({
  _tag: "PreconditionFailed",
  message: `The ${noun} changed since you read it: read it again and retry`
})

// ---------------------------------------------------------------------------------------------
// Racing

/**
 * `copies` conditional writes with the same `If-Match` at once, on connections of their own:
 * exactly one may succeed, the others are 412. Returns the winner's index.
 */
const race = (requests: ReadonlyArray<Effect.Effect<Answer, unknown, HttpClient.HttpClient>>) =>
  Effect.gen(function*() {
    const answers = yield* Effect.all(requests, { concurrency: "unbounded" })
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 200), JSON.stringify(statuses)).toHaveLength(1)
    expect(statuses.filter((status) => status === 412), JSON.stringify(statuses)).toHaveLength(answers.length - 1)
    return answers.findIndex((answer) => answer.status === 200)
  })

/** Rounds of conditional edits of one incident's title racing with the same tag; the winner's title stays. */
const raceIncidentEdits = (rounds: number, copies: number, clients: ReadonlyArray<HttpClient.HttpClient>) =>
  Effect.gen(function*() {
    const incident = yield* created("incidents.create", { title: "Raced", message: "Down" })
    for (let round = 0; round < rounds; round++) {
      const tag = yield* currentTag("incidents", incident.id)
      const titles = Array.from({ length: copies }, (_, n) => `Round ${round}, editor ${n}`)
      const winner = yield* race(
        titles.map((title, n) =>
          send("incidents.update", { id: incident.id, body: { title }, ifMatch: tag }).pipe(
            Effect.provideService(HttpClient.HttpClient, clients[n % clients.length]!)
          )
        )
      )
      const after = ok(yield* send("incidents.get", { id: incident.id }))
      expect(after.title).toBe(titles[winner])
    }
  })

// ---------------------------------------------------------------------------------------------
// On PostgreSQL

layer(TestStack(testConfig()), { excludeTestServices: true, timeout: 120_000 })("ETag and If-Match", (it) => {
  it.effect("a GET of one resource answers a strong ETag of the JSON it sends; lists answer none", () =>
    Effect.gen(function*() {
      const incident = yield* created("incidents.create", { title: "Tagged", message: "Down" })
      const read = yield* send("incidents.get", { id: incident.id })
      expect(read.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/)
      expect(read.etag).toBe(tagOf(read.body))
      // The same resource, read again unchanged: the same tag.
      expect((yield* send("incidents.get", { id: incident.id })).etag).toBe(read.etag)
      const organization = yield* send("organization.get")
      expect(organization.etag).toBe(tagOf(organization.body))
      expect((yield* send("incidents.list")).etag).toBeUndefined()
      expect((yield* send("components.list")).etag).toBeUndefined()
      // Not for errors.
      expect((yield* send("incidents.get", { id: "no-such-incident" })).etag).toBeUndefined()
    }))

  it.effect("a PUT with the current ETag succeeds and answers the new ETag, the one a fresh GET gives", () =>
    Effect.gen(function*() {
      const incident = yield* created("incidents.create", { title: "Before", message: "Down" })
      const tag = yield* currentTag("incidents", incident.id)
      const updated = yield* send("incidents.update", { id: incident.id, body: { title: "After" }, ifMatch: tag })
      expect(ok(updated).title).toBe("After")
      expect(updated.etag).not.toBe(tag)
      expect(updated.etag).toBe(tagOf(updated.body))
      expect(updated.etag).toBe(yield* currentTag("incidents", incident.id))
    }))

  it.effect("every write that answers the resource carries the ETag a read then gives", () =>
    Effect.gen(function*() {
      const component = yield* created("components.create", { name: unique("Tagged component") })
      const group = yield* created("componentGroups.create", { name: unique("Tagged group") })
      const template = yield* created("incidentTemplates.create", { name: unique("Tpl"), title: "T", message: "M" })
      const monitor = yield* created("monitors.create", {
        componentId: component.id,
        type: "http",
        url: "http://127.0.0.1:9/health"
      })
      const webhook = yield* created("webhooks.create", {
        name: unique("Tagged hook"),
        url: "http://127.0.0.1:9/hook",
        type: "generic",
        isActive: false
      })
      const incident = yield* created("incidents.create", {
        title: "Tagged",
        message: "Down",
        componentIds: [component.id],
        published: false
      })
      const window = yield* created("maintenance.create", {
        title: "Tagged window",
        scheduledStart: inDays(2),
        scheduledEnd: inDays(2.1)
      })
      const organization = ok(yield* send("organization.get"))
      const writes: ReadonlyArray<readonly [string, string, unknown, number?]> = [
        ["components.update", component.id, { description: "edited" }],
        ["components.setStatus", component.id, { status: "degraded" }],
        ["componentGroups.update", group.id, { description: "edited" }],
        ["incidentTemplates.update", template.id, { title: "Edited" }],
        ["monitors.update", monitor.id, { failureThreshold: 3 }],
        ["monitors.pause", monitor.id, undefined],
        ["monitors.resume", monitor.id, undefined],
        ["webhooks.update", webhook.id, { name: unique("Edited hook") }],
        ["webhooks.toggle", webhook.id, undefined],
        ["incidents.update", incident.id, { severity: "major" }],
        ["incidents.addUpdate", incident.id, { status: "identified", message: "Found it" }, 201],
        ["incidents.publish", incident.id, undefined],
        ["incidents.resolve", incident.id, { message: "Fixed" }],
        ["incidents.setPostmortem", incident.id, { body: "What happened", published: false }],
        ["maintenance.update", window.id, { description: "edited" }],
        ["organization.update", organization.id, { brandColor: "#16a34a" }]
      ]
      for (const [key, id, body, status] of writes) {
        const group = key.split(".")[0]!
        const before = yield* currentTag(group, id)
        const answer = yield* send(key, { id, body, ifMatch: before })
        ok(answer, status)
        expect(answer.etag, key).toBe(tagOf(answer.body))
        expect(answer.etag, `${key}: the answer's tag is the one a read gives`).toBe(yield* currentTag(group, id))
        expect(answer.etag, `${key} changed the resource`).not.toBe(before)
      }
    }))

  it.effect("a stale If-Match is 412 PreconditionFailed and changes nothing", () =>
    Effect.gen(function*() {
      const incident = yield* created("incidents.create", { title: "Kept", message: "Down" })
      const tag = yield* currentTag("incidents", incident.id)
      const refused = yield* send("incidents.update", { id: incident.id, body: { title: "Lost" }, ifMatch: stale })
      expect(refused.status).toBe(412)
      expect(refused.body).toEqual(preconditionFailed("incident"))
      expect(refused.etag).toBeUndefined()
      const after = yield* send("incidents.get", { id: incident.id })
      expect(after.body.title).toBe("Kept")
      expect(after.etag).toBe(tag)
      // The precondition comes before the body is read (RFC 9110 §13.2.2): stale with a bad body is
      // 412; the current tag with it, the body's 400.
      const badBody = { id: incident.id, body: { title: 5 } }
      expect((yield* send("incidents.update", { ...badBody, ifMatch: stale })).status).toBe(412)
      expect((yield* send("incidents.update", { ...badBody, ifMatch: tag })).body._tag).toBe("HttpApiDecodeError")

      const component = yield* created("components.create", { name: unique("Kept component") })
      const componentTag = yield* currentTag("components", component.id)
      const edit = { id: component.id, body: { name: "Lost" }, ifMatch: stale }
      expect((yield* send("components.update", edit)).body).toEqual(preconditionFailed("component"))
      const statusEdit = { id: component.id, body: { status: "major_outage" }, ifMatch: stale }
      expect((yield* send("components.setStatus", statusEdit)).status).toBe(412)
      expect(yield* currentTag("components", component.id)).toBe(componentTag)

      const organization = ok(yield* send("organization.get"))
      const renamed = yield* send("organization.update", {
        id: organization.id,
        body: { name: "Lost" },
        ifMatch: stale
      })
      expect(renamed.body).toEqual(preconditionFailed("organization"))
      expect(ok(yield* send("organization.get")).name).toBe(organization.name)
      // The same at the address it is read from, which names no id.
      const atItsAddress = yield* send("organization.updateCurrent", { body: { name: "Lost" }, ifMatch: stale })
      expect(atItsAddress.body).toEqual(preconditionFailed("organization"))
      const current = yield* send("organization.get")
      const saved = yield* send("organization.updateCurrent", { body: { name: "Kept" }, ifMatch: current.etag! })
      expect(ok(saved).name).toBe("Kept")
      expect(saved.etag).toBe((yield* send("organization.get")).etag)
    }))

  it.effect("a DELETE with a stale If-Match is 412 and the resource stays; with the current one it goes", () =>
    Effect.gen(function*() {
      const component = yield* created("components.create", { name: unique("Deleted"), isPublic: true })
      const group = yield* created("componentGroups.create", { name: unique("Deleted group") })
      const template = yield* created("incidentTemplates.create", { name: unique("Gone"), title: "T", message: "M" })
      const monitor = yield* created("monitors.create", {
        componentId: component.id,
        type: "http",
        url: "http://127.0.0.1:9/health"
      })
      const webhook = yield* created("webhooks.create", {
        name: unique("Deleted hook"),
        url: "http://127.0.0.1:9/hook",
        type: "generic",
        isActive: false
      })
      const window = yield* created("maintenance.create", {
        title: "Deleted window",
        scheduledStart: inDays(3),
        scheduledEnd: inDays(3.1)
      })
      const key = yield* created("apiKeys.create", { name: unique("Deleted key") })
      const email = `etag-${Date.now().toString(36)}@example.test`
      expect((yield* send("subscriptions.subscribe", { body: { email, componentIds: [component.id] } })).status)
        .toBe(202)
      const subscriber = (ok(yield* send("subscribers.list")) as ReadonlyArray<{ id: string; email: string }>)
        .find((s) => s.email === email)!

      const deletes: ReadonlyArray<readonly [string, string, string]> = [
        ["monitors.remove", "monitors", monitor.id],
        ["subscribers.remove", "subscribers", subscriber.id],
        ["components.remove", "components", component.id],
        ["componentGroups.remove", "componentGroups", group.id],
        ["incidentTemplates.remove", "incidentTemplates", template.id],
        ["webhooks.remove", "webhooks", webhook.id],
        ["apiKeys.remove", "apiKeys", key.id]
      ]
      for (const [endpoint, resource, id] of deletes) {
        const tag = yield* currentTag(resource, id)
        expect((yield* send(endpoint, { id, ifMatch: stale })).status, `${endpoint} stale`).toBe(412)
        expect((yield* send(endpoint, { id, ifMatch: `W/${tag}` })).status, `${endpoint} weak`).toBe(412)
        expect(yield* currentTag(resource, id), `${endpoint}: still there, unchanged`).toBe(tag)
        expect((yield* send(endpoint, { id, ifMatch: tag })).status, `${endpoint} current`).toBe(204)
        // Gone: 404 whatever If-Match says, * included.
        expect((yield* send(endpoint, { id, ifMatch: tag })).status, `${endpoint} again`).toBe(404)
        expect((yield* send(endpoint, { id, ifMatch: "*" })).status, `${endpoint} again, *`).toBe(404)
      }
      // Cancelling a window keeps it, cancelled: its tag changes, and cancelling again is 409.
      const tag = yield* currentTag("maintenance", window.id)
      expect((yield* send("maintenance.cancel", { id: window.id, ifMatch: stale })).status).toBe(412)
      expect(ok(yield* send("maintenance.get", { id: window.id })).status).toBe("scheduled")
      expect((yield* send("maintenance.cancel", { id: window.id, ifMatch: tag })).status).toBe(204)
      expect(ok(yield* send("maintenance.get", { id: window.id })).status).toBe("cancelled")
      expect((yield* send("maintenance.cancel", { id: window.id, ifMatch: tag })).status).toBe(412)
      expect((yield* send("maintenance.cancel", { id: window.id, ifMatch: "*" })).status).toBe(409)
    }))

  it.effect("If-Match * writes while the resource exists, and a list naming the current tag matches", () =>
    Effect.gen(function*() {
      const incident = yield* created("incidents.create", { title: "Any", message: "Down" })
      ok(yield* send("incidents.update", { id: incident.id, body: { title: "Any edit" }, ifMatch: "*" }))
      const tag = yield* currentTag("incidents", incident.id)
      const listed = yield* send("incidents.update", {
        id: incident.id,
        body: { title: "Listed" },
        ifMatch: `${stale}, W/${tag} , ${tag}`
      })
      expect(ok(listed).title).toBe("Listed")
      expect((yield* send("incidents.update", { id: "no-such-incident", body: {}, ifMatch: "*" })).status).toBe(404)
      expect((yield* send("incidents.update", { id: "no-such-incident", body: {}, ifMatch: stale })).status).toBe(404)
    }))

  it.effect("a weak tag never matches, even the current one's", () =>
    Effect.gen(function*() {
      const incident = yield* created("incidents.create", { title: "Weak", message: "Down" })
      const tag = yield* currentTag("incidents", incident.id)
      const weak = yield* send("incidents.update", { id: incident.id, body: { title: "Lost" }, ifMatch: `W/${tag}` })
      expect(weak.status).toBe(412)
      expect(weak.body._tag).toBe("PreconditionFailed")
      expect(yield* currentTag("incidents", incident.id)).toBe(tag)
    }))

  it.effect("an If-Match that is neither * nor a list of quoted tags is 400, and changes nothing", () =>
    Effect.gen(function*() {
      const incident = yield* created("incidents.create", { title: "Malformed", message: "Down" })
      const tag = yield* currentTag("incidents", incident.id)
      for (const ifMatch of [tag.slice(1, -1), "", "*, " + tag, "\"unterminated"]) {
        const answer = yield* send("incidents.update", { id: incident.id, body: { title: "Lost" }, ifMatch })
        expect(answer.status, JSON.stringify(ifMatch)).toBe(400)
        expect(answer.body).toMatchObject({ _tag: "BadRequest", issues: [{ path: ["If-Match"] }] })
      }
      expect(yield* currentTag("incidents", incident.id)).toBe(tag)
    }))

  it.effect("a request without credentials is 401 before any resource is read", () =>
    Effect.gen(function*() {
      const incident = yield* created("incidents.create", { title: "Guarded", message: "Down" })
      const anonymous = yield* Anonymous
      for (const ifMatch of [stale, "*", "garbage"]) {
        const answer = yield* send("incidents.update", { id: incident.id, body: { title: "Lost" }, ifMatch }).pipe(
          Effect.provideService(HttpClient.HttpClient, anonymous)
        )
        expect(answer.status).toBe(401)
      }
    }))

  it.effect("an update posted by someone else in between makes the first editor's If-Match stale", () =>
    Effect.gen(function*() {
      const incident = yield* created("incidents.create", { title: "Shared", message: "Down" })
      // The first operator reads the incident and starts editing.
      const read = yield* currentTag("incidents", incident.id)
      // A second operator posts an update meanwhile, without If-Match.
      const posted = yield* send("incidents.addUpdate", {
        id: incident.id,
        body: { status: "identified", message: "Root cause found" }
      })
      ok(posted, 201)
      expect(posted.etag).not.toBe(read)
      // The first operator's save is refused, and the update stays.
      const save = yield* send("incidents.update", {
        id: incident.id,
        body: { status: "investigating", title: "Shared (edited)" },
        ifMatch: read
      })
      expect(save.status).toBe(412)
      const now = yield* send("incidents.get", { id: incident.id })
      expect(now.body.status).toBe("identified")
      expect(now.etag).toBe(posted.etag)
      // Read again, the save goes through.
      const again = yield* send("incidents.update", {
        id: incident.id,
        body: { title: "Shared (edited)" },
        ifMatch: now.etag!
      })
      expect(ok(again).title).toBe("Shared (edited)")
    }))

  it.effect("conditional PUTs racing with the same ETag: exactly one succeeds, the others are 412", () =>
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      yield* raceIncidentEdits(25, 4, [client])
      // Two editors of one component, whose answers carry no GET of their own.
      const component = yield* created("components.create", { name: unique("Raced component") })
      for (let round = 0; round < 15; round++) {
        const tag = yield* currentTag("components", component.id)
        yield* race(
          [0, 1].map((n) =>
            send("components.update", { id: component.id, body: { description: `${round}/${n}` }, ifMatch: tag })
          )
        )
      }
    }))

  it.effect("writes without If-Match still run side by side, and none slips into a conditional write", () =>
    Effect.gen(function*() {
      const incident = yield* created("incidents.create", { title: "Busy", message: "Down" })
      let conflicts = 0
      for (let round = 0; round < 20; round++) {
        const tag = yield* currentTag("incidents", incident.id)
        // In odd rounds the conditional write starts a little later, so that some rounds surely
        // meet the others' change (a real-time pause: the suite's clock is a TestClock).
        const late = round % 2 === 1
          ? Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
          : Effect.void
        const answers = yield* Effect.all([
          Effect.andThen(
            late,
            send("incidents.update", { id: incident.id, body: { title: `Conditional ${round}` }, ifMatch: tag })
          ),
          send("incidents.update", { id: incident.id, body: { severity: round % 2 === 0 ? "major" : "minor" } }),
          send("incidents.addUpdate", { id: incident.id, body: { status: "identified", message: `Note ${round}` } })
        ], { concurrency: "unbounded" })
        expect(answers[1]!.status).toBe(200)
        expect(answers[2]!.status).toBe(201)
        // The conditional write either ran on the incident as it read it, before the others, or
        // met their change (412): never after one of them and before its own.
        const conditional = answers[0]!
        expect([200, 412]).toContain(conditional.status)
        if (conditional.status === 200) {
          const messages = (conditional.body.updates as ReadonlyArray<{ message: string }>).map((u) => u.message)
          expect(messages, "an update slipped in between the check and the write").not.toContain(`Note ${round}`)
          expect(ok(yield* send("incidents.get", { id: incident.id })).title).toBe(`Conditional ${round}`)
        } else {
          conflicts++
        }
      }
      expect(conflicts, "some rounds met a change").toBeGreaterThan(0)
    }))

  it.effect("conditional writes racing through two instances on one database: exactly one succeeds", () =>
    Effect.gen(function*() {
      const url = yield* TestDatabaseUrl
      // A memo map of its own: the suite's would hand back this instance's server and services.
      const other = yield* Layer.buildWithMemoMap(
        TestStack(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url }))),
        yield* Layer.makeMemoMap,
        yield* Effect.scope
      )
      const here = yield* HttpClient.HttpClient
      yield* raceIncidentEdits(40, 6, [here, Context.get(other, HttpClient.HttpClient)])
    }).pipe(Effect.scoped))

  it.effect("a retry with the same Idempotency-Key gets the first answer again, not a 412 for its own change", () =>
    Effect.gen(function*() {
      const incident = yield* created("incidents.create", { title: "Retried", message: "Down", published: false })
      const tag = yield* currentTag("incidents", incident.id)
      const request = { id: incident.id, ifMatch: tag, headers: { "idempotency-key": `publish-${incident.id}` } }
      const first = yield* send("incidents.publish", request)
      expect(ok(first).published).toBe(true)
      const retried = yield* send("incidents.publish", request)
      expect(retried.status).toBe(200)
      expect(retried.etag).toBe(first.etag)
      // Without the key, the same stale tag is refused.
      expect((yield* send("incidents.publish", { id: incident.id, ifMatch: tag })).status).toBe(412)
    }))
})

// ---------------------------------------------------------------------------------------------
// On the embedded database (PGlite), where only the in-process lock runs

layer(TestStack(embeddedConfig()), { excludeTestServices: true, timeout: 120_000 })(
  "ETag and If-Match on the embedded database",
  (it) => {
    it.effect("tags, 412 and one winner among racing conditional writes", () =>
      Effect.gen(function*() {
        const incident = yield* created("incidents.create", { title: "Embedded", message: "Down" })
        const tag = yield* currentTag("incidents", incident.id)
        const updated = yield* send("incidents.update", { id: incident.id, body: { title: "Edited" }, ifMatch: tag })
        expect(updated.etag).toBe(yield* currentTag("incidents", incident.id))
        expect((yield* send("incidents.update", { id: incident.id, body: { title: "Lost" }, ifMatch: tag })).status)
          .toBe(412)
        const component = yield* created("components.create", { name: unique("Embedded component") })
        const componentTag = yield* currentTag("components", component.id)
        expect((yield* send("components.remove", { id: component.id, ifMatch: stale })).status).toBe(412)
        expect((yield* send("components.remove", { id: component.id, ifMatch: componentTag })).status).toBe(204)
        yield* raceIncidentEdits(15, 4, [yield* HttpClient.HttpClient])
      }))
  }
)

// ---------------------------------------------------------------------------------------------
// The database away: the locks' connections fail as the app's do

layer(TestStackBehindProxy, { excludeTestServices: true, timeout: 60_000 })(
  "If-Match while the database is away",
  (it) => {
    it.effect("a write on one resource answers 503 while the database is away, and works again after", () =>
      Effect.gen(function*() {
        const incident = yield* created("incidents.create", { title: "Outage", message: "Down" })
        const tag = yield* currentTag("incidents", incident.id)
        // The locks' pool holds a connection from this write: the cut breaks it too.
        ok(yield* send("incidents.update", { id: incident.id, body: { title: "Before the cut" }, ifMatch: "*" }))
        const proxy = yield* DatabaseProxy
        yield* Effect.promise(proxy.cut)
        for (const ifMatch of [tag, undefined]) {
          const answer = yield* send("incidents.update", {
            id: incident.id,
            body: { title: "During" },
            ...(ifMatch === undefined ? {} : { ifMatch })
          })
          expect(answer.status).toBe(503)
          expect(answer.body._tag).toBe("ServiceUnavailable")
        }
        yield* Effect.promise(proxy.restore)
        const read = yield* send("incidents.get", { id: incident.id }).pipe(
          Effect.repeat({
            until: (answer) => answer.status !== 503,
            times: 25,
            schedule: Schedule.spaced("200 millis")
          })
        )
        expect(ok(read).title).toBe("Before the cut")
        const after = yield* send("incidents.update", {
          id: incident.id,
          body: { title: "After" },
          ifMatch: read.etag!
        })
          .pipe(
            Effect.repeat({
              until: (answer) => answer.status !== 503,
              times: 25,
              schedule: Schedule.spaced("200 millis")
            })
          )
        expect(ok(after).title).toBe("After")
      }))
  }
)

/**
 * `Idempotency-Key` on the admin POSTs (docs/api.md, "Retries: Idempotency-Key"), over the real
 * HTTP stack and PostgreSQL: a retry with the same key does the work once and answers the first
 * answer byte for byte; the key on another request is 422, during its first request 409; keys
 * never meet across principals; the answer survives a restart, sealed so that the table reveals
 * no secret; a claim whose process died is taken over after its lease; keys expire after 24 hours
 * and housekeeping deletes them; malformed keys are 400.
 */
import { randomUUID } from "node:crypto"

import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import { HttpClient, HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiClient, OpenApi } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { Api } from "../../src/api/Api.js"
import { idempotencyKeyHeader } from "../../src/api/Idempotency.js"
import { withClient } from "../../src/cli/Remote.js"
import { IdempotencyClient, withIdempotencyKey } from "../../src/client/IdempotencyKey.js"
import { Housekeeping } from "../../src/workers/Housekeeping.js"
import { adminVariables, sessionCookieHeader } from "../support/Auth.js"
import { eventually } from "../support/Eventually.js"
import { embeddedConfig, freshDatabaseUrl } from "../support/TestDatabase.js"
import { Anonymous, SuiteApiKey, TestServer, TestStack } from "../support/TestServer.js"

interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly text: string
  readonly json: any
}

/** POSTs `body` (sent as given) and reads the answer as bytes and as JSON. */
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.post(path).pipe(
        HttpClientRequest.setHeaders(headers),
        HttpClientRequest.bodyText(body, "application/json")
      )
    )
    const text = yield* response.text
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: text === "" ? undefined : JSON.parse(text)
    }
  })

/** `post` as another principal: without the suite's key, with the given credentials. */
const postAs = (credentials: Record<string, string>, path: string, body: string, headers: Record<string, string>) =>
  Effect.flatMap(
    Anonymous,
    (anonymous) =>
      post(path, body, { ...credentials, ...headers }).pipe(Effect.provideService(HttpClient.HttpClient, anonymous))
  )

const incidents = "/api/v1/admin/incidents"
const withKey = (key: string) => ({ [idempotencyKeyHeader]: key })
const replayed = (answer: Answer) => answer.headers["idempotent-replayed"] === "true"

const incidentsTitled = (title: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ count: string }>`select count(*)::text as count from incidents where title = ${title}`,
      (rows) => Number(rows[0]!.count)
    ))

const storedKeys = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<{ id: Uint8Array; fingerprint: Uint8Array; claim: string; answer: Uint8Array | null }>`
    select id, fingerprint, claim, answer from idempotency_keys order by claimed_at`
)

const openIncident = (title: string) => JSON.stringify({ title, message: "We are looking into it." })

describe("the OpenAPI document", () => {
  const spec = OpenApi.fromApi(Api)
  const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
    (["get", "post", "put", "patch", "delete"] as const).flatMap((method) =>
      item[method] === undefined ? [] : [{ path, method, operation: item[method] }]
    )
  )
  const declares = (operation: any) =>
    (operation.parameters ?? []).some((parameter: any) =>
      parameter.in === "header" && parameter.name === "Idempotency-Key"
    )

  it("declares the optional header, 409 and 422 on every admin POST, and on nothing else", () => {
    const adminPosts = operations.filter(({ method, path }) => method === "post" && path.startsWith("/api/v1/admin/"))
    expect(adminPosts.length).toBeGreaterThanOrEqual(13)
    for (const { operation, path } of adminPosts) {
      expect(declares(operation), path).toBe(true)
      expect(Object.keys(operation.responses), path).toEqual(expect.arrayContaining(["400", "409", "422"]))
      const header = (operation.parameters ?? []).find((parameter: any) => parameter.name === "Idempotency-Key")
      expect(header?.required).toBe(false)
      expect(header?.description).toMatch(/retry/)
    }
    const others = operations.filter(({ method, path }) => !(method === "post" && path.startsWith("/api/v1/admin/")))
    expect(others.filter(({ operation }) => declares(operation)).map(({ method, path }) => `${method} ${path}`))
      .toEqual([])
    expect(JSON.stringify(spec.components.schemas)).toContain("IdempotencyKeyReused")
  })
})

it.layer(Housekeeping.pipe(Layer.provideMerge(TestServer(adminVariables))))("Idempotency-Key", (it) => {
  it.effect("a retried POST opens one incident; the replay is the first answer, byte for byte", () =>
    Effect.gen(function*() {
      const key = randomUUID()
      const first = yield* post(incidents, openIncident("Checkout is down"), withKey(key))
      expect(first.status).toBe(201)
      expect(replayed(first)).toBe(false)

      // The same body, spelt differently: other whitespace and key order.
      const retry = yield* post(
        incidents,
        "{\n  \"message\": \"We are looking into it.\",\n  \"title\": \"Checkout is down\"\n}",
        withKey(key)
      )
      expect(retry.status).toBe(201)
      expect(replayed(retry)).toBe(true)
      expect(retry.text).toBe(first.text)
      expect(retry.headers["content-type"]).toBe(first.headers["content-type"])
      expect(yield* incidentsTitled("Checkout is down")).toBe(1)

      // Without a key, the same request is a new one, and nothing is stored for it.
      const before = (yield* storedKeys).length
      expect((yield* post(incidents, openIncident("Checkout is down"))).status).toBe(201)
      expect(yield* incidentsTitled("Checkout is down")).toBe(2)
      expect((yield* storedKeys).length).toBe(before)
    }))

  it.effect("the typed client sends the key in force on admin POSTs (withIdempotencyKey)", () =>
    Effect.gen(function*() {
      const client = yield* HttpApiClient.make(Api).pipe(Effect.provide(IdempotencyClient))
      const payload = { title: "Webhooks are late", message: "Deliveries wait in the queue." }
      const key = randomUUID()
      const first = yield* client.incidents.create({ payload }).pipe(withIdempotencyKey(key))
      const [again, response] = yield* client.incidents.create({ payload, responseMode: "decoded-and-response" }).pipe(
        withIdempotencyKey(key)
      )
      expect(again.id).toBe(first.id)
      expect(response.headers["idempotent-replayed"]).toBe("true")
      // Without a key in force, a call is a new request.
      expect((yield* client.incidents.create({ payload })).id).not.toBe(first.id)
      expect(yield* incidentsTitled("Webhooks are late")).toBe(2)
    }))

  it.effect("the command line sends one key per run, or the one given with --idempotency-key", () =>
    Effect.gen(function*() {
      const address = (yield* HttpServer.HttpServer).address
      if (address._tag === "UnixPathAddress") return yield* Effect.die(new Error("the test server is not on TCP"))
      const connection = (idempotencyKey: Option.Option<string>) => ({
        url: Option.some(`http://127.0.0.1:${address.port}`),
        apiKey: Option.some(Redacted.make(apiKey)),
        insecure: false,
        json: false,
        timeout: 30,
        idempotencyKey
      })
      const apiKey = yield* SuiteApiKey
      const payload = { title: "Exports are stuck", message: "Exports wait." }
      const open = (key: Option.Option<string>) =>
        withClient(connection(key), (client) => client.incidents.create({ payload }))
      const given = Option.some(randomUUID())
      expect((yield* open(given)).id).toBe((yield* open(given)).id)
      expect((yield* open(Option.none())).id).not.toBe((yield* open(Option.none())).id)
      expect(yield* incidentsTitled("Exports are stuck")).toBe(3)
    }))

  it.effect("the same key on another body or another path is 422 IdempotencyKeyReused", () =>
    Effect.gen(function*() {
      const key = randomUUID()
      expect((yield* post(incidents, openIncident("Search is slow"), withKey(key))).status).toBe(201)
      const otherBody = yield* post(incidents, openIncident("Search is down"), withKey(key))
      expect(otherBody.status).toBe(422)
      expect(otherBody.json).toMatchObject({ _tag: "IdempotencyKeyReused" })
      expect(otherBody.json.message).toMatch(/another request/)
      const otherPath = yield* post("/api/v1/admin/components", JSON.stringify({ name: "Search" }), withKey(key))
      expect(otherPath.status).toBe(422)
      expect(otherPath.json._tag).toBe("IdempotencyKeyReused")
      expect(yield* incidentsTitled("Search is down")).toBe(0)
    }))

  it.effect("a 4xx the handler answered is kept too; a request refused before the handler keeps its key free", () =>
    Effect.gen(function*() {
      const key = randomUUID()
      const unknownComponent = JSON.stringify({ title: "Mail", message: "Delayed", componentIds: ["nope"] })
      const refused = yield* post(incidents, unknownComponent, withKey(key))
      expect(refused.status).toBe(400)
      const again = yield* post(incidents, unknownComponent, withKey(key))
      expect(again).toMatchObject({ status: 400, text: refused.text })
      expect(replayed(again)).toBe(true)

      // A body that does not decode never reached the handler: the key is free for the fixed request.
      const other = randomUUID()
      const undecodable = yield* post(incidents, JSON.stringify({ title: 5, message: "Delayed" }), withKey(other))
      expect(undecodable.json._tag).toBe("HttpApiDecodeError")
      const fixed = yield* post(incidents, openIncident("Mail is delayed"), withKey(other))
      expect(fixed.status).toBe(201)
      expect(replayed(fixed)).toBe(false)
    }))

  it.effect("concurrent requests with one key: one runs, the others get 409 or its answer", () =>
    Effect.gen(function*() {
      const key = randomUUID()
      const answers = yield* Effect.all(
        Array.from({ length: 6 }, () => post(incidents, openIncident("Payments are failing"), withKey(key))),
        { concurrency: "unbounded" }
      )
      expect(answers.filter((answer) => answer.status === 201 && !replayed(answer))).toHaveLength(1)
      for (const answer of answers) {
        expect([201, 409]).toContain(answer.status)
        if (answer.status === 409) {
          expect(answer.json).toEqual({
            _tag: "Conflict",
            message: "A request with this Idempotency-Key is in progress; retry shortly"
          })
          expect(answer.headers["retry-after"]).toBe("1")
        }
      }
      expect(yield* incidentsTitled("Payments are failing")).toBe(1)
      // Once the first has answered, every retry replays it.
      const late = yield* post(incidents, openIncident("Payments are failing"), withKey(key))
      expect(replayed(late)).toBe(true)
      expect(late.text).toBe(answers.find((answer) => answer.status === 201 && !replayed(answer))!.text)
    }))

  it.effect("a key of another principal does not collide: another API key, a user's session", () =>
    Effect.gen(function*() {
      const key = randomUUID()
      const body = openIncident("Logins fail")
      expect((yield* post(incidents, body, withKey(key))).status).toBe(201)

      const created = yield* post("/api/v1/admin/api-keys", JSON.stringify({ name: "another pipeline" }))
      const otherKey = yield* postAs({ authorization: `Bearer ${created.json.key}` }, incidents, body, withKey(key))
      expect(otherKey.status).toBe(201)
      expect(replayed(otherKey)).toBe(false)

      const cookie = yield* sessionCookieHeader
      const session = yield* postAs({ cookie }, incidents, body, withKey(key))
      expect(session.status).toBe(201)
      expect(replayed(session)).toBe(false)
      // The user's key holds in any of their sessions.
      const otherSession = yield* postAs({ cookie: yield* sessionCookieHeader }, incidents, body, withKey(key))
      expect(replayed(otherSession)).toBe(true)
      expect(otherSession.text).toBe(session.text)

      expect(yield* incidentsTitled("Logins fail")).toBe(3)
    }))

  it.effect("the stored answer is sealed: a new API key's secret is nowhere in the table", () =>
    Effect.gen(function*() {
      const key = randomUUID()
      const before = new Set((yield* storedKeys).map((row) => row.claim))
      const created = yield* post("/api/v1/admin/api-keys", JSON.stringify({ name: "deploys" }), withKey(key))
      expect(created.status).toBe(201)
      const secret: string = created.json.key
      expect(secret).toMatch(/^svc_/)

      const rows = (yield* storedKeys).filter((row) => !before.has(row.claim))
      expect(rows).toHaveLength(1)
      const row = rows[0]!
      expect(row.answer).not.toBeNull()
      const views = [row.id, row.fingerprint, row.answer!].flatMap((bytes) => {
        const buffer = Buffer.from(bytes)
        return ["utf8", "latin1", "hex", "base64", "base64url"].map((encoding) =>
          buffer.toString(encoding as BufferEncoding)
        )
      })
      for (const view of views) {
        expect(view).not.toContain(secret)
        expect(view).not.toContain(secret.slice(4, 24))
        expect(view).not.toContain(Buffer.from(secret).toString("base64").slice(0, 24))
        expect(view).not.toContain("deploys")
        expect(view).not.toContain(key)
      }

      // The client's key opens it: the retry gets the secret, once more, and no second key exists.
      const retry = yield* post("/api/v1/admin/api-keys", JSON.stringify({ name: "deploys" }), withKey(key))
      expect(replayed(retry)).toBe(true)
      expect(retry.json.key).toBe(secret)
      const sql = yield* SqlClient.SqlClient
      const named = yield* sql<{ count: string }>`select count(*)::text as count from api_keys where name = 'deploys'`
      expect(named[0]!.count).toBe("1")
    }))

  it.effect("malformed keys are 400 BadRequest, and nothing is done", () =>
    Effect.gen(function*() {
      for (const bad of ["", "x".repeat(256), "clé", "a\tb"]) {
        const answer = yield* post(incidents, openIncident("Refused"), withKey(bad))
        expect(answer.status, JSON.stringify(bad)).toBe(400)
        expect(answer.json).toMatchObject({ _tag: "BadRequest", issues: [{ path: ["Idempotency-Key"] }] })
        expect(answer.json.message).toMatch(/Idempotency-Key/)
      }
      // The bounds themselves are keys.
      expect((yield* post(incidents, openIncident("Accepted"), withKey("x".repeat(255)))).status).toBe(201)
      expect((yield* post(incidents, openIncident("Accepted"), withKey(" ~"))).status).toBe(201)
      expect(yield* incidentsTitled("Refused")).toBe(0)
    }))

  it.effect("a claim whose process died is taken over once its lease (60 s) has run out", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const key = randomUUID()
      const before = new Set((yield* storedKeys).map((row) => row.claim))
      expect((yield* post(incidents, openIncident("Status page is stale"), withKey(key))).status).toBe(201)
      const row = (yield* storedKeys).find((stored) => !before.has(stored.claim))!
      // As if the instance died before storing its answer: the claim holds, without an answer.
      yield* sql`update idempotency_keys set answer = null where claim = ${row.claim}`

      const waiting = yield* post(incidents, openIncident("Status page is stale"), withKey(key))
      expect(waiting.status).toBe(409)
      yield* TestClock.adjust("59 seconds")
      expect((yield* post(incidents, openIncident("Status page is stale"), withKey(key))).status).toBe(409)
      yield* TestClock.adjust("2 seconds")
      const taken = yield* post(incidents, openIncident("Status page is stale"), withKey(key))
      expect(taken.status).toBe(201)
      expect(replayed(taken)).toBe(false)
      expect(yield* incidentsTitled("Status page is stale")).toBe(2)
      expect(replayed(yield* post(incidents, openIncident("Status page is stale"), withKey(key)))).toBe(true)
    }))

  // Last: it moves the suite's clock a day on.
  it.effect("keys expire after 24 hours: the key is free again, and housekeeping deletes the rows", () =>
    Effect.gen(function*() {
      const key = randomUUID()
      expect((yield* post(incidents, openIncident("Old news"), withKey(key))).status).toBe(201)
      expect((yield* storedKeys).length).toBeGreaterThan(0)

      // A day and a minute on: housekeeping's pass (every 10 minutes), woken by the move, deletes
      // every key of the day before.
      yield* TestClock.adjust("1441 minutes")
      expect(yield* eventually(Effect.map(storedKeys, (rows) => rows.length), (count) => count === 0)).toBe(0)
      const reused = yield* post(incidents, openIncident("New news"), withKey(key))
      expect(reused.status).toBe(201)
      expect(replayed(reused)).toBe(false)
      expect((yield* storedKeys).length).toBe(1)
    }))
})

describe("across a restart", () => {
  it.live("the stored answer survives the service: a new process on the same database replays it", () =>
    Effect.gen(function*() {
      const database = yield* freshDatabaseUrl
      const config = ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: database.url, ...adminVariables }))
      const key = randomUUID()
      const body = openIncident("Before the restart")

      const first = yield* Effect.gen(function*() {
        const answer = yield* post(incidents, body, withKey(key))
        return { answer, apiKey: yield* SuiteApiKey }
      }).pipe(Effect.provide(TestStack(config, "None")))
      expect(first.answer.status).toBe(201)

      const retry = yield* Effect.gen(function*() {
        const answer = yield* postAs({ authorization: `Bearer ${first.apiKey}` }, incidents, body, withKey(key))
        return { answer, count: yield* incidentsTitled("Before the restart") }
      }).pipe(Effect.provide(TestStack(config, "None")))
      expect(retry.answer.status).toBe(201)
      expect(replayed(retry.answer)).toBe(true)
      expect(retry.answer.text).toBe(first.answer.text)
      expect(retry.count).toBe(1)
    }).pipe(Effect.scoped))
})

describe("on the embedded database (PGlite)", () => {
  it.live("claims, replays and refuses as on PostgreSQL", () =>
    Effect.gen(function*() {
      const key = randomUUID()
      const first = yield* post(incidents, openIncident("Embedded"), withKey(key))
      expect(first.status).toBe(201)
      const retry = yield* post(incidents, openIncident("Embedded"), withKey(key))
      expect(replayed(retry)).toBe(true)
      expect(retry.text).toBe(first.text)
      expect((yield* post(incidents, openIncident("Other"), withKey(key))).status).toBe(422)
      expect(yield* incidentsTitled("Embedded")).toBe(1)
    }).pipe(Effect.provide(TestStack(embeddedConfig(adminVariables), "None"))), 120_000)
})

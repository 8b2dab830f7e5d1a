import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"

import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"

import { Api } from "../../src/api/Api.js"
import { generateApiKey } from "../../src/services/auth/ApiKeys.js"
import { adminPassword, adminVariables, sessionCookieHeader } from "../support/Auth.js"
import { TestDatabaseUrl } from "../support/TestDatabase.js"
import { Anonymous, ApiClient, sendAnonymous, sendJson, SuiteApiKey, TestServer } from "../support/TestServer.js"

const keyFormat = /^svc_[A-Za-z0-9]{32}$/

/** The typed client authenticating with `key`. */
const clientWithKey = (key: string) =>
  Effect.flatMap(Anonymous, (anonymous) =>
    HttpApiClient.make(Api).pipe(
      Effect.provideService(
        HttpClient.HttpClient,
        anonymous.pipe(HttpClient.mapRequest(HttpClientRequest.bearerToken(key)))
      )
    ))

const statusWith = (authorization: string | undefined) =>
  Effect.map(
    sendAnonymous("GET", "/api/v1/admin/components", undefined, authorization === undefined ? {} : { authorization }),
    (response) => response.status
  )

describe("key generation", () => {
  it("gives 10,000 distinct keys of the specified format", () => {
    const keys = Array.from({ length: 10_000 }, generateApiKey)
    for (const key of keys) expect(key).toMatch(keyFormat)
    expect(new Set(keys).size).toBe(keys.length)
    // Every character of the alphabet shows up: no position is stuck.
    expect(new Set(keys.join("").slice(0)).size).toBeGreaterThanOrEqual(62)
  })
})

it.layer(TestServer(adminVariables))("API keys", (it) => {
  it.effect("creates a key shown once, lists it without secrets, and tracks lastUsedAt", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const created = yield* client.apiKeys.create({ payload: { name: "deploy bot" } })
      expect(created.key).toMatch(keyFormat)
      expect(created.prefix).toBe(created.key.slice(0, 12))
      expect(created).toMatchObject({ name: "deploy bot", expiresAt: null, lastUsedAt: null })

      const listed = yield* sendJson("GET", "/api/v1/admin/api-keys")
      const entry = listed.body.find((k: { id: string }) => k.id === created.id)
      expect(Object.keys(entry).sort()).toEqual([
        "createdAt",
        "expiresAt",
        "id",
        "lastUsedAt",
        "name",
        "pageIds",
        "prefix",
        "role"
      ])
      expect(JSON.stringify(listed.body)).not.toContain(created.key)

      const bot = yield* clientWithKey(created.key)
      expect(yield* bot.auth.me()).toEqual({ user: null, authenticatedBy: "apiKey", role: "owner", pageIds: null })
      const firstUse = (yield* client.apiKeys.list({ query: {} })).find((k) => k.id === created.id)!.lastUsedAt
      expect(firstUse).not.toBeNull()

      // Within a minute of the last move, a request leaves it: no write per request.
      yield* TestClock.adjust("59 seconds")
      yield* bot.components.list({ query: {} })
      expect((yield* client.apiKeys.list({ query: {} })).find((k) => k.id === created.id)!.lastUsedAt).toEqual(firstUse)

      yield* TestClock.adjust("4 minutes")
      yield* bot.components.list({ query: {} })
      const secondUse = (yield* client.apiKeys.list({ query: {} })).find((k) => k.id === created.id)!.lastUsedAt
      expect(DateTime.toEpochMillis(secondUse!) - DateTime.toEpochMillis(firstUse!)).toBe((4 * 60 + 59) * 1000)
    }))

  it.effect("a key created in a session belongs to that user", () =>
    Effect.gen(function*() {
      const cookie = yield* sessionCookieHeader
      const created = yield* sendAnonymous("POST", "/api/v1/admin/api-keys", { name: "mine" }, { cookie })
      expect(created.status).toBe(201)
      const me = yield* sendAnonymous("GET", "/api/v1/auth/me", undefined, {
        authorization: `Bearer ${created.body.key}`
      })
      expect(me.body).toMatchObject({ user: { email: adminVariables.ADMIN_EMAIL }, authenticatedBy: "apiKey" })
    }))

  it.effect("expires: a past expiresAt is 400, an expired key is 401", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const now = yield* DateTime.now
      for (const expiresAt of [DateTime.formatIso(DateTime.subtract(now, { seconds: 1 })), "2020-01-01T00:00:00Z"]) {
        const past = yield* sendJson("POST", "/api/v1/admin/api-keys", { name: "late", expiresAt })
        expect(past.status).toBe(400)
        expect(past.body._tag).toBe("BadRequest")
      }
      for (const expiresAt of ["2030-01-01", "2030-01-01T00:00:00+02:00", "tomorrow", 1893456000]) {
        const malformed = yield* sendJson("POST", "/api/v1/admin/api-keys", { name: "odd", expiresAt })
        expect(malformed.status, String(expiresAt)).toBe(400)
      }

      const shortLived = yield* client.apiKeys.create({
        payload: { name: "short-lived", expiresAt: DateTime.add(now, { hours: 1 }) }
      })
      expect(yield* statusWith(`Bearer ${shortLived.key}`)).toBe(200)
      yield* TestClock.adjust("61 minutes")
      const expired = yield* sendAnonymous("GET", "/api/v1/admin/components", undefined, {
        authorization: `Bearer ${shortLived.key}`
      })
      expect(expired.status).toBe(401)
      expect(expired.body).toEqual({ _tag: "Unauthorized", message: "The API key has expired" })
    }))

  it.effect("refuses forged, truncated, altered and malformed credentials", () =>
    Effect.gen(function*() {
      const key = yield* SuiteApiKey
      expect(yield* statusWith(`Bearer ${key}`)).toBe(200)
      expect(yield* statusWith(`bearer ${key}`)).toBe(200)

      const forgeries = new Set<string>()
      fc.assert(
        fc.property(
          fc.stringMatching(/^[A-Za-z0-9]{20}$/),
          fc.integer({ min: 0, max: 31 }),
          fc.integer({ min: 1, max: 31 }),
          (rest, position, cut) => {
            forgeries.add(key.slice(0, 12) + rest) // real prefix, invented remainder
            const altered = key.split("")
            const index = 4 + position
            altered[index] = altered[index] === "a" ? "b" : "a"
            forgeries.add(altered.join("")) // one character changed
            forgeries.add(key.slice(0, 4 + cut)) // truncated
          }
        ),
        { numRuns: 30, seed: 42 }
      )
      forgeries.delete(key)
      for (const forged of forgeries) {
        const response = yield* sendAnonymous("GET", "/api/v1/admin/components", undefined, {
          authorization: `Bearer ${forged}`
        })
        expect(response.status, forged).toBe(401)
        expect(response.body._tag).toBe("Unauthorized")
      }

      for (
        const header of [
          undefined,
          "",
          "Bearer",
          "Bearer ",
          `Basic ${Buffer.from(`admin:${adminPassword}`).toString("base64")}`,
          `Token ${key}`,
          `Bearer ${key} extra`,
          `Bearer ${key}x`,
          `Bearer ${key.toUpperCase()}`,
          `Bearer ${"x".repeat(10_000)}`,
          "Bearer svc_' OR '1'='1",
          "Bearer \u00e9\u00e9"
        ]
      ) {
        expect(yield* statusWith(header), JSON.stringify(header)).toBe(401)
      }
    }))

  it.effect("a key cannot delete itself; a session can delete it and it dies", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const victim = yield* client.apiKeys.create({ payload: { name: "to rotate" } })
      const itself = yield* clientWithKey(victim.key)
      const selfDelete = yield* sendAnonymous("DELETE", `/api/v1/admin/api-keys/${victim.id}`, undefined, {
        authorization: `Bearer ${victim.key}`
      })
      expect(selfDelete.status).toBe(409)
      expect(selfDelete.body._tag).toBe("Conflict")
      // Refused, so nothing happened: the key is still listed and still signs its requests in.
      expect((yield* client.apiKeys.list({ query: {} })).map((k) => k.id)).toContain(victim.id)
      expect(yield* itself.auth.me()).toEqual({ user: null, authenticatedBy: "apiKey", role: "owner", pageIds: null })

      const cookie = yield* sessionCookieHeader
      const deleted = yield* sendAnonymous("DELETE", `/api/v1/admin/api-keys/${victim.id}`, undefined, { cookie })
      expect(deleted.status).toBe(204)
      expect(yield* statusWith(`Bearer ${victim.key}`)).toBe(401)
      const again = yield* sendAnonymous("DELETE", `/api/v1/admin/api-keys/${victim.id}`, undefined, { cookie })
      expect(again.status).toBe(404)
    }))

  it.effect("rotation: create a new key with the old one, then delete the old one with the new", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const old = yield* client.apiKeys.create({ payload: { name: "v1" } })
      const withOld = yield* clientWithKey(old.key)
      const fresh = yield* withOld.apiKeys.create({ payload: { name: "v2" } })
      const withNew = yield* clientWithKey(fresh.key)
      yield* withNew.apiKeys.remove({ params: { id: old.id } })
      expect(yield* statusWith(`Bearer ${old.key}`)).toBe(401)
      expect(yield* statusWith(`Bearer ${fresh.key}`)).toBe(200)
    }))

  it.effect("the database holds no full key, session token or password", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const created = yield* client.apiKeys.create({ payload: { name: "dumped" } })
      const cookie = yield* sessionCookieHeader
      const token = cookie.split("=")[1]!
      const dump = execFileSync("pg_dump", ["--data-only", "--dbname", yield* TestDatabaseUrl], { encoding: "utf8" })
      expect(dump).toContain(created.prefix)
      expect(dump).toContain("scrypt$131072$8$1$")
      for (const secret of [created.key, yield* SuiteApiKey, token, adminPassword]) {
        expect(dump).not.toContain(secret)
      }
      // What they hold instead: the SHA-256 of the key and of the session token.
      const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")
      expect(dump).toContain(`\\x${sha256(created.key)}`)
      expect(dump).toContain(`\\x${sha256(decodeURIComponent(token))}`)
    }))
})

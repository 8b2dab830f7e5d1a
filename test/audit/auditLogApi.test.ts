/**
 * GET /api/v1/admin/audit-log: its filters, its cursor pages and its refusals; and the entry an
 * API key's first use from an address leaves (once per key and address).
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { adminVariables } from "../support/Auth.js"
import { sendAnonymous, sendJson, TestServer } from "../support/TestServer.js"
import { asKey, entriesSince, type Entry, newestId, readLog } from "./AuditLog.js"

/** Every entry `query` selects, page after page of `limit`, following the `Link` headers. */
const allPages = (query: string, limit: number) =>
  Effect.gen(function*() {
    const entries: Array<Entry> = []
    let next: string | undefined = `${query}&limit=${limit}`
    let pages = 0
    while (next !== undefined) {
      const page: { readonly entries: ReadonlyArray<Entry>; readonly link: string | undefined } = yield* readLog(next)
      expect(page.entries.length).toBeLessThanOrEqual(limit)
      entries.push(...page.entries)
      next = page.link === undefined ? undefined : /<[^>]*\?([^>]*)>; rel="next"/.exec(page.link)?.[1]
      expect(++pages).toBeLessThan(50)
    }
    return entries
  })

const newKey = (name: string, role = "owner") =>
  Effect.map(sendJson("POST", "/api/v1/admin/api-keys", { name, role }), (response) => {
    expect(response.status).toBe(201)
    return { id: response.body.id as string, key: response.body.key as string, as: asKey(response.body.key) }
  })

it.layer(TestServer({ ...adminVariables, TRUST_PROXY: "127.0.0.1" }))("the audit log API", (it) => {
  it.effect("filters by actor, operation, target and time, each alone and combined", () =>
    Effect.gen(function*() {
      const other = yield* newKey("other writer")
      const names = ["Alpha", "Beta", "Gamma"]
      const ids: Array<string> = []
      for (const name of names) {
        ids.push((yield* sendJson("POST", "/api/v1/admin/components", { name })).body.id)
      }
      yield* sendJson("PUT", `/api/v1/admin/components/${ids[0]}`, { description: "First" })
      const group = (yield* sendJson("POST", "/api/v1/admin/component-groups", { name: "Letters" })).body
      const byOther = (yield* other.as(sendJson("POST", "/api/v1/admin/components", { name: "Delta" }))).body

      const created = (yield* readLog("operation=components.create")).entries
      expect(created.map((entry) => entry.target.name)).toEqual(["Delta", "Gamma", "Beta", "Alpha"])
      expect(created.every((entry) => entry.operation === "components.create")).toBe(true)

      expect((yield* readLog("targetType=componentGroup")).entries.map((entry) => entry.target.id)).toEqual([group.id])
      expect((yield* readLog(`targetId=${ids[0]}`)).entries.map((entry) => entry.operation)).toEqual([
        "components.update",
        "components.create"
      ])
      expect(
        (yield* readLog(`targetType=component&targetId=${ids[0]}&operation=components.update`)).entries
          .map((entry) => entry.changes)
      ).toEqual([{ description: { before: "", after: "First" } }])

      const ofOther = (yield* readLog(`actorType=apiKey&actorId=${other.id}`)).entries
      expect(ofOther.map((entry) => entry.operation)).toEqual(["components.create", "apiKeys.usedFromNewAddress"])
      expect(ofOther[0]!.target.id).toBe(byOther.id)
      // Of the system's entries (the suite's key, made in process before any request), none is these writes'.
      const bySystem = (yield* readLog("actorType=system")).entries
      expect(bySystem.every((entry) => entry.actor.type === "system")).toBe(true)
      expect(bySystem.filter((entry) => entry.operation === "components.create")).toEqual([])
      expect((yield* readLog("actorId=no-such-actor")).entries).toEqual([])

      // `since` inclusive, `until` exclusive; an empty span is no entry, not an error.
      const [delta, gamma] = created
      const sinceGamma = (yield* readLog(`operation=components.create&since=${gamma!.at}`)).entries
      expect(sinceGamma.map((entry) => entry.target.name)).toEqual(["Delta", "Gamma"])
      const untilGamma = (yield* readLog(`operation=components.create&until=${gamma!.at}`)).entries
      expect(untilGamma.map((entry) => entry.target.name)).toEqual(["Beta", "Alpha"])
      expect((yield* readLog(`since=${delta!.at}&until=${gamma!.at}`)).entries).toEqual([])
      expect((yield* readLog(`since=${delta!.at}&until=${delta!.at}`)).entries).toEqual([])
      expect((yield* readLog("until=2000-01-01T00:00:00Z")).entries).toEqual([])
      expect((yield* readLog("since=2999-01-01T00:00:00Z")).entries).toEqual([])
    }))

  it.effect("pages newest first with a cursor; every entry once", () =>
    Effect.gen(function*() {
      for (let n = 0; n < 7; n++) {
        expect(
          (yield* sendJson("POST", "/api/v1/admin/incident-templates", {
            name: `Template ${n}`,
            title: "Down",
            message: "Down"
          })).status
        ).toBe(201)
      }
      const whole = (yield* readLog("operation=incidentTemplates.create&limit=1000")).entries
      expect(whole).toHaveLength(7)
      const paged = yield* allPages("operation=incidentTemplates.create", 3)
      expect(paged.map((entry) => entry.id)).toEqual(whole.map((entry) => entry.id))
      expect(paged.map((entry) => entry.target.name)).toEqual([6, 5, 4, 3, 2, 1, 0].map((n) => `Template ${n}`))
      // Newest first: `at` never increases along the list.
      const times = paged.map((entry) => Date.parse(entry.at))
      expect([...times].sort((a, b) => b - a)).toEqual(times)
    }))

  it.effect("refuses what it cannot read with a 400 and its error body, and strangers with a 401", () =>
    Effect.gen(function*() {
      for (
        const query of [
          "since=yesterday",
          "since=2030-01-01T00:00:00%2B02:00",
          "until=2030-02-30T00:00:00Z",
          "actorType=robot",
          "limit=0",
          "limit=1001",
          "cursor=not-a-cursor",
          "sort=at"
        ]
      ) {
        const response = yield* sendJson("GET", `/api/v1/admin/audit-log?${query}`)
        expect(response.status, query).toBe(400)
        expect(typeof response.body._tag, query).toBe("string")
        expect(typeof response.body.message, query).toBe("string")
      }
      // A cursor of another list is not this one's.
      const keys = yield* sendJson("GET", "/api/v1/admin/api-keys?limit=1")
      const foreign = /cursor=([^&>]+)/.exec(String(keys.headers["link"]))?.[1]
      if (foreign !== undefined) {
        expect((yield* sendJson("GET", `/api/v1/admin/audit-log?cursor=${foreign}`)).status).toBe(400)
      }
      expect((yield* sendAnonymous("GET", "/api/v1/admin/audit-log")).status).toBe(401)
      // A viewer may read it.
      const viewer = yield* newKey("reader", "viewer")
      expect((yield* viewer.as(sendJson("GET", "/api/v1/admin/audit-log"))).status).toBe(200)
    }))

  it.effect("an API key's first use from an address is one entry; its next uses from there are none", () =>
    Effect.gen(function*() {
      const bot = yield* newKey("deploy bot")
      const before = yield* newestId
      for (let n = 0; n < 3; n++) {
        expect((yield* bot.as(sendJson("GET", "/api/v1/admin/components"))).status).toBe(200)
      }
      const first = yield* entriesSince(before)
      expect(first).toEqual([
        expect.objectContaining({
          operation: "apiKeys.usedFromNewAddress",
          actor: { type: "apiKey", id: bot.id, name: "deploy bot" },
          clientAddress: "127.0.0.1",
          target: { type: "apiKey", id: bot.id, name: "deploy bot" },
          changes: {}
        })
      ])

      // From another address (behind the trusted proxy), once more; an IPv4-mapped one is the same address.
      const mark = yield* newestId
      for (const forwarded of ["203.0.113.9", "203.0.113.9", "::ffff:203.0.113.9"]) {
        const response = yield* bot.as(sendJson("GET", "/api/v1/admin/components", undefined, {
          "x-forwarded-for": forwarded
        }))
        expect(response.status).toBe(200)
      }
      const second = yield* entriesSince(mark)
      expect(second.map((entry) => [entry.operation, entry.clientAddress])).toEqual([
        ["apiKeys.usedFromNewAddress", "203.0.113.9"]
      ])

      // A write by the key from there is its own entry, with the same address.
      yield* bot.as(sendJson("POST", "/api/v1/admin/components", { name: "Via proxy" }, {
        "x-forwarded-for": "203.0.113.9"
      }))
      const [write] = yield* entriesSince(second[0]!.id)
      expect(write).toMatchObject({ operation: "components.create", clientAddress: "203.0.113.9" })
    }))
})

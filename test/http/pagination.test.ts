/**
 * Every paged list walked through its cursor, with a row inserted between pages, sees each row
 * that was there throughout exactly once, in the list's documented order, and no row twice. Rows
 * that tie on the visible order (same display order and name, same time) are among them, so the
 * id that breaks ties is exercised too. Also: the `Link` header's shape, and the 400s of a
 * forged, foreign or malformed cursor and of a limit out of bounds.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

import { nextCursor } from "../../src/client/Pages.js"
import { sendAnonymous, sendJson, TestServer } from "../support/TestServer.js"

const admin = "/api/v1/admin"
const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d+Z$/, "Z")

const created = (path: string, body: unknown) =>
  Effect.map(sendJson("POST", path, body), (response) => {
    expect(response.status, `${path} ${JSON.stringify(response.body)}`).toBe(201)
    return response.body as { readonly id: string }
  })

/** One paged list: where it is, how to add a row to it (answering the row's key) and an item's key. */
interface ListCase {
  readonly name: string
  readonly path: string
  readonly add: (i: number) => Effect.Effect<string, unknown, any>
  readonly keyOf: (item: any) => string
}

const byId = (item: { readonly id: string }) => item.id

/** Walks `path` `limit` items at a time, calling `between` after each page that has a next one. */
const walk = (path: string, limit: number, between: (page: number) => Effect.Effect<unknown, unknown, any>) =>
  Effect.gen(function*() {
    const pages: Array<ReadonlyArray<unknown>> = []
    let url = `${path}?limit=${limit}`
    for (let page = 0; page < 50; page++) {
      const response = yield* sendJson("GET", url)
      expect(response.status, url).toBe(200)
      const items = response.body as ReadonlyArray<unknown>
      expect(items.length).toBeLessThanOrEqual(limit)
      pages.push(items)
      const link = response.headers["link"]
      const cursor = nextCursor(link)
      if (cursor === undefined) return pages
      // The next page is the same list, same limit, the new cursor; the link is relative.
      expect(link).toMatch(
        new RegExp(`^<${path.replace(/[?]/g, "\\?")}\\?limit=${limit}&cursor=[A-Za-z0-9_-]+>; rel="next"$`)
      )
      expect(items.length).toBe(limit)
      yield* between(page)
      url = `${path}?limit=${limit}&cursor=${cursor}`
    }
    throw new Error(`${path}: more than 50 pages`)
  })

it.layer(TestServer())("paged lists", (it) => {
  it.effect("walking any list with inserts between pages sees each existing row once, in order", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const component = yield* created(`${admin}/components`, { name: "Pages" })
      const monitor = yield* created(`${admin}/monitors`, {
        componentId: component.id,
        type: "http",
        url: "http://127.0.0.1:9/"
      })
      const hook = yield* created(`${admin}/webhooks`, {
        name: "Pages",
        url: "http://127.0.0.1:9/hook",
        type: "generic"
      })
      const sameTime = new Date("2030-01-01T00:00:00.123456Z")

      const cases: ReadonlyArray<ListCase> = [
        {
          name: "components",
          path: `${admin}/components`,
          // Two names, one display order: ties on both the visible keys.
          add: (i) => Effect.map(created(`${admin}/components`, { name: i % 2 ? "B" : "A", displayOrder: 5 }), byId),
          keyOf: byId
        },
        {
          name: "component groups",
          path: `${admin}/component-groups`,
          add: (i) =>
            Effect.map(created(`${admin}/component-groups`, { name: i % 2 ? "B" : "A", displayOrder: 5 }), byId),
          keyOf: byId
        },
        {
          name: "incident templates",
          path: `${admin}/incident-templates`,
          // Mixed case: ordered regardless of it.
          add: (i) =>
            Effect.map(
              created(`${admin}/incident-templates`, { name: i % 2 ? `t${i}` : `T${i}`, title: "x", message: "y" }),
              byId
            ),
          keyOf: byId
        },
        {
          name: "incidents",
          path: `${admin}/incidents`,
          add: (i) => Effect.map(created(`${admin}/incidents`, { title: `Incident ${i}`, message: "m" }), byId),
          keyOf: byId
        },
        {
          name: "maintenance",
          path: `${admin}/maintenance`,
          // Starts that tie, and a later one now and then: latest start first, then by id.
          add: (i) =>
            Effect.map(
              created(`${admin}/maintenance`, {
                title: `Window ${i}`,
                scheduledStart: future(i % 3 === 0 ? 20 : 10),
                scheduledEnd: future(30)
              }),
              byId
            ),
          keyOf: byId
        },
        {
          name: "monitors",
          path: `${admin}/monitors`,
          add: (i) =>
            Effect.map(
              created(`${admin}/monitors`, { componentId: component.id, type: "http", url: `http://127.0.0.1:9/${i}` }),
              byId
            ),
          keyOf: byId
        },
        {
          name: "webhooks",
          path: `${admin}/webhooks`,
          add: (i) =>
            Effect.map(
              created(`${admin}/webhooks`, { name: `Hook ${i}`, url: `http://127.0.0.1:9/${i}`, type: "generic" }),
              byId
            ),
          keyOf: byId
        },
        {
          name: "API keys",
          path: `${admin}/api-keys`,
          add: (i) => Effect.map(created(`${admin}/api-keys`, { name: `Key ${i}` }), byId),
          keyOf: byId
        },
        {
          name: "subscribers",
          path: `${admin}/subscribers`,
          add: (i) =>
            Effect.gen(function*() {
              const email = `pages-${i}@example.com`
              expect((yield* sendAnonymous("POST", "/api/v1/subscribe", { email })).status).toBe(202)
              const [row] = yield* sql<{ id: string }>`select id from subscribers where email = ${email}`
              return row!.id
            }),
          keyOf: byId
        },
        {
          name: "probes",
          path: `${admin}/probes`,
          add: (i) =>
            Effect.as(
              sql`
                insert into probes (region, name, version, started_at, sent_at, last_seen_at, concurrency,
                                    checks_last_minute, lag_ms, in_flight)
                values (${i % 2 ? "eu" : "us"}, ${`probe-${i}`}, '1', now(), now(), now(), 1, 0, 0, 0)`,
              `${i % 2 ? "eu" : "us"}/probe-${i}`
            ),
          keyOf: (probe: { readonly region: string; readonly name: string }) => `${probe.region}/${probe.name}`
        },
        {
          name: "webhook deliveries",
          path: `${admin}/webhooks/${hook.id}/deliveries`,
          // The same instant for all: the attempt number, then the id, order them.
          add: (i) =>
            Effect.map(
              sql<{ id: string }>`
                insert into webhook_delivery_attempts
                  (webhook_id, event, test, attempt, success, status_code, error, duration_ms, attempted_at)
                values (${hook.id}, 'incident.created', true, ${1 + (i % 2)}, true, 200, null, 5, ${sameTime})
                returning id`,
              (rows) => rows[0]!.id
            ),
          keyOf: byId
        },
        {
          name: "monitor runs",
          path: `${admin}/monitors/${monitor.id}/results`,
          // Checks and misses together, several regions at one scheduled time.
          add: (i) =>
            Effect.as(
              i % 3 === 2
                ? sql`
                  insert into missed_checks (job_id, region, monitor_id, probe, scheduled_at, recorded_at, reason)
                  values (${`job-${i}`}, ${`r${i}`}, ${monitor.id}, 'p', ${sameTime}, now(), 'late')`
                : sql`
                  insert into check_results (job_id, region, monitor_id, probe, scheduled_at, checked_at, ok, duration_ms)
                  values (${`job-${i}`}, ${`r${i}`}, ${monitor.id}, 'p', ${sameTime}, now(), true, 12)`,
              `r${i}`
            ),
          keyOf: (run: { readonly region: string }) => run.region
        }
      ]

      for (const list of cases) {
        const existing: Array<string> = []
        for (let i = 0; i < 7; i++) existing.push(yield* list.add(i))
        let added = 100
        const pages = yield* walk(list.path, 3, () => Effect.asVoid(list.add(added++)))
        const seen = pages.flat().map(list.keyOf)
        expect(new Set(seen).size, `${list.name}: a row seen twice`).toBe(seen.length)
        for (const key of existing) expect(seen.filter((k) => k === key), `${list.name}: ${key}`).toHaveLength(1)
        // The documented order: the walk's order of the rows there throughout is a full read's.
        const all = ((yield* sendJson("GET", `${list.path}?limit=500`)).body as ReadonlyArray<unknown>).map(list.keyOf)
        const inOrder = (keys: ReadonlyArray<string>) => keys.filter((key) => existing.includes(key))
        expect(inOrder(seen), list.name).toEqual(inOrder(all))
      }
    }))

  it.effect("a forged, foreign or malformed cursor and a limit out of bounds are 400", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) yield* created(`${admin}/components`, { name: `C${i}` })
      const first = yield* sendJson("GET", `${admin}/components?limit=1`)
      const cursor = nextCursor(first.headers["link"])!
      expect(cursor).toBeDefined()
      const decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
      const forge = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url")
      const refused = [
        // Another list's cursor.
        `${admin}/incident-templates?cursor=${cursor}`,
        // The right list, a key of the wrong types or length, or SQL in a value.
        `${admin}/components?cursor=${forge({ ...decoded, k: ["x", "y", "z"] })}`,
        `${admin}/components?cursor=${forge({ ...decoded, k: [1, "a"] })}`,
        `${admin}/components?cursor=${forge({ ...decoded, k: [2 ** 40, "a", "b"] })}`,
        `${admin}/components?cursor=${forge({ ...decoded, k: [1, "a\u0000", "b"] })}`,
        `${admin}/components?cursor=${forge("not an object")}`,
        `${admin}/components?cursor=bm90IGpzb24`,
        `${admin}/components?cursor=`,
        `${admin}/components?cursor=a.b`
      ]
      for (const url of refused) {
        const response = yield* sendJson("GET", url)
        expect(response.status, url).toBe(400)
        expect(response.body._tag, url).toMatch(/^(BadRequest|HttpApiDecodeError)$/)
        expect(JSON.stringify(response.body.issues), url).toContain("cursor")
      }
      // SQL in a cursor is only a value compared with names.
      const withSqlInName = forge({ ...decoded, k: [decoded.k[0], "'); drop table components; --", decoded.k[2]] })
      expect((yield* sendJson("GET", `${admin}/components?cursor=${withSqlInName}`)).status).toBe(200)
      for (const limit of ["0", "1001", "abc", "1.5", "-1"]) {
        const response = yield* sendJson("GET", `${admin}/components?limit=${limit}`)
        expect(response.status, limit).toBe(400)
        expect(JSON.stringify(response.body.issues), limit).toContain("limit")
      }
      // The last page has no next link.
      const all = yield* sendJson("GET", `${admin}/components?limit=1000`)
      expect(all.headers["link"]).toBeUndefined()
    }))

  it.effect("the public incidents list links its next page by offset, with its filter", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 23; i++) yield* created(`${admin}/incidents`, { title: `Public ${i}`, message: "m" })
      const first = yield* sendAnonymous("GET", "/api/v1/status/incidents")
      expect(first.body).toHaveLength(20)
      expect(first.headers["link"]).toBe("</api/v1/status/incidents?offset=20&limit=20>; rel=\"next\"")
      const last = yield* sendAnonymous("GET", "/api/v1/status/incidents?offset=20&limit=20")
      expect(last.body.length).toBeGreaterThanOrEqual(3)
      expect(last.headers["link"]).toBeUndefined()
      const filtered = yield* sendAnonymous("GET", "/api/v1/status/incidents?status=investigating&limit=5&offset=5")
      expect(filtered.headers["link"]).toBe(
        "</api/v1/status/incidents?status=investigating&offset=10&limit=5>; rel=\"next\""
      )
    }))
})

/**
 * The role table (docs/authentication.md, "Roles"), walked: every admin operation of the OpenAPI
 * document names its least role (`x-required-role`), the docs' table says the same for each one,
 * and a key of each role is refused (403 Forbidden) exactly below it, before the request does
 * anything else. Nothing answers 5xx.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { atLeast, type Role, roles } from "../../src/domain/Role.js"
import { adminVariables } from "../support/Auth.js"
import { ApiClient, sendAnonymous, sendJson, TestServer } from "../support/TestServer.js"

interface Operation {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  readonly path: string
  readonly operationId: string
  readonly role: Role | undefined
}

const root = join(import.meta.dirname, "../..")

/** The table of docs/authentication.md: `| \`operationId\` | role |` rows. */
const documentedRoles = (): ReadonlyMap<string, string> => {
  const text = readFileSync(join(root, "docs/authentication.md"), "utf8")
  return new Map([...text.matchAll(/^\| `([a-zA-Z]+\.[a-zA-Z]+)` \| (\w+) \|/gm)].map((m) => [m[1]!, m[2]!]))
}

/** An id no resource has: the operation gets as far as looking it up. */
const unknownId = "00000000-0000-4000-8000-000000000000"

/** Your own account is managed from a session only: every key is refused there, whatever its role. */
const sessionOnly = new Set(["auth.changePassword", "auth.listSessions", "auth.revokeSession"])

const operationsOf = (document: { paths: Record<string, Record<string, Record<string, unknown>>> }) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]): Array<Operation> =>
      ["get", "post", "put", "patch", "delete"].includes(method)
        ? [{
          method: method.toUpperCase() as Operation["method"],
          path,
          operationId: op["operationId"] as string,
          role: op["x-required-role"] as Role | undefined
        }]
        : []
    )
  )

it.layer(TestServer(adminVariables))("roles", (it) => {
  it.effect("every admin operation names its least role, as the docs' table does", () =>
    Effect.gen(function*() {
      const document = (yield* sendAnonymous("GET", "/api/v1/openapi.json")).body
      const operations = operationsOf(document)
      const admin = operations.filter((op) => op.path.startsWith("/api/v1/admin/"))
      expect(admin.length).toBeGreaterThan(60)
      expect(admin.filter((op) => op.role === undefined).map((op) => op.operationId)).toEqual([])
      const withRole = operations.filter((op) => op.role !== undefined)
      const documented = documentedRoles()
      expect(Object.fromEntries(withRole.map((op) => [op.operationId, documented.get(op.operationId)])))
        .toEqual(Object.fromEntries(withRole.map((op) => [op.operationId, op.role])))
      expect([...documented.keys()].sort()).toEqual(withRole.map((op) => op.operationId).sort())
    }))

  it.effect("a key of each role is refused exactly below each operation's role", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const keys = new Map<Role, string>()
      for (const role of roles) {
        keys.set(role, (yield* client.apiKeys.create({ payload: { name: `${role} key`, role } })).key)
      }
      const operations = operationsOf((yield* sendAnonymous("GET", "/api/v1/openapi.json")).body)
        .filter((op) => op.role !== undefined)
      const wrong: Array<string> = []
      for (const op of operations) {
        const path = op.path.replace(/\{[^}]+\}/g, unknownId)
        for (const role of roles) {
          const answer = yield* sendAnonymous(
            op.method,
            path,
            op.method === "GET" || op.method === "DELETE" ? undefined : {},
            { authorization: `Bearer ${keys.get(role)}` }
          )
          const refused = answer.status === 403 && answer.body?._tag === "Forbidden"
          const shouldRefuse = !atLeast(role, op.role!) || sessionOnly.has(op.operationId)
          // Allowed operations may still fail (an unknown id, an empty body, a key with no user): never with 5xx.
          if (refused !== shouldRefuse || answer.status >= 500) {
            wrong.push(`${op.operationId} as ${role}: ${answer.status} ${JSON.stringify(answer.body)}`)
          }
        }
      }
      expect(wrong).toEqual([])
    }))
})

it.layer(TestServer(adminVariables))("API keys' roles and pages", (it) => {
  // sendJson sends the suite's own key: these go with the key given instead.
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

  it.effect("a key has at most its creator's role, and cannot delete a key above its own", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const owner = yield* client.apiKeys.create({ payload: { name: "owner key" } })
      expect(owner.role).toBe("owner")
      const admin = yield* client.apiKeys.create({ payload: { name: "admin key", role: "admin" } })

      const higher = yield* sendAnonymous(
        "POST",
        "/api/v1/admin/api-keys",
        { name: "x", role: "owner" },
        bearer(admin.key)
      )
      expect(higher.status).toBe(400)
      expect(higher.body.issues).toEqual([{ path: ["role"], message: "must be at most your own role, admin" }])
      // Without a role, the key takes its creator's.
      const same = yield* sendAnonymous("POST", "/api/v1/admin/api-keys", { name: "y" }, bearer(admin.key))
      expect(same.body.role).toBe("admin")

      const above = yield* sendAnonymous("DELETE", `/api/v1/admin/api-keys/${owner.id}`, undefined, bearer(admin.key))
      expect(above.status).toBe(403)
      const level = yield* sendAnonymous(
        "DELETE",
        `/api/v1/admin/api-keys/${same.body.id}`,
        undefined,
        bearer(admin.key)
      )
      expect(level.status).toBe(204)
      const me = yield* sendAnonymous("GET", "/api/v1/auth/me", undefined, bearer(admin.key))
      expect(me.body).toMatchObject({ authenticatedBy: "apiKey", role: "admin", pageIds: null })
    }))

  it.effect("a key limited to some pages changes only those", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const mine = yield* client.statusPages.create({ payload: { slug: "team-a" } })
      const theirs = yield* client.statusPages.create({ payload: { slug: "team-b" } })

      const unknown = yield* sendJson("POST", "/api/v1/admin/api-keys", { name: "p", pageIds: [mine.id, unknownId] })
      expect(unknown.status).toBe(400)
      expect(unknown.body.issues).toEqual([{ path: ["pageIds", 1], message: "is not a status page" }])

      const scoped = yield* client.apiKeys.create({ payload: { name: "team a", role: "admin", pageIds: [mine.id] } })
      expect(scoped.pageIds).toEqual([mine.id])
      const own = yield* sendAnonymous("PUT", `/api/v1/admin/pages/${mine.id}`, { title: "Team A" }, bearer(scoped.key))
      expect(own.status).toBe(200)
      const other = yield* sendAnonymous(
        "PUT",
        `/api/v1/admin/pages/${theirs.id}`,
        { title: "Mine now" },
        bearer(scoped.key)
      )
      expect(other.status).toBe(403)
      const removed = yield* sendAnonymous("DELETE", `/api/v1/admin/pages/${theirs.id}`, undefined, bearer(scoped.key))
      expect(removed.status).toBe(403)
      const created = yield* sendAnonymous("POST", "/api/v1/admin/pages", { slug: "team-c" }, bearer(scoped.key))
      expect(created.status).toBe(403)
      expect((yield* client.statusPages.get({ params: { id: theirs.id } })).title).not.toBe("Mine now")
      // Reading is not limited.
      const listed = yield* sendAnonymous("GET", "/api/v1/admin/pages", undefined, bearer(scoped.key))
      expect(listed.status).toBe(200)
    }))
})

describe("roles", () => {
  it("rank from owner down to viewer", () => {
    expect(atLeast("owner", "admin")).toBe(true)
    expect(atLeast("admin", "owner")).toBe(false)
    expect(atLeast("editor", "editor")).toBe(true)
    expect(atLeast("viewer", "editor")).toBe(false)
  })
})

/**
 * The team's members over real HTTP and PostgreSQL: listing, changing roles, disabling and
 * deleting, with the rule that one enabled owner always remains (also against two concurrent
 * demotions), sessions and API keys that stop at once, one audit entry per change, sign-in's
 * own entries, and bad input that is a 4xx, never a 5xx.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

import { adminEmail, adminPassword } from "../support/Auth.js"
import { sendAnonymous, sendJson } from "../support/TestServer.js"
import { addMember, auditEntries, from, sessionOf, signInAs, TeamServer, withSession } from "./TeamStack.js"

const password = "a long enough password"

interface Member {
  readonly id: string
  readonly email: string
  readonly role: string
  readonly disabled: boolean
}

const members = Effect.map(sendJson("GET", "/api/v1/admin/users"), (answer) => answer.body as Array<Member>)

const patch = (id: string, body: unknown) => sendJson("PATCH", `/api/v1/admin/users/${id}`, body)

/** The first administrator's id. */
const adminId = Effect.map(members, (all) => all.find((m) => m.email === adminEmail)!.id)

/** Creates an API key in `cookie`'s session; returns the key. */
const keyOf = (cookie: string) =>
  Effect.map(
    withSession(cookie, "POST", "/api/v1/admin/api-keys", { name: "member's key" }),
    (answer) => {
      if (answer.status !== 201) throw new Error(`key creation answered ${answer.status}`)
      return answer.body.key as string
    }
  )

const statusWithKey = (key: string) =>
  Effect.map(
    sendAnonymous("GET", "/api/v1/admin/components", undefined, { authorization: `Bearer ${key}` }),
    (answer) => answer.status
  )

const statusWithSession = (cookie: string) =>
  Effect.map(withSession(cookie, "GET", "/api/v1/auth/me"), (answer) => answer.status)

it.layer(TeamServer)("team members", (it) => {
  it.effect("lists members oldest first, paged, with role and disabled", () =>
    Effect.gen(function*() {
      yield* addMember("lister@example.test", "viewer", password, "203.0.113.1")
      const first = yield* sendJson("GET", "/api/v1/admin/users?limit=1")
      expect(first.status).toBe(200)
      expect(first.body).toEqual([{
        id: expect.any(String),
        email: adminEmail,
        name: "Administrator",
        role: "owner",
        disabled: false,
        createdAt: expect.any(String)
      }])
      const next = /<([^>]+)>; rel="next"/.exec(first.headers["link"] ?? "")?.[1]
      expect(next).toBeDefined()
      const second = yield* sendJson("GET", next!)
      expect(second.body[0]).toMatchObject({ email: "lister@example.test", role: "viewer", disabled: false })
      // No secret ever: the password hash is not a field.
      expect(JSON.stringify(yield* members)).not.toContain("scrypt")
    }))

  it.effect("the last enabled owner cannot be demoted, disabled or deleted (409)", () =>
    Effect.gen(function*() {
      const id = yield* adminId
      for (
        const answer of [
          yield* patch(id, { role: "admin" }),
          yield* patch(id, { disabled: true }),
          yield* sendJson("DELETE", `/api/v1/admin/users/${id}`)
        ]
      ) {
        expect(answer.status).toBe(409)
        expect(answer.body).toEqual({ _tag: "Conflict", message: expect.stringContaining("owner") })
      }
      // Changing nothing of it is fine, and so is keeping it owner. The refused writes left no
      // entry; the one that changed nothing left its own, with no changes.
      expect((yield* patch(id, { role: "owner", disabled: false })).status).toBe(200)
      expect((yield* members).find((m) => m.id === id)).toMatchObject({ role: "owner", disabled: false })
      expect(yield* auditEntries("team.updateUser", id)).toEqual([expect.objectContaining({ changes: {} })])
    }))

  it.effect("of two concurrent demotions of the only two owners, one fails", () =>
    Effect.gen(function*() {
      const id = yield* adminId
      const other = yield* addMember("second.owner@example.test", "owner", password, "203.0.113.2")
      for (let round = 0; round < 5; round++) {
        const answers = yield* Effect.all([patch(id, { role: "admin" }), patch(other.id, { role: "editor" })], {
          concurrency: "unbounded"
        })
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409])
        const owners = (yield* members).filter((m) => m.role === "owner" && !m.disabled)
        expect(owners.length).toBe(1)
        // Back to two owners for the next round, from the owner that remains.
        const demoted = answers[0]!.status === 200 ? id : other.id
        expect((yield* patch(demoted, { role: "owner" })).status).toBe(200)
      }
      // Disabling and deleting race the same way.
      const answers = yield* Effect.all([
        patch(id, { disabled: true }),
        sendJson("DELETE", `/api/v1/admin/users/${other.id}`)
      ], { concurrency: "unbounded" })
      expect(answers.filter((a) => a.status < 300).length).toBe(1)
      expect(answers.filter((a) => a.status === 409).length).toBe(1)
      expect((yield* members).filter((m) => m.role === "owner" && !m.disabled).length).toBe(1)
      // Restore: the first administrator enabled and owner, the other gone.
      if (answers[0]!.status === 200) {
        expect((yield* patch(id, { disabled: false })).status).toBe(200)
        expect((yield* sendJson("DELETE", `/api/v1/admin/users/${other.id}`)).status).toBe(204)
      }
    }))

  it.effect("disabling ends the member's sessions at once and stops their keys; enabling brings keys back", () =>
    Effect.gen(function*() {
      const email = "disabled@example.test"
      const client = "203.0.113.3"
      const member = yield* addMember(email, "admin", password, client)
      const second = sessionOf(yield* signInAs(email, password, client))
      const key = yield* keyOf(member.cookie)
      expect(yield* statusWithKey(key)).toBe(200)

      const disabled = yield* patch(member.id, { disabled: true })
      expect(disabled.status).toBe(200)
      expect(disabled.body).toMatchObject({ id: member.id, role: "admin", disabled: true })
      expect(yield* statusWithSession(member.cookie)).toBe(401)
      expect(yield* statusWithSession(second)).toBe(401)
      expect(yield* statusWithKey(key)).toBe(401)
      const sql = yield* SqlClient.SqlClient
      expect(yield* sql`select id from sessions where user_id = ${member.id}`).toEqual([])

      // Refused like a wrong password, whatever the password.
      const refused = yield* signInAs(email, password, client)
      expect(refused.status).toBe(401)
      expect(refused.body).toEqual((yield* signInAs(email, "not the password at all", client)).body)

      const entries = yield* auditEntries("team.updateUser", member.id)
      expect(entries).toEqual([expect.objectContaining({
        actorType: "apiKey",
        targetType: "user",
        targetName: email,
        changes: { disabled: { before: false, after: true } }
      })])

      const enabled = yield* patch(member.id, { disabled: false, role: "editor" })
      expect(enabled.body).toMatchObject({ disabled: false, role: "editor" })
      expect(yield* statusWithKey(key)).toBe(200)
      expect((yield* signInAs(email, password, client)).status).toBe(200)
      expect((yield* auditEntries("team.updateUser", member.id)).at(-1)!.changes).toEqual({
        role: { before: "admin", after: "editor" },
        disabled: { before: true, after: false }
      })
    }))

  it.effect("deleting a member deletes their sessions and API keys; the log keeps their name", () =>
    Effect.gen(function*() {
      const email = "leaving@example.test"
      const member = yield* addMember(email, "admin", password, "203.0.113.4")
      const key = yield* keyOf(member.cookie)
      expect((yield* sendJson("DELETE", `/api/v1/admin/users/${member.id}`)).status).toBe(204)
      expect(yield* statusWithSession(member.cookie)).toBe(401)
      expect(yield* statusWithKey(key)).toBe(401)
      const sql = yield* SqlClient.SqlClient
      expect(yield* sql`select id from api_keys where name = 'member''s key' and created_by is null`).toEqual([])
      expect((yield* members).map((m) => m.email)).not.toContain(email)
      expect(yield* auditEntries("team.removeUser", member.id)).toEqual([expect.objectContaining({
        targetName: email,
        changes: expect.objectContaining({ role: { before: "admin", after: null } })
      })])
      expect((yield* sendJson("DELETE", `/api/v1/admin/users/${member.id}`)).status).toBe(404)
    }))

  it.effect("only an owner manages members; any role reads them", () =>
    Effect.gen(function*() {
      const admin = yield* addMember("admin.only@example.test", "admin", password, "203.0.113.5")
      const id = yield* adminId
      expect((yield* withSession(admin.cookie, "GET", "/api/v1/admin/users")).status).toBe(200)
      const refused = yield* withSession(admin.cookie, "PATCH", `/api/v1/admin/users/${admin.id}`, { role: "owner" })
      expect(refused.status).toBe(403)
      expect((yield* withSession(admin.cookie, "DELETE", `/api/v1/admin/users/${id}`)).status).toBe(403)
      expect((yield* members).find((m) => m.id === admin.id)!.role).toBe("admin")
    }))

  it.effect("sign-ins and failed sign-ins leave entries; a throttled attempt none", () =>
    Effect.gen(function*() {
      const id = yield* adminId
      const client = "203.0.113.6"
      expect((yield* signInAs(adminEmail, adminPassword, client)).status).toBe(200)
      const [signedIn] = (yield* auditEntries("auth.signIn", id)).slice(-1)
      expect(signedIn).toEqual(expect.objectContaining({
        actorType: "user",
        actorId: id,
        actorName: adminEmail,
        clientAddress: client,
        targetType: "user",
        targetId: id,
        targetName: adminEmail
      }))

      const typed = `  Nobody.Here@Example.TEST  `
      expect((yield* signInAs(typed, "whatever it is", client)).status).toBe(401)
      const [unknown] = (yield* auditEntries("auth.signInFailed", null)).slice(-1)
      expect(unknown).toMatchObject({ actorType: "user", actorId: null, targetId: null, clientAddress: client })
      expect(unknown!.actorName).toBe("nobody.here@example.test")

      const throttled = "203.0.113.7"
      for (let i = 0; i < 5; i++) expect((yield* signInAs(adminEmail, `wrong ${i}`, throttled)).status).toBe(401)
      const failures = (yield* auditEntries("auth.signInFailed", id)).length
      const refused = yield* signInAs(adminEmail, adminPassword, throttled)
      expect(refused.status).toBe(429)
      expect((yield* auditEntries("auth.signInFailed", id)).length).toBe(failures)
      expect((yield* auditEntries("auth.signIn", id)).filter((e) => e.clientAddress === throttled)).toEqual([])
    }))

  it.effect("bad input is a 4xx with the error body, never a 5xx", () =>
    Effect.gen(function*() {
      const id = yield* adminId
      const cases: Array<["GET" | "PATCH" | "DELETE", string, unknown]> = [
        ["PATCH", `/api/v1/admin/users/${id}`, { role: "king" }],
        ["PATCH", `/api/v1/admin/users/${id}`, { disabled: "yes" }],
        ["PATCH", `/api/v1/admin/users/${id}`, [1, 2]],
        ["PATCH", `/api/v1/admin/users/${id}`, "role=viewer"],
        ["PATCH", "/api/v1/admin/users/00000000-0000-4000-8000-000000000000", { role: "viewer" }],
        ["PATCH", "/api/v1/admin/users/'%20or%201=1", { role: "viewer" }],
        ["PATCH", `/api/v1/admin/users/${"x".repeat(101)}`, { role: "viewer" }],
        ["DELETE", "/api/v1/admin/users/00000000-0000-4000-8000-000000000000", undefined],
        ["DELETE", "/api/v1/admin/users/%00", undefined],
        ["GET", "/api/v1/admin/users?cursor=bm90IG91cnM", undefined],
        ["GET", "/api/v1/admin/users?limit=100000", undefined]
      ]
      for (const [method, url, body] of cases) {
        const answer = yield* sendJson(method, url, body)
        expect(answer.status, `${method} ${url} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400)
        expect(answer.status, `${method} ${url} ${JSON.stringify(body)}`).toBeLessThan(500)
        expect(typeof answer.body._tag).toBe("string")
      }
      // Without credentials, nothing.
      const anonymous = yield* sendAnonymous("GET", "/api/v1/admin/users", undefined, from("203.0.113.8"))
      expect(anonymous.status).toBe(401)
    }))
})

/**
 * A member's own account over real HTTP and PostgreSQL: changing the password (the current one
 * proven and throttled like a sign-in, the other sessions ended, device cookies renewed only for
 * the browser that changed it), and listing and ending their own sessions, never another's.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { sendJson } from "../support/TestServer.js"
import { addMember, auditEntries, sessionOf, signInAs, TeamServer, withSession } from "./TeamStack.js"

const password = "a long enough password"
const newPassword = "another long enough password"

const changePassword = (cookie: string, body: unknown, client = "192.0.2.1") =>
  withSession(cookie, "PUT", "/api/v1/auth/password", body, client)

const statusWithSession = (cookie: string) =>
  Effect.map(withSession(cookie, "GET", "/api/v1/auth/me"), (answer) => answer.status)

it.layer(TeamServer)("own account", (it) => {
  it.effect("changing the password keeps this session, ends the others, and only the new one signs in", () =>
    Effect.gen(function*() {
      const email = "changer@example.test"
      const client = "203.0.113.20"
      const member = yield* addMember(email, "editor", password, client)
      const other = yield* signInAs(email, password, client)
      const otherDevice = other.cookies.find(({ name }) => name === "__Host-device")!.value

      const short = yield* changePassword(member.cookie, { currentPassword: password, newPassword: "short" })
      expect(short.status).toBe(400)
      expect(short.body).toMatchObject({ _tag: "BadRequest", issues: [{ path: ["newPassword"] }] })

      const wrong = yield* changePassword(member.cookie, { currentPassword: "not my password", newPassword })
      expect(wrong.status).toBe(403)
      expect(wrong.body).toEqual({ _tag: "Forbidden", message: "The current password is wrong" })
      expect(yield* statusWithSession(sessionOf(other))).toBe(200)

      const changed = yield* changePassword(member.cookie, { currentPassword: password, newPassword })
      expect(changed.status).toBe(204)
      // A new device cookie for this browser: the old ones no longer verify.
      expect(changed.headers["set-cookie"]).toMatch(/__Host-device=/)
      expect(yield* statusWithSession(member.cookie)).toBe(200)
      expect(yield* statusWithSession(sessionOf(other))).toBe(401)
      expect((yield* signInAs(email, password, client)).status).toBe(401)
      expect((yield* signInAs(email, newPassword, client)).status).toBe(200)
      // The other browser's device cookie no longer counts: its failures meet the per-account-and-client limit.
      for (let i = 0; i < 5; i++) {
        yield* signInAs(email, `wrong ${i}`, "203.0.113.21", { cookie: `__Host-device=${otherDevice}` })
      }
      const outsider = yield* signInAs(email, newPassword, "203.0.113.21", { cookie: `__Host-device=${otherDevice}` })
      expect(outsider.status).toBe(429)

      const [entry] = yield* auditEntries("auth.changePassword", member.id)
      expect(entry).toMatchObject({
        actorType: "user",
        actorId: member.id,
        targetType: "user",
        changes: { password: { before: "(secret)", after: "(secret)" } }
      })
      const sql = yield* SqlClient.SqlClient
      const [hash] = yield* sql<{ passwordHash: string }>`select password_hash from users where id = ${member.id}`
      const logged = yield* sql<{ text: string }>`select changes::text as text from audit_log`
      expect(logged.some((row) => row.text.includes(hash!.passwordHash.split("$")[4]!))).toBe(false)
    }))

  it.effect("a wrong current password counts as a failed sign-in: throttled, with Retry-After", () =>
    Effect.gen(function*() {
      const email = "guesser@example.test"
      const client = "203.0.113.22"
      const member = yield* addMember(email, "viewer", password, client)
      for (let i = 0; i < 5; i++) {
        const wrong = yield* changePassword(member.cookie, { currentPassword: `guess ${i}`, newPassword }, client)
        expect(wrong.status).toBe(403)
      }
      const throttled = yield* changePassword(member.cookie, { currentPassword: password, newPassword }, client)
      expect(throttled.status).toBe(429)
      expect(Number(throttled.headers["retry-after"])).toBeGreaterThan(0)
      expect((yield* auditEntries("auth.signInFailed", member.id)).length).toBe(5)
      expect(yield* auditEntries("auth.changePassword", member.id)).toEqual([])
    }))

  it.effect("an API key manages no account: password and sessions are 403", () =>
    Effect.gen(function*() {
      const answer = yield* sendJson("PUT", "/api/v1/auth/password", { currentPassword: password, newPassword })
      expect(answer.status).toBe(403)
      expect(answer.body._tag).toBe("Forbidden")
      const sessions = yield* sendJson("GET", "/api/v1/auth/sessions")
      expect(sessions.status).toBe(403)
      expect(sessions.body).toEqual({ _tag: "Forbidden", message: expect.stringContaining("session") })
    }))

  it.effect("lists the user's own live sessions, newest first, marking the current one", () =>
    Effect.gen(function*() {
      const email = "lister.of.sessions@example.test"
      const member = yield* addMember(email, "viewer", password, "203.0.113.23")
      yield* TestClock.adjust("1 second")
      const second = sessionOf(yield* signInAs(email, password, "203.0.113.24"))
      yield* addMember("someone.else@example.test", "viewer", password, "203.0.113.25")

      const listed = yield* withSession(second, "GET", "/api/v1/auth/sessions")
      expect(listed.status).toBe(200)
      expect(listed.body).toEqual([
        {
          id: expect.any(String),
          createdAt: expect.any(String),
          lastSeenAt: expect.any(String),
          expiresAt: expect.any(String),
          clientAddress: "203.0.113.24",
          current: true
        },
        expect.objectContaining({ clientAddress: "203.0.113.23", current: false })
      ])
      expect(Date.parse(listed.body[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(listed.body[1].createdAt))
      const fromFirst = yield* withSession(member.cookie, "GET", "/api/v1/auth/sessions")
      expect(fromFirst.body.map((s: { current: boolean }) => s.current)).toEqual([false, true])
    }))

  it.effect("ends one of the user's own sessions, the current one too; another's or an unknown one is 404", () =>
    Effect.gen(function*() {
      const email = "ender@example.test"
      const member = yield* addMember(email, "viewer", password, "203.0.113.26")
      const second = sessionOf(yield* signInAs(email, password, "203.0.113.26"))
      const stranger = yield* addMember("stranger@example.test", "owner", password, "203.0.113.27")
      const [strangers] = (yield* withSession(stranger.cookie, "GET", "/api/v1/auth/sessions")).body as Array<
        { id: string }
      >

      const sessions = (yield* withSession(second, "GET", "/api/v1/auth/sessions")).body as Array<
        { id: string; current: boolean }
      >
      const current = sessions.find((s) => s.current)
      const first = sessions.find((s) => !s.current)
      expect((yield* withSession(second, "DELETE", `/api/v1/auth/sessions/${first!.id}`)).status).toBe(204)
      expect(yield* statusWithSession(member.cookie)).toBe(401)
      expect(yield* statusWithSession(second)).toBe(200)

      for (const id of [strangers!.id, first!.id, "00000000-0000-4000-8000-000000000000", "' or 1=1 --"]) {
        const answer = yield* withSession(second, "DELETE", `/api/v1/auth/sessions/${encodeURIComponent(id)}`)
        expect(answer.status, id).toBe(404)
        expect(answer.body._tag).toBe("NotFound")
      }
      expect(yield* statusWithSession(stranger.cookie)).toBe(200)
      // Even an owner cannot end someone else's session through this.
      const byOwner = yield* withSession(stranger.cookie, "DELETE", `/api/v1/auth/sessions/${current!.id}`)
      expect(byOwner.status).toBe(404)

      const own = yield* withSession(second, "DELETE", `/api/v1/auth/sessions/${current!.id}`)
      expect(own.status).toBe(204)
      expect(own.headers["set-cookie"]).toMatch(/^__Host-session=;.*Max-Age=0/i)
      expect(yield* statusWithSession(second)).toBe(401)
      expect((yield* auditEntries("auth.revokeSession")).map((e) => e.targetId)).toEqual([first!.id, current!.id])
    }))

  it.effect("bad bodies are a 4xx, never a 5xx", () =>
    Effect.gen(function*() {
      const member = yield* addMember("careless@example.test", "viewer", password, "203.0.113.28")
      for (
        const body of [
          {},
          { currentPassword: password },
          { currentPassword: 1, newPassword: 2 },
          { currentPassword: password, newPassword: "x".repeat(2000) },
          "not json",
          null
        ]
      ) {
        const answer = yield* changePassword(member.cookie, body)
        expect(answer.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400)
        expect(answer.status, JSON.stringify(body)).toBeLessThan(500)
      }
      const long = yield* withSession(member.cookie, "DELETE", `/api/v1/auth/sessions/${"x".repeat(101)}`)
      expect(long.status).toBeGreaterThanOrEqual(400)
      expect(long.status).toBeLessThan(500)
    }))
})

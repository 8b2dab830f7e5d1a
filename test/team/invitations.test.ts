/**
 * Invitations to the team over real HTTP, a real SMTP capture and PostgreSQL: the mail and its
 * link, reading and accepting it (a new account, an existing one), its one use, replacing,
 * revoking and expiry, the durable mail path through an SMTP outage, the per-client limit, and
 * bad input, which is a 4xx, never a 5xx.
 */
import { createHash } from "node:crypto"

import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { adminEmail, adminPassword } from "../support/Auth.js"
import { realPause } from "../support/Eventually.js"
import { publicUrl, Smtp } from "../support/MailStack.js"
import { sendAnonymous, sendJson } from "../support/TestServer.js"
import {
  accept,
  addMember,
  auditEntries,
  inspect,
  invite,
  mailsTo,
  sessionOf,
  signInAs,
  TeamServer,
  teamServer,
  tokenFromMail,
  waitForMails,
  withSession
} from "./TeamStack.js"

const password = "a long enough password"

/** The invitation mail rows of `email`. */
const mailRows = (email: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ status: string; attempts: number; verifyToken: string | null }>`
      select m.status, m.attempts, m.verify_token from mail_deliveries m
      join invitations i on i.id = m.invitation_id where i.email = ${email} order by m.sequence`)

/** Moves the TestClock a second at a time, with real pauses for the dispatcher, until `done` holds. */
const advanceUntil = <A, E, R>(check: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let round = 0; round < 120; round++) {
      yield* realPause(30)
      const result = yield* check
      if (done(result)) return result
      yield* TestClock.adjust("1 second")
    }
    return yield* check
  })

it.layer(teamServer(Dispatcher))("invitations", (it) => {
  it.effect("invite, mail, inspect, accept: a new account signed in with the invitation's role", () =>
    Effect.gen(function*() {
      const email = "new.member@example.test"
      const invited = yield* invite(" New.Member@Example.TEST ", "editor")
      expect(invited.status).toBe(201)
      expect(invited.body).toEqual({
        id: expect.any(String),
        email,
        role: "editor",
        invitedBy: null,
        createdAt: expect.any(String),
        expiresAt: expect.any(String)
      })
      expect(Date.parse(invited.body.expiresAt) - Date.parse(invited.body.createdAt)).toBe(72 * 3600 * 1000)

      const [mail] = yield* waitForMails(email, 1)
      const organization = (yield* sendJson("GET", "/api/v1/admin/org")).body.name as string
      expect(mail!.parsed.subject).toBe(`Invitation to the status page team of ${organization}`)
      const text = mail!.parsed.text ?? ""
      expect(text).toContain(`You have been invited (${email}) to the team of the status page of ${organization}`)
      expect(text).toContain("as editor")
      expect(text).toContain(`${publicUrl}/admin/invitation#`)
      const token = yield* tokenFromMail(email)
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)

      // Only the token's SHA-256 is kept; the mail's row forgets the token once sent.
      const sql = yield* SqlClient.SqlClient
      const [stored] = yield* sql<{ tokenHash: Uint8Array }>`select token_hash from invitations where email = ${email}`
      expect(Buffer.from(stored!.tokenHash)).toEqual(createHash("sha256").update(token).digest())
      expect(yield* mailRows(email)).toEqual([{ status: "sent", attempts: 1, verifyToken: null }])

      const preview = yield* inspect(token, "198.51.100.1")
      expect(preview.status).toBe(200)
      expect(preview.body).toEqual({
        email,
        role: "editor",
        existingAccount: false,
        expiresAt: invited.body.expiresAt
      })

      const accepted = yield* accept({ token, name: "  New Member ", password }, "198.51.100.1")
      expect(accepted.status).toBe(200)
      expect(accepted.body).toEqual({ user: { id: expect.any(String), email, name: "New Member", role: "editor" } })
      const names = accepted.cookies.map(({ name }) => name)
      expect(names).toEqual(expect.arrayContaining(["__Host-session", "__Host-device"]))
      const me = yield* withSession(sessionOf(accepted), "GET", "/api/v1/auth/me")
      expect(me.body).toMatchObject({ user: { email, role: "editor" }, authenticatedBy: "session", role: "editor" })
      // Signed in for real: the password works, and the member is listed with the role.
      expect((yield* signInAs(email, password, "198.51.100.1")).status).toBe(200)
      const members = (yield* sendJson("GET", "/api/v1/admin/users")).body as Array<{ email: string; role: string }>
      expect(members.find((m) => m.email === email)).toMatchObject({ role: "editor", disabled: false })

      // The link works once.
      expect((yield* accept({ token, name: "Again", password }, "198.51.100.1")).status).toBe(404)
      expect((yield* inspect(token, "198.51.100.1")).status).toBe(404)
      const open = (yield* sendJson("GET", "/api/v1/admin/invitations")).body as Array<{ email: string }>
      expect(open.map((i) => i.email)).not.toContain(email)

      const [invitedEntry] = yield* auditEntries("team.invite", invited.body.id)
      expect(invitedEntry).toMatchObject({
        actorType: "apiKey",
        targetType: "invitation",
        targetName: email,
        changes: { email: { before: null, after: email }, role: { before: null, after: "editor" } }
      })
      const acceptedEntries = yield* auditEntries("auth.acceptInvitation", accepted.body.user.id)
      expect(acceptedEntries).toEqual([expect.objectContaining({
        actorType: "user",
        actorId: accepted.body.user.id,
        actorName: email,
        clientAddress: "198.51.100.1",
        targetType: "user"
      })])
    }))

  it.effect("a new account needs a name and a password of 12 characters; the link still works after", () =>
    Effect.gen(function*() {
      const email = "careful@example.test"
      yield* invite(email, "viewer")
      const token = yield* tokenFromMail(email)
      const client = "198.51.100.2"
      const noName = yield* accept({ token, password }, client)
      expect(noName.status).toBe(400)
      expect(noName.body).toMatchObject({ _tag: "BadRequest", issues: [{ path: ["name"] }] })
      const short = yield* accept({ token, name: "Careful", password: "short" }, client)
      expect(short.status).toBe(400)
      expect(short.body.issues).toEqual([{ path: ["password"], message: expect.stringContaining("12") }])
      expect((yield* inspect(token, client)).status).toBe(200)
      expect((yield* accept({ token, name: "Careful", password }, client)).status).toBe(200)
    }))

  it.effect("an existing account accepts with its own password, takes the role and is enabled again", () =>
    Effect.gen(function*() {
      const email = "returning@example.test"
      const client = "198.51.100.3"
      const member = yield* addMember(email, "editor", password, client)

      // An enabled member cannot be invited, nor the first administrator.
      for (const address of [email, adminEmail]) {
        const refused = yield* invite(address, "viewer")
        expect(refused.status).toBe(409)
        expect(refused.body._tag).toBe("Conflict")
      }

      expect((yield* sendJson("PATCH", `/api/v1/admin/users/${member.id}`, { disabled: true })).status).toBe(200)
      const before = (yield* mailsTo(email)).length
      expect((yield* invite(email, "admin")).status).toBe(201)
      const token = yield* tokenFromMail(email, before)
      expect((yield* inspect(token, client)).body).toMatchObject({ existingAccount: true, role: "admin" })

      const wrong = yield* accept({ token, password: "not the password of the account" }, client)
      expect(wrong.status).toBe(401)
      expect(wrong.body).toEqual({ _tag: "Unauthorized", message: "Invalid email or password" })
      // A name given for an existing account changes nothing.
      const accepted = yield* accept({ token, name: "Someone Else", password }, client)
      expect(accepted.status).toBe(200)
      expect(accepted.body.user).toEqual({ id: member.id, email, name: `Member ${email}`, role: "admin" })
      const members = (yield* sendJson("GET", "/api/v1/admin/users")).body as Array<{ id: string }>
      expect(members.find((m) => m.id === member.id)).toMatchObject({ role: "admin", disabled: false })
      const [entry] = yield* auditEntries("auth.acceptInvitation", member.id)
      expect(entry).toMatchObject({ actorId: member.id, changes: expect.any(Object) })
      const last = (yield* auditEntries("auth.acceptInvitation", member.id)).at(-1)!
      expect(last.changes).toEqual({
        role: { before: "editor", after: "admin" },
        disabled: { before: true, after: false }
      })
    }))

  it.effect("guessing an existing account's password through its invitation is throttled like sign-in", () =>
    Effect.gen(function*() {
      const email = "guessed@example.test"
      const client = "198.51.100.4"
      const member = yield* addMember(email, "viewer", password, client)
      yield* sendJson("PATCH", `/api/v1/admin/users/${member.id}`, { disabled: true })
      const before = (yield* mailsTo(email)).length
      yield* invite(email, "viewer")
      const token = yield* tokenFromMail(email, before)
      for (let i = 0; i < 5; i++) {
        expect((yield* accept({ token, password: `wrong guess number ${i}` }, client)).status).toBe(401)
      }
      const throttled = yield* accept({ token, password }, client)
      expect(throttled.status).toBe(429)
      expect(Number(throttled.headers["retry-after"])).toBeGreaterThan(0)
      expect((yield* auditEntries("auth.signInFailed", member.id)).length).toBe(5)
    }))

  it.effect("inviting again replaces the open invitation and its link, also when invitations race", () =>
    Effect.gen(function*() {
      const email = "twice@example.test"
      const client = "198.51.100.5"
      const first = yield* invite(email, "viewer")
      const firstToken = yield* tokenFromMail(email)
      const second = yield* invite(email, "admin")
      expect(second.status).toBe(201)
      expect(second.body.id).not.toBe(first.body.id)
      const secondToken = yield* tokenFromMail(email, 1)
      expect((yield* inspect(firstToken, client)).status).toBe(404)
      expect((yield* inspect(secondToken, client)).body).toMatchObject({ role: "admin" })
      const open = (yield* sendJson("GET", "/api/v1/admin/invitations")).body as Array<{ email: string }>
      expect(open.filter((i) => i.email === email)).toEqual([expect.objectContaining({ id: second.body.id })])

      // Several at once: one open invitation remains, and no request fails.
      const all = yield* Effect.all(
        ["viewer", "editor", "admin", "owner"].map((role) => invite(email, role as "viewer")),
        { concurrency: "unbounded" }
      )
      expect(all.map((r) => r.status)).toEqual([201, 201, 201, 201])
      const after = (yield* sendJson("GET", "/api/v1/admin/invitations")).body as Array<{ email: string }>
      expect(after.filter((i) => i.email === email).length).toBe(1)
    }))

  it.effect("revoking ends the link at once; revoking again, or an unknown id, is 404", () =>
    Effect.gen(function*() {
      const email = "revoked@example.test"
      const client = "198.51.100.6"
      const invited = yield* invite(email, "editor")
      const token = yield* tokenFromMail(email)
      expect((yield* sendJson("DELETE", `/api/v1/admin/invitations/${invited.body.id}`)).status).toBe(204)
      expect((yield* inspect(token, client)).status).toBe(404)
      expect((yield* accept({ token, name: "Too Late", password }, client)).status).toBe(404)
      const again = yield* sendJson("DELETE", `/api/v1/admin/invitations/${invited.body.id}`)
      expect(again.status).toBe(404)
      expect(again.body._tag).toBe("NotFound")
      expect(yield* auditEntries("team.revokeInvitation", invited.body.id)).toEqual([
        expect.objectContaining({ targetType: "invitation", targetName: email })
      ])
    }))

  it.effect("an SMTP outage delays the invitation; revoked meanwhile, it is not sent", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const late = "late@example.test"
      smtp.refuse(late, 2)
      expect((yield* invite(late, "viewer")).status).toBe(201)
      // Refused at once and after 5 s, then sent after 10 s more.
      const rows = yield* advanceUntil(mailRows(late), (found) => found[0]?.status === "sent")
      expect(rows).toEqual([{ status: "sent", attempts: 3, verifyToken: null }])
      const token = yield* tokenFromMail(late)
      expect((yield* inspect(token, "198.51.100.7")).status).toBe(200)

      const dropped = "dropped@example.test"
      smtp.refuse(dropped, 1)
      const invited = yield* invite(dropped, "viewer")
      yield* advanceUntil(mailRows(dropped), (found) => (found[0]?.attempts ?? 0) >= 1)
      expect((yield* sendJson("DELETE", `/api/v1/admin/invitations/${invited.body.id}`)).status).toBe(204)
      expect(yield* mailRows(dropped)).toEqual([])
      for (let i = 0; i < 30; i++) {
        yield* TestClock.adjust("1 second")
        yield* realPause(10)
      }
      expect(yield* mailsTo(dropped)).toEqual([])
    }))

  it.effect("reading and accepting links is limited per client address", () =>
    Effect.gen(function*() {
      const client = "198.51.100.9"
      for (let i = 0; i < 20; i++) {
        expect((yield* inspect(`guess${i}`.padEnd(43, "x"), client)).status).toBe(404)
      }
      const limited = yield* inspect("guess".padEnd(43, "y"), client)
      expect(limited.status).toBe(429)
      expect(limited.body._tag).toBe("TooManyRequests")
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0)
      expect((yield* accept({ token: "z".repeat(43), password }, client)).status).toBe(429)
      // Another client is not affected.
      expect((yield* inspect("w".repeat(43), "198.51.100.10")).status).toBe(404)
    }))

  it.effect("bad input is a 4xx with the error body, never a 5xx", () =>
    Effect.gen(function*() {
      const client = "198.51.100.11"
      const cases: Array<[string, string, unknown]> = [
        ["POST", "/api/v1/auth/invitations/inspect", {}],
        ["POST", "/api/v1/auth/invitations/inspect", { token: 42 }],
        ["POST", "/api/v1/auth/invitations/inspect", { token: "x".repeat(129) }],
        ["POST", "/api/v1/auth/invitations/inspect", { token: "\u0000" }],
        ["POST", "/api/v1/auth/invitations/inspect", "not json"],
        ["POST", "/api/v1/auth/invitations/accept", { token: "abc" }],
        ["POST", "/api/v1/auth/invitations/accept", { token: "abc", password: "x".repeat(2000) }],
        ["POST", "/api/v1/auth/invitations/accept", { token: "abc", password, name: "   " }],
        ["POST", "/api/v1/auth/invitations/accept", { token: "' or 1=1 --", password, name: "x" }]
      ]
      for (const [method, url, body] of cases) {
        const answer = yield* sendAnonymous(method as "POST", url, body, { "x-forwarded-for": client })
        expect(answer.status, `${url} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400)
        expect(answer.status, `${url} ${JSON.stringify(body)}`).toBeLessThan(500)
        expect(typeof answer.body._tag).toBe("string")
      }
      const admin: Array<[string, string, unknown]> = [
        ["POST", "/api/v1/admin/invitations", { email: "nope", role: "viewer" }],
        ["POST", "/api/v1/admin/invitations", { email: "a@example.test", role: "king" }],
        ["POST", "/api/v1/admin/invitations", { email: "a@example.test\r\nBcc: x@example.test", role: "viewer" }],
        ["POST", "/api/v1/admin/invitations", { email: `${"a".repeat(250)}@example.test`, role: "viewer" }],
        ["DELETE", "/api/v1/admin/invitations/%00", undefined],
        ["DELETE", `/api/v1/admin/invitations/${"x".repeat(101)}`, undefined],
        ["DELETE", "/api/v1/admin/invitations/00000000-0000-4000-8000-000000000000", undefined],
        ["GET", "/api/v1/admin/invitations?cursor=bm90IG91cnM", undefined],
        ["GET", "/api/v1/admin/invitations?limit=0", undefined]
      ]
      for (const [method, url, body] of admin) {
        const answer = yield* sendJson(method as "POST", url, body)
        expect(answer.status, `${method} ${url}`).toBeGreaterThanOrEqual(400)
        expect(answer.status, `${method} ${url}`).toBeLessThan(500)
        expect(typeof answer.body._tag).toBe("string")
      }
    }))

  it.effect("only an owner invites, and the invitation names them", () =>
    Effect.gen(function*() {
      const admin = yield* addMember("an.admin@example.test", "admin", password, "198.51.100.12")
      const refused = yield* withSession(admin.cookie, "POST", "/api/v1/admin/invitations", {
        email: "friend@example.test",
        role: "owner"
      })
      expect(refused.status).toBe(403)
      expect((yield* withSession(admin.cookie, "GET", "/api/v1/admin/invitations")).status).toBe(200)

      const owner = yield* signInAs(adminEmail, adminPassword, "198.51.100.12")
      const invited = yield* withSession(sessionOf(owner), "POST", "/api/v1/admin/invitations", {
        email: "friend@example.test",
        role: "owner"
      })
      expect(invited.status).toBe(201)
      expect(invited.body.invitedBy).toBe("Administrator")
      const [mail] = yield* waitForMails("friend@example.test", 1)
      expect(mail!.parsed.text).toContain("Administrator has invited you (friend@example.test)")
      expect(mail!.parsed.text).toContain("as owner")
      const [entry] = yield* auditEntries("team.invite", invited.body.id)
      expect(entry).toMatchObject({ actorType: "user", actorName: adminEmail, clientAddress: "192.0.2.1" })
    }))
})

// Without the dispatcher: its polling makes moving the clock by days slow.
it.layer(TeamServer)("invitations, over days", (it) => {
  it.effect("a link expires 72 hours after it was sent", () =>
    Effect.gen(function*() {
      const email = "expiring@example.test"
      const client = "198.51.100.8"
      yield* invite(email, "viewer")
      const token = yield* tokenFromMail(email)
      yield* TestClock.adjust("71 hours")
      expect((yield* inspect(token, client)).status).toBe(200)
      yield* TestClock.adjust("1 hour")
      expect((yield* inspect(token, client)).status).toBe(404)
      expect((yield* accept({ token, name: "Expired", password }, client)).status).toBe(404)
      // Listed still, so an owner sees it lapsed and can invite again.
      const open = (yield* sendJson("GET", "/api/v1/admin/invitations")).body as Array<{ email: string }>
      expect(open.map((i) => i.email)).toContain(email)
    }))
})

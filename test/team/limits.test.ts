/**
 * What a limited credential cannot widen, found by playing attacker against the team: a key
 * limited to some pages cannot make an unlimited key or member, a viewer cannot read a chat
 * webhook's URL (its credential) in the list or the audit log, a key cannot act on its creator's
 * own account, no entry shows a key's prefix, and an invitation dies with its sender's owner role.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { sendAnonymous, sendJson } from "../support/TestServer.js"
import { accept, addMember, TeamServer, tokenFromMail, withSession } from "./TeamStack.js"

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
const password = "a long enough password"

it.layer(TeamServer)("limits", (it) => {
  it.effect("a key limited to some pages makes no key or member beyond them", () =>
    Effect.gen(function*() {
      const mine = (yield* sendJson("POST", "/api/v1/admin/pages", { slug: "limit-a" })).body
      const theirs = (yield* sendJson("POST", "/api/v1/admin/pages", { slug: "limit-b" })).body
      const scoped = (yield* sendJson("POST", "/api/v1/admin/api-keys", { name: "a bot", pageIds: [mine.id] })).body
      const unlimited = (yield* sendJson("POST", "/api/v1/admin/api-keys", { name: "ops", role: "viewer" })).body

      const wider = yield* sendAnonymous("POST", "/api/v1/admin/api-keys", { name: "escape" }, bearer(scoped.key))
      expect(wider.status).toBe(403)
      const other = yield* sendAnonymous(
        "POST",
        "/api/v1/admin/api-keys",
        { name: "escape", pageIds: [theirs.id] },
        bearer(scoped.key)
      )
      expect(other.status).toBe(403)
      const within = yield* sendAnonymous(
        "POST",
        "/api/v1/admin/api-keys",
        { name: "child", role: "editor", pageIds: [mine.id] },
        bearer(scoped.key)
      )
      expect(within.status).toBe(201)
      const removeWider = yield* sendAnonymous(
        "DELETE",
        `/api/v1/admin/api-keys/${unlimited.id}`,
        undefined,
        bearer(scoped.key)
      )
      expect(removeWider.status).toBe(403)
      const invited = yield* sendAnonymous(
        "POST",
        "/api/v1/admin/invitations",
        { email: "escape@example.test", role: "owner" },
        bearer(scoped.key)
      )
      expect(invited.status).toBe(403)
    }))

  it.effect("a viewer reads no chat webhook URL, in the list or in the audit log", () =>
    Effect.gen(function*() {
      const url = "https://hooks.slack.com/services/T000/B000/SECRETsecretSECRET"
      expect((yield* sendJson("POST", "/api/v1/admin/webhooks", { name: "ops chat", url, type: "slack" })).status)
        .toBe(201)
      const viewer = (yield* sendJson("POST", "/api/v1/admin/api-keys", { name: "v", role: "viewer" })).body
      expect((yield* sendAnonymous("GET", "/api/v1/admin/webhooks", undefined, bearer(viewer.key))).status).toBe(403)
      const log = yield* sendAnonymous("GET", "/api/v1/admin/audit-log", undefined, bearer(viewer.key))
      expect(log.status).toBe(200)
      expect(log.body.some((entry: { operation: string }) => entry.operation === "webhooks.create")).toBe(true)
      expect(JSON.stringify(log.body)).not.toContain("SECRETsecretSECRET")
    }))

  it.effect("a key cannot read or end its creator's sessions, or change their password", () =>
    Effect.gen(function*() {
      const member = yield* addMember("keyholder@example.test", "admin", password, "203.0.113.9")
      const key = (yield* withSession(
        member.cookie,
        "POST",
        "/api/v1/admin/api-keys",
        { name: "ci", role: "viewer" },
        "203.0.113.9"
      )).body
      const sessions = yield* sendAnonymous("GET", "/api/v1/auth/sessions", undefined, bearer(key.key))
      expect(sessions.status).toBe(403)
      const own = yield* withSession(member.cookie, "GET", "/api/v1/auth/sessions", undefined, "203.0.113.9")
      expect(own.status).toBe(200)
      const revoked = yield* sendAnonymous(
        "DELETE",
        `/api/v1/auth/sessions/${own.body[0].id}`,
        undefined,
        bearer(key.key)
      )
      expect(revoked.status).toBe(403)
      const changed = yield* sendAnonymous(
        "PUT",
        "/api/v1/auth/password",
        { currentPassword: password, newPassword: "another long password" },
        bearer(key.key)
      )
      expect(changed.status).toBe(403)
      expect((yield* withSession(member.cookie, "GET", "/api/v1/auth/me", undefined, "203.0.113.9")).status).toBe(200)
    }))

  it.effect("no audit entry shows a key's prefix", () =>
    Effect.gen(function*() {
      const owner = (yield* sendJson("POST", "/api/v1/admin/api-keys", { name: "deploy (owner)" })).body
      const log = yield* sendJson("GET", "/api/v1/admin/audit-log?operation=apiKeys.create")
      expect(log.body.some((entry: { target: { id: string } }) => entry.target.id === owner.id)).toBe(true)
      expect(JSON.stringify(log.body)).not.toContain(owner.prefix)
    }))

  it.effect("an invitation dies when its sender stops being an owner", () =>
    Effect.gen(function*() {
      const rogue = yield* addMember("rogue@example.test", "owner", password, "203.0.113.20")
      const invited = yield* withSession(
        rogue.cookie,
        "POST",
        "/api/v1/admin/invitations",
        { email: "sleeper@example.test", role: "owner" },
        "203.0.113.20"
      )
      expect(invited.status).toBe(201)
      const token = yield* tokenFromMail("sleeper@example.test")
      const demoted = yield* sendJson("PATCH", `/api/v1/admin/users/${rogue.id}`, { role: "admin" })
      expect(demoted.status).toBe(200)
      const accepted = yield* accept({ token, name: "Sleeper", password }, "203.0.113.21")
      expect(accepted.status).toBe(404)
      const entry = yield* sendJson("GET", `/api/v1/admin/audit-log?operation=team.updateUser&targetId=${rogue.id}`)
      expect(entry.body[0].changes.openInvitations).toEqual({ before: 1, after: 0 })
    }))
})

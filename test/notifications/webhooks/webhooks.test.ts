import { createHmac } from "node:crypto"

import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"

import { eventually } from "../../support/Eventually.js"
import { answerWith, receiver } from "../../support/Receiver.js"
import { ApiClient, LiveTestServer, sendJson } from "../../support/TestServer.js"

// Real time: test sends measure real durations against real receivers.
layer(LiveTestServer({ PUBLIC_URL: "https://status.example.test/" }), { excludeTestServices: true })(
  "webhooks",
  (it) => {
    it.effect("creates with defaults; the secret is shown once, for generic only", () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const created = yield* sendJson("POST", "/api/v1/admin/webhooks", {
          name: "  Ops  ",
          url: "https://hooks.example.test/ops",
          type: "generic"
        })
        expect(created.status).toBe(201)
        expect(created.body).toMatchObject({
          name: "Ops",
          url: "https://hooks.example.test/ops",
          type: "generic",
          isActive: true,
          notifyOnIncident: true,
          notifyOnMaintenance: true,
          notifyOnComponentChange: true,
          componentIds: null,
          consecutiveFailures: 0,
          lastError: null
        })
        expect(created.body.secret).toMatch(/^[0-9a-f]{64}$/)
        expect(created.body.createdAt).toMatch(/Z$/)

        const slack = yield* client.webhooks.create({
          payload: {
            name: "Slack",
            url: "http://chat.example.test/x",
            type: "chat_a",
            isActive: false,
            componentIds: ["c1"]
          }
        })
        expect(slack).toMatchObject({ secret: null, isActive: false, componentIds: ["c1"] })

        const listed = yield* sendJson("GET", "/api/v1/admin/webhooks")
        expect(listed.status).toBe(200)
        const ours = listed.body.filter((w: { id: string }) => w.id === created.body.id || w.id === slack.id)
        expect(ours).toHaveLength(2)
        for (const webhook of listed.body) expect(webhook).not.toHaveProperty("secret")
        expect(JSON.stringify(listed.body)).not.toContain(created.body.secret)
      }))

    it.effect("updates partially, toggles and deletes", () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const hook = yield* client.webhooks.create({
          payload: { name: "Teams", url: "https://t.example.test/", type: "chat_c" }
        })

        const renamed = yield* client.webhooks.update({
          params: { id: hook.id },
          payload: { name: "Teams ops", notifyOnMaintenance: false }
        })
        expect(renamed).toMatchObject({
          name: "Teams ops",
          url: "https://t.example.test/",
          notifyOnMaintenance: false,
          notifyOnIncident: true
        })
        const filtered = yield* client.webhooks.update({
          params: { id: hook.id },
          payload: { componentIds: ["a", "b"] }
        })
        expect(filtered.componentIds).toEqual(["a", "b"])
        const unfiltered = yield* client.webhooks.update({ params: { id: hook.id }, payload: { componentIds: null } })
        expect(unfiltered).toMatchObject({ componentIds: null, name: "Teams ops" })
        expect((yield* client.webhooks.update({ params: { id: hook.id }, payload: {} })).name).toBe("Teams ops")
        // The type is fixed: its own is accepted, another is a 409 that changes nothing, an unknown one a 400.
        expect(
          (yield* client.webhooks.update({ params: { id: hook.id }, payload: { type: "chat_c", name: "Teams" } })).name
        ).toBe("Teams")
        const retyped = yield* sendJson("PUT", `/api/v1/admin/webhooks/${hook.id}`, {
          type: "generic",
          name: "Generic now"
        })
        expect(retyped).toMatchObject({
          status: 409,
          body: { _tag: "Conflict", message: expect.stringContaining("type") }
        })
        expect((yield* sendJson("PUT", `/api/v1/admin/webhooks/${hook.id}`, { type: "bogus" })).status).toBe(400)
        expect((yield* client.webhooks.list({ query: {} })).find((w) => w.id === hook.id)).toMatchObject({
          type: "chat_c",
          name: "Teams"
        })
        expect((yield* sendJson("PUT", "/api/v1/admin/webhooks/unknown-id", { type: "generic" })).status).toBe(404)

        expect((yield* client.webhooks.toggle({ params: { id: hook.id } })).isActive).toBe(false)
        expect((yield* client.webhooks.toggle({ params: { id: hook.id } })).isActive).toBe(true)

        const removed = yield* sendJson("DELETE", `/api/v1/admin/webhooks/${hook.id}`)
        expect(removed.status).toBe(204)
        expect((yield* sendJson("DELETE", `/api/v1/admin/webhooks/${hook.id}`)).status).toBe(404)
      }))

    it.effect("takes slack, discord and teams for the chat formats and answers their canonical names", () =>
      Effect.gen(function*() {
        for (const [alias, type] of [["slack", "chat_a"], ["discord", "chat_b"], ["teams", "chat_c"]] as const) {
          const created = yield* sendJson("POST", "/api/v1/admin/webhooks", {
            name: alias,
            url: "https://hooks.example.test/",
            type: alias
          })
          expect(created.status, alias).toBe(201)
          expect(created.body.type, alias).toBe(type)
          // An update naming the webhook's own type by its alias changes nothing.
          const same = yield* sendJson("PUT", `/api/v1/admin/webhooks/${created.body.id}`, { type: alias })
          expect(same.status, alias).toBe(200)
          expect((yield* sendJson("GET", `/api/v1/admin/webhooks/${created.body.id}`)).body.type).toBe(type)
        }
      }))

    it.effect("answers 404 for unknown ids", () =>
      Effect.gen(function*() {
        for (
          const [method, url, body] of [
            ["PUT", "/api/v1/admin/webhooks/nope", { name: "x" }],
            ["DELETE", "/api/v1/admin/webhooks/nope", undefined],
            ["PATCH", "/api/v1/admin/webhooks/nope/toggle", undefined],
            ["POST", "/api/v1/admin/webhooks/nope/test", undefined],
            ["GET", "/api/v1/admin/webhooks/nope/deliveries", undefined]
          ] as const
        ) {
          const response = yield* sendJson(method, url, body)
          expect(response.status, `${method} ${url}`).toBe(404)
          expect(response.body).toEqual({ _tag: "NotFound", message: "Webhook \"nope\" was not found" })
        }
        // PostgreSQL cannot hold NUL: such an id is bad input, not a server error.
        for (
          const [method, url] of [["DELETE", "/api/v1/admin/webhooks/%00"], [
            "POST",
            "/api/v1/admin/webhooks/%00/test"
          ]] as const
        ) {
          expect((yield* sendJson(method, url)).status, `${method} ${url}`).toBe(400)
        }
      }))

    it.effect("rejects bad bodies with 400", () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const target = yield* client.webhooks.create({
          payload: { name: "T", url: "https://x.example.test/", type: "chat_b" }
        })
        const valid = { name: "W", url: "https://hooks.example.test/", type: "generic" }
        const cases: ReadonlyArray<readonly [string, "POST" | "PUT", string, unknown]> = [
          ["malformed JSON", "POST", "/api/v1/admin/webhooks", "{\"name\":"],
          ["missing url", "POST", "/api/v1/admin/webhooks", { name: "W", type: "generic" }],
          ["relative url", "POST", "/api/v1/admin/webhooks", { ...valid, url: "/hooks" }],
          ["ftp url", "POST", "/api/v1/admin/webhooks", { ...valid, url: "ftp://hooks.example.test/" }],
          ["javascript url", "POST", "/api/v1/admin/webhooks", { ...valid, url: "javascript:alert(1)" }],
          ["unknown type", "POST", "/api/v1/admin/webhooks", { ...valid, type: "mattermost" }],
          ["missing type", "POST", "/api/v1/admin/webhooks", { name: "W", url: valid.url }],
          ["blank name", "POST", "/api/v1/admin/webhooks", { ...valid, name: " " }],
          ["NUL in name", "POST", "/api/v1/admin/webhooks", { ...valid, name: "a\u0000" }],
          ["componentIds not an array", "POST", "/api/v1/admin/webhooks", { ...valid, componentIds: "c1" }],
          ["componentIds of numbers", "POST", "/api/v1/admin/webhooks", { ...valid, componentIds: [1] }],
          // JSON carries it; PostgreSQL's jsonb would refuse it.
          ["an unpaired surrogate in componentIds", "POST", "/api/v1/admin/webhooks", {
            ...valid,
            componentIds: ["\ud800"]
          }],
          ["an unpaired surrogate in componentIds on PUT", "PUT", `/api/v1/admin/webhooks/${target.id}`, {
            componentIds: ["a\udc00"]
          }],
          ["an unpaired surrogate in name", "POST", "/api/v1/admin/webhooks", { ...valid, name: "x\ud800" }],
          ["isActive not boolean", "POST", "/api/v1/admin/webhooks", { ...valid, isActive: "yes" }],
          ["bad url on PUT", "PUT", `/api/v1/admin/webhooks/${target.id}`, { url: "not a url" }],
          ["null name on PUT", "PUT", `/api/v1/admin/webhooks/${target.id}`, { name: null }]
        ]
        for (const [label, method, url, body] of cases) {
          const response = yield* sendJson(method, url, body)
          expect(response.status, label).toBe(400)
          expect(typeof response.body._tag, label).toBe("string")
          expect(typeof response.body.message, label).toBe("string")
        }
        const ftp = yield* sendJson("POST", "/api/v1/admin/webhooks", { ...valid, url: "ftp://x/" })
        expect(ftp.body.issues).toContainEqual(expect.objectContaining({ path: ["url"] }))
        expect((yield* client.webhooks.list({ query: {} })).find((w) => w.id === target.id)?.url).toBe(
          "https://x.example.test/"
        )
      }))

    it.effect("test sends a signed sample once and reports the outcome without counting failures", () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const good = yield* receiver(answerWith(200))
        const created = yield* client.webhooks.create({ payload: { name: "Signed", url: good.url, type: "generic" } })

        const result = yield* client.webhooks.test({ params: { id: created.id } })
        expect(result).toMatchObject({ success: true, statusCode: 200, error: null })
        expect(good.received).toHaveLength(1)
        const [request] = good.received
        const expected = createHmac("sha256", created.secret!).update(request!.body).digest("hex")
        expect(request!.headers["x-service-signature"]).toBe(`sha256=${expected}`)
        expect(request!.headers["x-service-event"]).toBe("incident.created")
        const payload = JSON.parse(request!.body)
        expect(payload).toMatchObject({
          event: "incident.created",
          organization: { name: "Status", url: "https://status.example.test" },
          data: { test: true, status: "investigating" }
        })

        const bad = yield* receiver(answerWith(500))
        const failing = yield* client.webhooks.update({ params: { id: created.id }, payload: { url: bad.url } })
        const failed = yield* sendJson("POST", `/api/v1/admin/webhooks/${failing.id}/test`)
        expect(failed.status).toBe(200)
        expect(failed.body).toMatchObject({ success: false, statusCode: 500, error: "HTTP 500" })
        expect(bad.received).toHaveLength(1)

        const after = (yield* client.webhooks.list({ query: {} })).find((w) => w.id === created.id)
        expect(after).toMatchObject({ consecutiveFailures: 0, lastError: null })

        const log = yield* client.webhooks.deliveries({ params: { id: created.id }, query: {} })
        expect(
          log.map((attempt) => [attempt.event, attempt.test, attempt.success, attempt.statusCode, attempt.attempt])
        )
          .toEqual([["incident.created", true, false, 500, 1], ["incident.created", true, true, 200, 1]])
        expect(log[0]!.durationMs).toBeGreaterThanOrEqual(0)
      }).pipe(Effect.scoped))

    it.effect("a webhook deleted while its test waits for the receiver: the test still reports the outcome", () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        let answer: (() => void) | undefined
        const slow = yield* receiver((_, response) => (answer = () => response.writeHead(204).end()))
        const hook = yield* client.webhooks.create({ payload: { name: "Going away", url: slow.url, type: "generic" } })
        const testing = yield* Effect.forkChild(sendJson("POST", `/api/v1/admin/webhooks/${hook.id}/test`))
        yield* eventually(Effect.sync(() => answer), (ready) => ready !== undefined)
        expect((yield* sendJson("DELETE", `/api/v1/admin/webhooks/${hook.id}`)).status).toBe(204)
        answer!()
        const result = yield* Fiber.join(testing)
        expect(result.status).toBe(200)
        expect(result.body).toMatchObject({ success: true, statusCode: 204 })
      }).pipe(Effect.scoped))

    it.effect("test of a chat webhook sends its format unsigned", () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const target = yield* receiver(answerWith(200))
        const hook = yield* client.webhooks.create({ payload: { name: "Discord", url: target.url, type: "chat_b" } })
        expect((yield* client.webhooks.test({ params: { id: hook.id } })).success).toBe(true)
        const body = JSON.parse(target.received[0]!.body)
        expect(body.embeds[0].title).toBe("[Test] New incident: Test notification")
        expect(target.received[0]!.headers["x-service-signature"]).toBeUndefined()
      }).pipe(Effect.scoped))
  }
)

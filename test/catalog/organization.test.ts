import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

it.layer(TestServer())("organization", (it) => {
  it.effect("exists from the first start and updates partially", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const org = yield* client.organization.get()
      expect(org).toMatchObject({
        name: "Status",
        logoUrl: null,
        brandColor: "#2563eb",
        timezone: "UTC",
        maintenanceReminderHours: 24
      })

      const renamed = yield* client.organization.update({
        params: { id: org.id },
        payload: { name: "Acme", logoUrl: "https://acme.example/logo.png", timezone: "America/Argentina/Buenos_Aires" }
      })
      expect(renamed).toMatchObject({
        id: org.id,
        name: "Acme",
        logoUrl: "https://acme.example/logo.png",
        brandColor: "#2563eb",
        timezone: "America/Argentina/Buenos_Aires"
      })

      const recoloured = yield* client.organization.update({
        params: { id: org.id },
        payload: { brandColor: "#FF00aa", logoUrl: null }
      })
      expect(recoloured).toMatchObject({ name: "Acme", brandColor: "#FF00aa", logoUrl: null })
      for (const hours of [0, 720, 48]) {
        const reminding = yield* client.organization.update({
          params: { id: org.id },
          payload: { maintenanceReminderHours: hours }
        })
        expect(reminding).toMatchObject({ name: "Acme", maintenanceReminderHours: hours })
      }
      expect(yield* client.organization.get()).toEqual({
        ...recoloured,
        maintenanceReminderHours: 48,
        updatedAt: expect.anything()
      })
    }))

  it.effect("rejects a bad colour, zone or logo URL with 400 and changes nothing", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const before = yield* client.organization.get()
      const bad: ReadonlyArray<readonly [string, unknown]> = [
        ["short colour", { brandColor: "#fff" }],
        ["colour without #", { brandColor: "2563eb" }],
        ["colour not hex", { brandColor: "#zzzzzz" }],
        ["named colour", { brandColor: "red" }],
        ["unknown zone", { timezone: "Mars/Olympus_Mons" }],
        ["lower-case zone", { timezone: "europe/paris" }],
        ["upper-case zone", { timezone: "EUROPE/PARIS" }],
        ["zone with a lower-case city", { timezone: "Europe/paris" }],
        ["offset instead of zone", { timezone: "+02:00" }],
        ["empty zone", { timezone: "" }],
        ["ftp logo", { logoUrl: "ftp://acme.example/logo.png" }],
        ["relative logo", { logoUrl: "/logo.png" }],
        ["javascript logo", { logoUrl: "javascript:alert(1)" }],
        ["blank name", { name: "  " }],
        ["negative reminder", { maintenanceReminderHours: -1 }],
        ["reminder beyond 30 days", { maintenanceReminderHours: 721 }],
        ["fractional reminder", { maintenanceReminderHours: 1.5 }],
        ["reminder as text", { maintenanceReminderHours: "24" }],
        ["name of wrong type", { name: ["Acme"] }]
      ]
      for (const [label, body] of bad) {
        const response = yield* sendJson("PUT", `/api/v1/admin/org/${before.id}`, body)
        expect(response.status, label).toBe(400)
        expect(response.body._tag, label).toBe("HttpApiDecodeError")
        expect(typeof response.body.message, label).toBe("string")
      }
      expect(yield* client.organization.get()).toEqual(before)
    }))

  it.effect("answers 404 for another organization id", () =>
    Effect.gen(function*() {
      const response = yield* sendJson("PUT", "/api/v1/admin/org/not-ours", { name: "Other" })
      expect(response.status).toBe(404)
      expect(response.body._tag).toBe("NotFound")
    }))
})

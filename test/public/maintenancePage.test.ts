/**
 * The public page of a maintenance window (`/maintenance/:id`), which the feeds and the status
 * page link to, over HTTP as a visitor gets it: its content in the organization's time zone,
 * user text as text, the same visibility as the public maintenance API, and its state following
 * the maintenance clock (driven by TestClock).
 */
import { expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import { XMLParser } from "fast-xml-parser"

import { eventuallyOnTestClock as eventually } from "../support/Eventually.js"
import { scheduleSoon } from "../support/Maintenance.js"
import { Anonymous, ApiClient, TestServer, withMaintenanceClock } from "../support/TestServer.js"

const publicUrl = "https://status.example.com"

/** A GET as a visitor sends it (no credentials). */
const get = (path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* Anonymous
    const response = yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeaders(headers)))
    return { status: response.status, headers: response.headers, text: yield* response.text }
  }).pipe(Effect.scoped)

const parser = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "item" || name === "entry" })

/** The paths of the feeds' maintenance links, RSS and Atom. */
const feedMaintenancePaths = Effect.gen(function*() {
  const rss = parser.parse((yield* get("/api/v1/status/rss")).text).rss.channel.item ?? []
  const atom = parser.parse((yield* get("/api/v1/status/atom")).text).feed.entry ?? []
  const links: Array<string> = [
    ...rss.map((item: any) => String(item.link)),
    ...atom.map((entry: any) => String(entry.link["@_href"]))
  ]
  return links.filter((link) => link.startsWith(`${publicUrl}/maintenance/`)).map((link) =>
    link.slice(publicUrl.length)
  )
})

it.layer(withMaintenanceClock(TestServer({ PUBLIC_URL: publicUrl })))("public maintenance page", (it) => {
  it.effect("shows a window's title, state, times in the organization's time zone, description and public components, as text", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const org = yield* client.organization.get()
      yield* client.organization.update({ params: { id: org.id }, payload: { name: "Acme", timezone: "Asia/Tokyo" } })
      const edge = yield* client.components.create({ payload: { name: "<b>Edge</b> & co" } })
      const internal = yield* client.components.create({ payload: { name: "Internal tooling", isPublic: false } })
      const window = yield* client.maintenance.create({
        payload: {
          title: "<script>alert(1)</script> upgrade",
          description: "Read-only for <img src=x onerror=alert(2)> ten minutes.",
          scheduledStart: DateTime.makeUnsafe("2031-03-01T02:00:00Z"),
          scheduledEnd: DateTime.makeUnsafe("2031-03-01T04:00:00Z"),
          componentIds: [edge.id, internal.id]
        }
      })

      const response = yield* get(`/maintenance/${window.id}`)
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8")
      const csp = response.headers["content-security-policy"]!
      expect(csp).toContain("default-src 'none'")
      expect(csp).not.toContain("script-src")
      const page = response.text
      expect(page).toContain("<title>&lt;script&gt;alert(1)&lt;/script&gt; upgrade · Acme status</title>")
      expect(page).toContain("<h1>&lt;script&gt;alert(1)&lt;/script&gt; upgrade</h1>")
      expect(page).not.toContain("<script>")
      expect(page).not.toContain("<img src=x")
      expect(page).toContain("Read-only for &lt;img src=x onerror=alert(2)&gt; ten minutes.")
      expect(page).toContain("<span class=\"st maintenance\">Scheduled</span>")
      // 02:00 and 04:00 UTC are 11:00 and 13:00 in Tokyo.
      expect(page).toMatch(
        /From <time datetime="2031-03-01T02:00:00.000Z">[^<]*11:00 GMT\+9<\/time> to <time datetime="2031-03-01T04:00:00.000Z">[^<]*13:00 GMT\+9<\/time>/
      )
      expect(page).toContain("affects &lt;b&gt;Edge&lt;/b&gt; &amp; co")
      expect(page).not.toContain("Internal tooling")

      // Cached like the other pages: ETag and 304.
      const etag = response.headers["etag"]!
      expect(response.headers["cache-control"]).toMatch(/^public, max-age=\d+$/)
      expect((yield* get(`/maintenance/${window.id}`, { "if-none-match": etag })).status).toBe(304)

      // The status page's maintenance entry and the widget link to it.
      expect((yield* get("/")).text).toContain(`<a href="/maintenance/${window.id}">&lt;script&gt;`)
      const widget = JSON.parse((yield* get("/widget.json")).text)
      expect(widget.maintenance.find((item: { id: string }) => item.id === window.id).url).toBe(
        `${publicUrl}/maintenance/${window.id}`
      )
    }))

  it.effect("is 404 for an unknown id, a cancelled window and one on private components only, as the public API hides them", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const hidden = yield* client.components.create({ payload: { name: "Hidden", isPublic: false } })
      const times = {
        scheduledStart: DateTime.makeUnsafe("2031-04-01T00:00:00Z"),
        scheduledEnd: DateTime.makeUnsafe("2031-04-01T01:00:00Z")
      }
      const privateOnly = yield* client.maintenance.create({
        payload: { title: "Private work", ...times, componentIds: [hidden.id] }
      })
      const cancelled = yield* client.maintenance.create({ payload: { title: "Called off", ...times } })
      yield* client.maintenance.cancel({ params: { id: cancelled.id }, query: {} })
      const general = yield* client.maintenance.create({ payload: { title: "General work", ...times } })

      const listed = (yield* client.status.maintenance()).map((item) => item.id)
      expect(listed).toContain(general.id)
      expect((yield* get(`/maintenance/${general.id}`)).status).toBe(200)
      for (const id of [privateOnly.id, cancelled.id, "no-such-window", "%00"]) {
        expect(listed).not.toContain(id)
        expect((yield* get(`/maintenance/${id}`)).status, id).toBe(404)
      }
      const paths = yield* feedMaintenancePaths
      expect(paths).not.toContain(`/maintenance/${privateOnly.id}`)
      expect(paths).not.toContain(`/maintenance/${cancelled.id}`)
    }))

  it.effect("follows the clock: in progress, then completed, and every feed link to a window loads", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const queue = yield* client.components.create({ payload: { name: "Queue" } })
      const window = yield* scheduleSoon("Queue failover", [queue.id])
      const path = `/maintenance/${window.id}`
      const showing = (label: string) =>
        Effect.map(
          get(path),
          (response) => response.text.includes(`<span class="st maintenance">${label}</span>`) || undefined
        )

      yield* TestClock.adjust(Duration.seconds(59))
      yield* eventually(showing("In progress"))
      expect((yield* get("/")).text).toContain(`<a href="${path}">Queue failover</a>`)

      yield* TestClock.adjust(Duration.minutes(9))
      yield* eventually(showing("Completed"))
      // Gone from the public list and the status page, but its page stays: the feeds still link to it.
      expect((yield* client.status.maintenance()).map((item) => item.id)).not.toContain(window.id)
      expect((yield* get("/")).text).not.toContain(path)
      const paths = yield* feedMaintenancePaths
      expect(paths).toContain(path)
      for (const linked of paths) {
        expect((yield* get(linked)).status, linked).toBe(200)
      }
    }))
})

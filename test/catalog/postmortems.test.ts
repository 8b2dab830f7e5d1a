import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { XMLParser, XMLValidator } from "fast-xml-parser"

import { outboxMark, outboxSince } from "../support/Outbox.js"
import { ApiClient, sendJson, TestServer } from "../support/TestServer.js"

const parser = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "item" || name === "entry" })

const markdown = "# Cause\nA **bad** deploy. <script>alert(1)</script> [log](javascript:alert(1))"

it.layer(TestServer({ PUBLIC_URL: "https://status.example.com" }))("postmortems", (it) => {
  it.effect("are written only on resolved incidents; unknown ids are 404, bad bodies 400", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const incident = yield* client.incidents.create({ payload: { title: "Open", message: "Looking" } })
      const path = `/api/v1/admin/incidents/${incident.id}/postmortem`

      const open = yield* sendJson("PUT", path, { body: "Too early", published: false })
      expect(open.status).toBe(409)
      expect(open.body._tag).toBe("Conflict")

      const unknown = yield* sendJson("PUT", "/api/v1/admin/incidents/no-such-id/postmortem", {
        body: "x",
        published: false
      })
      expect(unknown.status).toBe(404)

      yield* client.incidents.resolve({ params: { id: incident.id }, payload: null })
      for (
        const body of [
          { body: "   ", published: false },
          { body: "x".repeat(50_001), published: false },
          { body: "x" },
          { published: true },
          { body: "x", published: "yes" }
        ]
      ) {
        const refused = yield* sendJson("PUT", path, body)
        expect(refused.status).toBe(400)
        expect(refused.body._tag).toBe("HttpApiDecodeError")
      }
      const longest = yield* sendJson("PUT", path, { body: "x".repeat(50_000), published: false })
      expect(longest.status).toBe(200)
    }))

  it.effect("a draft stays private; publishing shows it on the public detail, page and feeds and fires incident.updated", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const incident = yield* client.incidents.create({ payload: { title: "Slow API", message: "Looking" } })
      yield* client.incidents.resolve({ params: { id: incident.id }, payload: null })
      const detailPath = `/api/v1/status/incidents/${incident.id}`

      // A draft: the admin API shows it, no public surface or event does.
      const mark = yield* outboxMark
      const draft = yield* client.incidents.setPostmortem({
        params: { id: incident.id },
        payload: { body: "Draft text", published: false }
      })
      expect(draft.postmortem).toMatchObject({ body: "Draft text", published: false, publishedAt: null })
      expect((yield* client.incidents.get({ params: { id: incident.id } })).postmortem?.body).toBe("Draft text")
      expect((yield* sendJson("GET", detailPath)).body.postmortem).toBeNull()
      expect((yield* sendJson("GET", `/incidents/${incident.id}`)).body).not.toContain("Draft text")
      expect((yield* sendJson("GET", "/api/v1/status/rss")).body).not.toContain("Draft text")
      expect(yield* outboxSince(mark)).toEqual([])

      // Publishing: public everywhere, one incident.updated saying so.
      const published = yield* client.incidents.setPostmortem({
        params: { id: incident.id },
        payload: { body: markdown, published: true }
      })
      const publishedAt = published.postmortem?.publishedAt
      expect(publishedAt).toBeDefined()
      expect(published.postmortem?.published).toBe(true)
      const detail = (yield* sendJson("GET", detailPath)).body
      expect(detail.postmortem).toEqual({ body: markdown, publishedAt: expect.any(String) })
      expect(new Date(detail.postmortem.publishedAt).getTime()).toBe(publishedAt!.epochMilliseconds)
      // The list items carry no postmortem.
      expect((yield* sendJson("GET", "/api/v1/status/incidents")).body[0]).not.toHaveProperty("postmortem")

      const events = yield* outboxSince(mark)
      expect(events.map((row) => row.event)).toEqual(["incident.updated"])
      expect(events[0]!.payload).toMatchObject({
        id: incident.id,
        status: "resolved",
        postmortemPublished: true,
        postmortem: { excerpt: markdown, truncated: false }
      })

      const page = (yield* sendJson("GET", `/incidents/${incident.id}`)).body
      expect(page).toContain("<h2 id=\"postmortem-title\">Postmortem</h2>")
      expect(page).toContain("<h3>Cause</h3>")
      expect(page).toContain("<strong>bad</strong>")
      expect(page).toContain("&lt;script&gt;")
      expect(page).not.toContain("javascript:alert")

      const rss = (yield* sendJson("GET", "/api/v1/status/rss")).body
      expect(XMLValidator.validate(rss)).toBe(true)
      const item = parser.parse(rss).rss.channel.item.find((i: any) =>
        i.link === `https://status.example.com/incidents/${incident.id}`
      )
      expect(item["content:encoded"]).toContain("<strong>bad</strong>")
      expect(item["content:encoded"]).toContain("&lt;script&gt;")
      const atom = (yield* sendJson("GET", "/api/v1/status/atom")).body
      expect(XMLValidator.validate(atom)).toBe(true)
      const entry = parser.parse(atom).feed.entry.find((e: any) =>
        e.id === `https://status.example.com/incidents/${incident.id}`
      )
      expect(entry.content["@_type"]).toBe("html")
      expect(entry.content["#text"]).toContain("<h3>Cause</h3>")

      // An edit while published fires nothing and keeps publishedAt.
      const afterPublish = yield* outboxMark
      const edited = yield* client.incidents.setPostmortem({
        params: { id: incident.id },
        payload: { body: "Edited", published: true }
      })
      expect(edited.postmortem?.publishedAt?.epochMilliseconds).toBe(publishedAt!.epochMilliseconds)
      expect((yield* sendJson("GET", detailPath)).body.postmortem.body).toBe("Edited")
      expect(yield* outboxSince(afterPublish)).toEqual([])

      // Unpublishing hides it again, keeping publishedAt for the admin.
      const hidden = yield* client.incidents.setPostmortem({
        params: { id: incident.id },
        payload: { body: "Edited", published: false }
      })
      expect(hidden.postmortem).toMatchObject({ published: false })
      expect(hidden.postmortem?.publishedAt?.epochMilliseconds).toBe(publishedAt!.epochMilliseconds)
      expect((yield* sendJson("GET", detailPath)).body.postmortem).toBeNull()
      expect((yield* sendJson("GET", "/api/v1/status/atom")).body).not.toContain("Edited")
      expect(yield* outboxSince(afterPublish)).toEqual([])
    }))
})

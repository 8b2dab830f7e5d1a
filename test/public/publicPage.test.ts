/**
 * The public status page and its satellites over HTTP, against the full stack on a loopback
 * port: what a visitor (or an embedding site) receives, conditional requests, and that user
 * text is always text.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

import { Uptime } from "../../src/services/monitoring/Uptime.js"
import { startLiveStack } from "../support/LiveStack.js"
import { ApiClient } from "../support/TestServer.js"

type Stack = Awaited<ReturnType<typeof startLiveStack>>

/** The stack the tests share. Each test makes what it reads, so they may run in any order, or alone. */
let stack: Stack

beforeAll(async () => {
  stack = await startLiveStack()
})

afterAll(async () => {
  await stack?.dispose()
})

const api = <A, E>(
  request: (client: Effect.Success<typeof ApiClient>) => Effect.Effect<A, E>,
  on: Stack = stack
) => on.run(Effect.flatMap(ApiClient, request))

const get = (path: string, headers: Record<string, string> = {}, on: Stack = stack) =>
  fetch(`${on.baseUrl}${path}`, { headers })

/** The page's text once the public snapshot has caught up with the last change. */
const eventuallyContains = async (path: string, text: string, on: Stack = stack) => {
  await expect.poll(async () => (await (await get(path, {}, on)).text()).includes(text), { timeout: 5000 }).toBe(true)
  return (await get(path, {}, on)).text()
}

/** Names the organization as these tests expect it. */
const nameOrganization = async (name: string) => {
  const org = await api((client) => client.organization.get())
  await api((client) => client.organization.update({ params: { id: org.id }, payload: { name } }))
}

const postForm = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${stack.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString()
  })

describe("public status page: uptime bars", () => {
  // A stack of its own, never viewed before: the page reads the rollups once a minute, so the
  // first view must come after the component exists and its rollups are refreshed.
  let fresh: Stack
  beforeAll(async () => {
    fresh = await startLiveStack()
  })
  afterAll(async () => {
    await fresh?.dispose()
  })

  it("draws a 90-day uptime bar per public component from the daily rollups", async () => {
    const component = await api(
      (client) => client.components.create({ payload: { name: "Storage", status: "major_outage" } }),
      fresh
    )
    await api((client) => client.components.create({ payload: { name: "Internal tooling", isPublic: false } }), fresh)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    await fresh.run(Effect.flatMap(Uptime, (uptime) => uptime.refresh).pipe(Effect.provide(Uptime.layer)))

    const page = await eventuallyContains("/", "Storage", fresh)
    expect(page).not.toContain("Internal tooling")
    const bar = /<ol class="bar" aria-label="Daily uptime of Storage, oldest first">(.*?)<\/ol>/.exec(page)
    expect(bar).not.toBeNull()
    const cells = [...bar![1]!.matchAll(/<li(?: class=(\w+))? tabindex=-1><span>([^<]*)<\/span>/g)]
    expect(cells).toHaveLength(90)
    // Today: down the whole time it existed; the days before it existed are shown as such, not as missing data.
    expect(cells.at(-1)![1]).toBe("out")
    expect(cells.at(-1)![2]).toContain("0 % uptime")
    expect(cells[0]![1]).toBe("before")
    expect(cells[0]![2]).toContain("before this component existed")
    expect(page).toContain("<h1 id=\"overall\">Major outage</h1>")
    expect(component.status).toBe("major_outage")
  })
})

describe("public status page", () => {
  it("shows the organization's name, brand colour with a readable text colour, and times in its time zone", async () => {
    const org = await api((client) => client.organization.get())
    await api((client) =>
      client.organization.update({
        params: { id: org.id },
        payload: {
          name: "Acme",
          brandColor: "#ffd700",
          timezone: "Asia/Tokyo",
          logoUrl: "https://cdn.example.com/acme.png"
        }
      })
    )
    const incident = await api((client) =>
      client.incidents.create({ payload: { title: "Login delays", message: "Looking into it.", severity: "minor" } })
    )
    const page = await eventuallyContains("/", "Login delays")
    expect(page).toContain("<title>Acme status</title>")
    expect(page).toContain("<img src=\"https://cdn.example.com/acme.png\" alt=\"Acme\">")
    // Gold is light: black text on it, not white.
    expect(page).toContain("--brand:#ffd700;--brand-ink:#000000")
    expect(page).toMatch(/<time datetime="[^"]+Z">[^<]*GMT\+9<\/time>/)
    expect(page).toContain(`href="/incidents/${incident.id}"`)
    expect(page).toContain("Looking into it.")
    expect(page).toContain("href=\"/api/v1/status/rss\"")
    expect(page).toContain("href=\"/api/v1/status/atom\"")
    expect(page).toContain("<form class=\"subscribe\" method=\"post\" action=\"/subscribe\" novalidate>")
  })

  it("serves the page with an ETag, 304 on revalidation, gzip, and a CSP without scripts", async () => {
    const first = await get("/")
    expect(first.status).toBe(200)
    expect(first.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(first.headers.get("content-encoding")).toBe("gzip")
    const csp = first.headers.get("content-security-policy")!
    expect(csp).toContain("default-src 'none'")
    expect(csp).not.toContain("script-src")
    const etag = first.headers.get("etag")!
    const again = await get("/", { "if-none-match": etag })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe("")
    const plain = await get("/", { "accept-encoding": "identity" })
    const bytes = new Uint8Array(await plain.arrayBuffer())
    // The same content: the gzipped representation's validator is the plain one's, weak.
    expect(etag).toBe(`W/${plain.headers.get("etag")}`)
    expect(bytes.byteLength).toBeLessThan(100_000)
    expect(new TextDecoder().decode(bytes)).toContain("<!doctype html>")
  })

  it("renders user text as text: an incident titled with <script> is escaped everywhere", async () => {
    const component = await api((client) => client.components.create({ payload: { name: "<b>Edge</b> & co" } }))
    const incident = await api((client) =>
      client.incidents.create({
        payload: {
          title: "<script>alert(1)</script>",
          message: "<img src=x onerror=alert(2)>",
          componentIds: [component.id]
        }
      })
    )
    const page = await eventuallyContains("/", "&lt;script&gt;alert(1)&lt;/script&gt;")
    expect(page).not.toContain("<script>alert(1)")
    expect(page).not.toContain("<img src=x")
    expect(page).toContain("&lt;b&gt;Edge&lt;/b&gt; &amp; co")
    const detail = await (await get(`/incidents/${incident.id}`)).text()
    expect(detail).toContain("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>")
    expect(detail).not.toContain("<script>")
    const badge = await (await get(`/badge.svg?component=${component.id}`)).text()
    expect(badge).toContain("&lt;b&gt;Edge&lt;/b&gt; &amp; co")
    expect(badge).not.toContain("<b>")
  })

  it("shows an incident's whole timeline, newest first, and 404 for an unknown one", async () => {
    const incident = await api((client) =>
      client.incidents.create({ payload: { title: "Queue backlog", message: "Jobs are delayed." } })
    )
    await api((client) =>
      client.incidents.addUpdate({
        params: { id: incident.id },
        payload: { status: "identified", message: "A stuck worker." }
      })
    )
    await api((client) => client.incidents.resolve({ params: { id: incident.id }, payload: null }))
    const page = await eventuallyContains(`/incidents/${incident.id}`, "Resolved")
    const order = ["Resolved", "A stuck worker.", "Jobs are delayed."].map((text) => page.indexOf(text))
    expect(order.every((at) => at > 0)).toBe(true)
    expect(order).toEqual(order.toSorted((a, b) => a - b))
    expect((await get("/incidents/no-such-incident")).status).toBe(404)
    // Resolved incidents are recent history on the front page.
    const front = await eventuallyContains("/", "Recent history")
    expect(front.slice(front.indexOf("Recent history"))).toContain("Queue backlog")
  })

  it("pages the history twenty at a time", async () => {
    for (let i = 1; i <= 21; i++) {
      await api((client) => client.incidents.create({ payload: { title: `History item ${i}`, message: "m" } }))
    }
    const first = await eventuallyContains("/history", "History item 21")
    // Pages are paths (the static mirror holds each); the query form of earlier links answers the same.
    expect(first).toContain("<a href=\"/history/2\" rel=\"next\">")
    expect(first).toMatch(/Page 1 of \d+/)
    const pages = Number(/Page 1 of (\d+)/.exec(first)![1])
    const last = await (await get(`/history/${pages}`)).text()
    expect(last).toContain("rel=\"prev\"")
    expect(last).not.toContain("rel=\"next\"")
    expect(await (await get(`/history?page=${pages}`)).text()).toBe(last)
    expect((await get(`/history/${pages + 1}`)).status).toBe(404)
    expect((await get("/history?page=zero")).status).toBe(404)
    expect((await get("/history/0")).status).toBe(404)
  })

  it("serves an SVG badge for the page and for one component, with ETag and 304", async () => {
    await nameOrganization("Acme")
    const component = await api((client) => client.components.create({ payload: { name: "Badge API" } }))
    const badge = await get(`/badge.svg?component=${component.id}`)
    expect(badge.status).toBe(200)
    expect(badge.headers.get("content-type")).toBe("image/svg+xml")
    expect(badge.headers.get("access-control-allow-origin")).toBe("*")
    const svg = await badge.text()
    expect(svg).toContain("aria-label=\"Badge API: operational\"")
    expect((await get(`/badge.svg?component=${component.id}`, { "if-none-match": badge.headers.get("etag")! })).status)
      .toBe(304)

    await api((client) =>
      client.components.setStatus({ params: { id: component.id }, payload: { status: "partial_outage" } })
    )
    expect(await eventuallyContains(`/badge.svg?component=${component.id}`, "partial outage")).toContain(
      "Badge API: partial outage"
    )
    expect(await (await get("/badge.svg")).text()).toContain("Acme: partial outage")
    expect((await get("/badge.svg?component=unknown")).status).toBe(404)
  })

  it("serves the JSON widget with ETag and 304", async () => {
    await nameOrganization("Acme")
    await api((client) => client.components.create({ payload: { name: "Widget API", status: "partial_outage" } }))
    await api((client) => client.components.create({ payload: { name: "Widget internals", isPublic: false } }))
    await api((client) => client.incidents.create({ payload: { title: "Widget delays", message: "Looking." } }))
    await eventuallyContains("/widget.json", "Widget delays")
    const response = await get("/widget.json")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/json")
    const body = await response.json() as {
      name: string
      status: string
      description: string
      components: Array<{ name: string; status: string }>
      activeIncidents: Array<{ title: string; url: string }>
    }
    expect(body).toMatchObject({ name: "Acme", status: "partial_outage", description: "Partial outage" })
    expect(body.components).toContainEqual(expect.objectContaining({ name: "Widget API", status: "partial_outage" }))
    expect(body.components.map((component) => component.name)).not.toContain("Widget internals")
    const delays = body.activeIncidents.find((incident) => incident.title === "Widget delays")!
    expect(delays.url).toMatch(/\/incidents\/[\w-]+$/)
    expect((await get("/widget.json", { "if-none-match": response.headers.get("etag")! })).status).toBe(304)
  })

  it("subscribes through the plain form, naming a bad address next to the field", async () => {
    const bad = await postForm("/subscribe", { email: "not an address" })
    expect(bad.status).toBe(400)
    const badPage = await bad.text()
    expect(badPage).toContain("aria-invalid=\"true\" aria-describedby=\"email-error\"")
    expect(badPage).toContain("value=\"not an address\"")
    expect(badPage).toContain("<p id=\"email-error\" class=\"error\">Enter an e-mail address")

    const good = await postForm("/subscribe", { email: "Visitor@Example.com" })
    expect(good.status).toBe(200)
    expect(good.headers.get("cache-control")).toBe("no-store")
    // One visitor's page: the page's own headers, but nothing for caches to keep.
    expect(good.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(good.headers.get("content-security-policy")).toContain("default-src 'none'")
    expect(good.headers.get("x-content-type-options")).toBe("nosniff")
    expect(good.headers.get("etag")).toBeNull()
    expect(await good.text()).toContain("a confirmation link is on its way")
    const subscribers = await api((client) => client.subscribers.list({ query: {} }))
    expect(subscribers.find((subscriber) => subscriber.email === "visitor@example.com")).toMatchObject({
      verified: false
    })

    const foreign = await postForm("/subscribe", { email: "other@example.com" }, {
      origin: "https://elsewhere.example"
    })
    expect(foreign.status).toBe(403)
  })

  it("answers e-mail links: an unknown confirmation, and an unsubscribe page whose button needs a POST", async () => {
    const verify = await get("/subscribe/verify/unknown-token")
    expect(verify.status).toBe(404)
    expect(await verify.text()).toContain("This confirmation link is unknown, already used or expired")

    const landing = await get(`/unsubscribe?email=${encodeURIComponent("a@example.com")}&token=t%22oken`)
    expect(landing.status).toBe(200)
    const page = await landing.text()
    expect(page).toContain("<form method=\"post\" action=\"/unsubscribe\">")
    expect(page).toContain("name=\"token\" value=\"t&quot;oken\"")
    expect(page).toContain("Unsubscribe a@example.com</button>")
    const refused = await postForm("/unsubscribe", { email: "a@example.com", token: "wrong" })
    expect(refused.status).toBe(404)
    // A form takes any text: tokens PostgreSQL could not even compare match nothing either.
    for (const token of ["\u0000", "x\ud800", "t".repeat(300)]) {
      expect((await postForm("/unsubscribe", { email: "a@example.com", token })).status, JSON.stringify(token)).toBe(
        404
      )
    }
    expect((await get("/unsubscribe")).status).toBe(400)
  })

  it("shows a Confirm button for a confirmation link: following the link confirms nobody, posting it does", async () => {
    await api((client) => client.subscriptions.subscribe({ payload: { email: "joining@example.com" } }))
    // No SMTP_URL here: the mail is kept in mail_outbox_log, sent just after the answer.
    const kept = () =>
      stack.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ textBody: string }>`
          select text_body from mail_outbox_log where to_address = 'joining@example.com'`))
    await expect.poll(async () => (await kept()).length, { timeout: 5000 }).toBe(1)
    const token = /\/subscribe\/verify\/([\w-]+)/.exec((await kept())[0]!.textBody)![1]!
    const verified = async () =>
      (await api((client) => client.subscribers.list({ query: {} }))).find((s) => s.email === "joining@example.com")
        ?.verified

    for (let visit = 0; visit < 2; visit++) {
      const landing = await get(`/subscribe/verify/${token}`)
      expect(landing.status).toBe(200)
      expect(landing.headers.get("cache-control")).toBe("no-store")
      const page = await landing.text()
      expect(page).toContain("<form method=\"post\" action=\"/subscribe/verify\">")
      expect(page).toContain(`<input type="hidden" name="token" value="${token}">`)
      expect(page).toContain("Confirm subscription</button>")
    }
    expect(await verified()).toBe(false)

    const foreign = await postForm("/subscribe/verify", { token }, { origin: "https://elsewhere.example" })
    expect(foreign.status).toBe(403)
    expect(await verified()).toBe(false)

    const confirmed = await postForm("/subscribe/verify", { token })
    expect(confirmed.status).toBe(200)
    expect(await confirmed.text()).toContain("joining@example.com will now receive incident and maintenance updates.")
    expect(await verified()).toBe(true)

    // Used: the link's page and the form both say so.
    expect((await get(`/subscribe/verify/${token}`)).status).toBe(404)
    const again = await postForm("/subscribe/verify", { token })
    expect(again.status).toBe(404)
    expect(await again.text()).toContain("This confirmation link is unknown, already used or expired")
    for (const bad of ["", "\u0000", "x\ud800", "t".repeat(300)]) {
      expect((await postForm("/subscribe/verify", { token: bad })).status, JSON.stringify(bad)).toBe(404)
    }
  })

  it("unsubscribes through the page of a notification's link, once", async () => {
    await api((client) => client.subscriptions.subscribe({ payload: { email: "leaving@example.com" } }))
    // The token a notification's link carries.
    const [row] = await stack.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<
          { unsubscribeToken: string }
        >`select unsubscribe_token from subscribers where email = 'leaving@example.com'`)
    )
    const fields = { email: "leaving@example.com", token: row!.unsubscribeToken }
    const landing = await get(`/unsubscribe?${new URLSearchParams(fields).toString()}`)
    expect(landing.status).toBe(200)

    const done = await postForm("/unsubscribe", fields)
    expect(done.status).toBe(200)
    expect(await done.text()).toContain("leaving@example.com will receive no more updates.")
    const subscribers = await api((client) => client.subscribers.list({ query: {} }))
    expect(subscribers.map((subscriber) => subscriber.email)).not.toContain("leaving@example.com")
    const again = await postForm("/unsubscribe", fields)
    expect(again.status).toBe(404)
    expect(await again.text()).toContain("No subscription matches this link")
  })
})

/**
 * Several status pages from one deployment, over HTTP against the full stack on a loopback port:
 * each page shows its own components and the incidents and windows naming them, at `/p/<slug>/`
 * and at `/` of its own domain, in its readers' language; a protected page gives nothing of
 * itself (HTML, JSON, feeds, badge, widget) without the password's cookie, and the default page
 * stays public.
 */
import { request as httpRequest } from "node:http"

import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"

import type { ComponentId } from "../../src/domain/Component.js"
import type { StatusPageId } from "../../src/domain/StatusPage.js"
import { startLiveStack } from "../support/LiveStack.js"
import { ApiClient, sendJson } from "../support/TestServer.js"

type Stack = Awaited<ReturnType<typeof startLiveStack>>

let stack: Stack

beforeAll(async () => {
  stack = await startLiveStack()
})

afterAll(async () => {
  await stack?.dispose()
})

const api = <A, E>(request: (client: Effect.Success<typeof ApiClient>) => Effect.Effect<A, E>) =>
  stack.run(Effect.flatMap(ApiClient, request))

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.baseUrl}${path}`, { headers })

/**
 * A request with a `Host` header of our choosing (fetch sets its own) to the stack's loopback
 * port, as a browser on the page's own domain would send it.
 */
const atHost = (method: "GET" | "POST", path: string, host: string, headers: Record<string, string>, body?: string) =>
  new Promise<{ status: number; headers: Record<string, string | Array<string> | undefined>; body: string }>(
    (resolve, reject) => {
      const port = Number(new URL(stack.baseUrl).port)
      const req = httpRequest({ host: "127.0.0.1", port, path, method, headers: { ...headers, host } }, (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (chunk) => (text += chunk)).on(
          "end",
          () => resolve({ status: res.statusCode!, headers: res.headers, body: text })
        )
      })
      req.on("error", reject)
      req.end(body)
    }
  )

const getAtHost = (path: string, host: string, headers: Record<string, string> = {}) =>
  atHost("GET", path, host, headers)

const postFormAtHost = (path: string, host: string, fields: Record<string, string>) =>
  atHost(
    "POST",
    path,
    host,
    { "content-type": "application/x-www-form-urlencoded" },
    new URLSearchParams(fields).toString()
  )

const postForm = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${stack.baseUrl}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString()
  })

/** The component and group names a status page shows (each a card's heading). */
const shownNames = (page: string) => [...page.matchAll(/<h[34]>([^<]*)<\/h[34]>/g)].map((match) => match[1])

const idsOf = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)

describe("two pages with different components, domains and languages", () => {
  let ids: Record<"api" | "dashboard" | "billing" | "secret", ComponentId>
  let apiIncident: string
  let looseIncident: string
  let window: string

  beforeAll(async () => {
    const component = (name: string, isPublic = true) =>
      api((client) => client.components.create({ payload: { name, isPublic } }))
    const [apiComponent, dashboard, billing, secret] = [
      await component("API"),
      await component("Dashboard"),
      await component("Billing"),
      await component("Secret", false)
    ]
    ids = { api: apiComponent!.id, dashboard: dashboard!.id, billing: billing!.id, secret: secret!.id }
    apiIncident = (await api((client) =>
      client.incidents.create({
        payload: { title: "Slow API answers", message: "Looking into it.", severity: "minor", componentIds: [ids.api] }
      })
    )).id
    looseIncident = (await api((client) =>
      client.incidents.create({
        payload: { title: "Office network trouble", message: "Nothing named.", severity: "minor" }
      })
    )).id
    const start = Date.now() + 86_400_000
    window = (await api((client) =>
      client.maintenance.create({
        payload: {
          title: "Invoice run upgrade",
          scheduledStart: DateTime.makeUnsafe(start),
          scheduledEnd: DateTime.makeUnsafe(start + 3_600_000),
          componentIds: [ids.billing]
        }
      })
    )).id
    await api((client) =>
      client.statusPages.create({
        payload: {
          slug: "customers",
          title: "Customer status",
          items: [{ type: "component", id: ids.api }, { type: "component", id: ids.dashboard }],
          locale: "de",
          languages: ["de", "en"],
          domain: "status.customers.test"
        }
      })
    )
    await api((client) =>
      client.statusPages.create({
        payload: {
          slug: "partners",
          items: [{ type: "component", id: ids.billing }],
          locale: "fr",
          domain: "partners.test"
        }
      })
    )
  })

  it("serves each page at /p/<slug>/ with its components, incidents and language", async () => {
    const response = await get("/p/customers/")
    expect(response.status).toBe(200)
    const page = await response.text()
    expect(page).toContain("<html lang=\"de\"")
    expect(page).toContain("<title>Customer status")
    expect(shownNames(page)).toEqual(["API", "Dashboard"])
    expect(page).toContain("Slow API answers")
    expect(page).toContain(`href="/p/customers/incidents/${apiIncident}"`)
    expect(page).not.toContain("Billing")
    expect(page).not.toContain("Secret")
    expect(page).not.toContain("Office network trouble")
    expect(page).not.toContain("Invoice run upgrade")

    const partners = await (await get("/p/partners/")).text()
    expect(partners).toContain("<html lang=\"fr\"")
    expect(shownNames(partners)).toEqual(["Billing"])
    expect(partners).toContain("Invoice run upgrade")
    expect(partners).not.toContain("Slow API answers")
  })

  it("shows an incident, a window and the history on the pages that show their components only", async () => {
    const expectStatus = async (path: string, status: number, text?: string) => {
      const response = await get(path)
      expect(response.status, path).toBe(status)
      const body = await response.text()
      if (text !== undefined) expect(body, path).toContain(text)
      return body
    }
    await expectStatus(`/p/customers/incidents/${apiIncident}`, 200, "Slow API answers")
    await expectStatus(`/p/customers/incidents/${looseIncident}`, 404)
    await expectStatus(`/p/partners/incidents/${apiIncident}`, 404)
    await expectStatus(`/incidents/${looseIncident}`, 200, "Office network trouble")
    await expectStatus(`/p/partners/maintenance/${window}`, 200, "Invoice run upgrade")
    await expectStatus(`/p/customers/maintenance/${window}`, 404)
    const history = await expectStatus("/p/customers/history", 200, "Slow API answers")
    expect(history).not.toContain("Office network trouble")
    expect(await expectStatus(`/p/partners/api/v1/status/incidents/${apiIncident}`, 404)).toContain("NotFound")
  })

  it("serves a page at / of its own domain, with links at that domain's root", async () => {
    for (let i = 0; i < 2; i++) {
      // The second read is the fast path's (the first cached it).
      const response = await getAtHost("/", "status.customers.test")
      expect(response.status).toBe(200)
      expect(response.body).toContain("<html lang=\"de\"")
      expect(shownNames(response.body)).toEqual(["API", "Dashboard"])
      expect(response.body).toContain(`href="/incidents/${apiIncident}"`)
      expect(response.body).not.toContain("/p/customers")
      expect(response.body).not.toContain("Office network trouble")
    }
    // A port in the Host header changes nothing; another page's domain is that page.
    const withPort = await getAtHost("/", "Status.Customers.Test:8080")
    expect(shownNames(withPort.body)).toEqual(["API", "Dashboard"])
    const partners = await getAtHost("/api/v1/status/components", "partners.test")
    expect(partners.status).toBe(200)
    expect(idsOf(JSON.parse(partners.body))).toEqual([ids.billing])
    // Uptime and response times, which the fast path answers for the default page, are the domain's page's here.
    for (let i = 0; i < 2; i++) {
      const uptime = await getAtHost("/api/v1/status/uptime", "partners.test")
      expect(uptime.status).toBe(200)
      expect(JSON.parse(uptime.body).map((record: { componentId: string }) => record.componentId)).toEqual([
        ids.billing
      ])
      expect((await getAtHost(`/api/v1/status/components/${ids.api}/response-times`, "partners.test")).status).toBe(404)
      expect((await get(`/api/v1/status/components/${ids.api}/response-times`)).status).toBe(200)
    }
    const incident = await getAtHost(`/incidents/${apiIncident}`, "status.customers.test")
    expect(incident.status).toBe(200)
    expect(incident.body).toContain("Slow API answers")
    // An incident the page does not show is not found there.
    expect((await getAtHost(`/incidents/${looseIncident}`, "status.customers.test")).status).toBe(404)
  })

  it("answers each page's JSON with only what it shows", async () => {
    const partners = await get("/p/partners/api/v1/status")
    expect(partners.status).toBe(200)
    expect(partners.headers.get("content-type")).toContain("application/json")
    const summary = await partners.json()
    expect(idsOf(summary.components)).toEqual([ids.billing])
    expect(summary.activeIncidents).toEqual([])
    expect(idsOf(summary.upcomingMaintenance)).toEqual([window])

    const incidents = await (await get("/p/customers/api/v1/status/incidents")).json()
    expect(idsOf(incidents)).toEqual([apiIncident])
    const components = await (await get("/p/customers/api/v1/status/components")).json()
    expect(idsOf(components)).toEqual([ids.api, ids.dashboard])
    expect((await get(`/p/customers/api/v1/status/incidents/${apiIncident}`)).status).toBe(200)
    expect((await get(`/p/customers/api/v1/status/incidents/${looseIncident}`)).status).toBe(404)
    const maintenance = await (await get("/p/customers/api/v1/status/maintenance")).json()
    expect(maintenance).toEqual([])
    const uptime = await get("/p/partners/api/v1/status/uptime")
    expect(uptime.status).toBe(200)
    expect((await uptime.json()).map((record: { componentId: string }) => record.componentId)).toEqual([ids.billing])
    // A component the page does not show has no response times there.
    const times = await get(`/p/partners/api/v1/status/components/${ids.api}/response-times`)
    expect(times.status).toBe(404)
    expect((await times.json())._tag).toBe("NotFound")
  })

  it("serves the default page at / and the unprefixed JSON: every public component and both incidents", async () => {
    const response = await get("/")
    expect(response.status).toBe(200)
    const page = await response.text()
    expect(page).toContain("<html lang=\"en\"")
    expect(shownNames(page)).toEqual(["API", "Dashboard", "Billing"])
    expect(page).toContain("Slow API answers")
    expect(page).toContain("Office network trouble")
    expect(page).not.toContain("Secret")
    const summary = await (await get("/api/v1/status")).json()
    expect(idsOf(summary.components)).toEqual([ids.api, ids.dashboard, ids.billing])
    expect(idsOf(summary.activeIncidents).sort()).toEqual([apiIncident, looseIncident].sort())
    // An unknown host is the default page.
    const elsewhere = await getAtHost("/", "unknown.example")
    expect(shownNames(elsewhere.body)).toEqual(["API", "Dashboard", "Billing"])
    // /p/default/ is the default page too.
    expect(shownNames(await (await get("/p/default/")).text())).toEqual(["API", "Dashboard", "Billing"])
  })

  it("picks another of the page's languages by Accept-Language or ?lang=, and keeps ?lang= in its links", async () => {
    for (let i = 0; i < 2; i++) {
      const english = await get("/p/customers/", { "accept-language": "en" })
      expect(english.status).toBe(200)
      expect(await english.text()).toContain("<html lang=\"en\"")
      expect(english.headers.get("vary")?.toLowerCase()).toContain("accept-language")
      const german = await get("/p/customers/", { "accept-language": "de-CH, en;q=0.5" })
      expect(await german.text()).toContain("<html lang=\"de\"")
      // A language the page does not offer is its own.
      const french = await get("/p/customers/", { "accept-language": "fr" })
      expect(await french.text()).toContain("<html lang=\"de\"")
    }
    const chosen = await get("/p/customers/?lang=en", { "accept-language": "de" })
    expect(chosen.status).toBe(200)
    const page = await chosen.text()
    expect(page).toContain("<html lang=\"en\"")
    expect(page).toContain(`href="/p/customers/incidents/${apiIncident}?lang=en"`)
    // A language the page does not offer is ignored.
    const unknown = await (await get("/p/customers/?lang=ja")).text()
    expect(unknown).toContain("<html lang=\"de\"")
    // At the page's domain, through the Host header, too.
    const atDomain = await getAtHost("/", "status.customers.test", { "accept-language": "en" })
    expect(atDomain.body).toContain("<html lang=\"en\"")
  })

  it("answers 404 for a page that does not exist, with the contract's JSON error under its API", async () => {
    const page = await get("/p/nope/")
    expect(page.status).toBe(404)
    await page.text()
    const json = await get("/p/nope/api/v1/status")
    expect(json.status).toBe(404)
    expect(json.headers.get("content-type")).toContain("application/json")
    const body = await json.json()
    expect(body._tag).toBe("NotFound")
    expect(typeof body.message).toBe("string")
    for (const path of ["/p/nope/api/v1/status/rss", "/p/nope/badge.svg", "/p/nope/widget.json", "/p/nope/history"]) {
      const response = await get(path)
      expect(response.status, path).toBe(404)
      await response.text()
    }
    // Not a slug at all: refused as bad input, not a 5xx.
    const bad = await get("/p/Not_A_Slug/api/v1/status")
    expect(bad.status).toBeGreaterThanOrEqual(400)
    expect(bad.status).toBeLessThan(500)
    await bad.text()
  })

  it("gives each page its own feeds, linking to the page's address", async () => {
    const rss = await get("/p/customers/api/v1/status/rss")
    expect(rss.status).toBe(200)
    expect(rss.headers.get("content-type")).toContain("application/rss+xml")
    const feed = await rss.text()
    const links = [...feed.matchAll(/<item>[\s\S]*?<link>([^<]*)<\/link>/g)].map((match) => match[1])
    // The page has a domain: its links are at that domain's root.
    expect(links).toEqual([`http://status.customers.test/incidents/${apiIncident}`])
    expect(feed).not.toContain(looseIncident)
    expect(feed).not.toContain("Office network trouble")
    expect(feed).not.toContain("Invoice run upgrade")
    const atom = await (await get("/p/customers/api/v1/status/atom")).text()
    expect(atom).toContain(apiIncident)
    expect(atom).not.toContain(looseIncident)
    const partnersFeed = await (await get("/p/partners/api/v1/status/rss")).text()
    expect(partnersFeed).toContain("Invoice run upgrade")
    expect(partnersFeed).not.toContain(apiIncident)
    // The default page's feed keeps both incidents.
    const defaultFeed = await (await get("/api/v1/status/rss")).text()
    expect(defaultFeed).toContain(apiIncident)
    expect(defaultFeed).toContain(looseIncident)
  })

  it("gives each page its own badge and widget", async () => {
    for (let i = 0; i < 2; i++) {
      const badge = await get("/p/partners/badge.svg")
      expect(badge.status).toBe(200)
      expect(badge.headers.get("content-type")).toContain("image/svg+xml")
      expect(await badge.text()).toContain("<svg")
      const response = await get("/p/partners/widget.json")
      expect(response.status).toBe(200)
      const widget = await response.json()
      expect(widget.components.map((component: { name: string }) => component.name)).toEqual(["Billing"])
      expect(widget.activeIncidents).toEqual([])
      expect(idsOf(widget.maintenance)).toEqual([window])
      expect(widget.url).toBe("http://partners.test")
    }
    // A component of another page has no badge here.
    const foreign = await get(`/p/partners/badge.svg?component=${ids.api}`)
    expect(foreign.status).toBe(404)
    await foreign.text()
    const customers = await (await get("/p/customers/widget.json")).json()
    expect(customers.components.map((component: { name: string }) => component.name)).toEqual(["API", "Dashboard"])
    expect(idsOf(customers.activeIncidents)).toEqual([apiIncident])
  })
})

describe("a protected page", () => {
  const password = "correct horse battery"
  let pageId: StatusPageId
  let componentIds: Array<string>
  let incidentId: string
  /** What must never appear in an answer to a reader without access. */
  let secrets: Array<string>

  const guarded = [
    "/p/internal/api/v1/status",
    "/p/internal/api/v1/status/components",
    "/p/internal/api/v1/status/rss",
    "/p/internal/api/v1/status/atom",
    "/p/internal/api/v1/status/incidents",
    "/p/internal/api/v1/status/maintenance",
    "/p/internal/api/v1/status/uptime",
    "/p/internal/badge.svg",
    "/p/internal/widget.json"
  ]

  beforeAll(async () => {
    const payroll = await api((client) => client.components.create({ payload: { name: "Payroll runner" } }))
    const ledger = await api((client) => client.components.create({ payload: { name: "Ledger sync" } }))
    componentIds = [payroll.id, ledger.id]
    incidentId = (await api((client) =>
      client.incidents.create({
        payload: { title: "Payroll delayed", message: "Investigating.", componentIds: [payroll.id] }
      })
    )).id
    pageId = (await api((client) =>
      client.statusPages.create({
        payload: {
          slug: "internal",
          title: "Staff status",
          domain: "internal.test",
          audience: "protected",
          password,
          items: componentIds.map((id) => ({ type: "component" as const, id }))
        }
      })
    )).id
    secrets = [...componentIds, incidentId, "Payroll runner", "Ledger sync", "Payroll delayed"]
  })

  /** `asked`: what the request itself named (its form echoes the path back as `next`), which reveals nothing. */
  const expectNothingOfThePage = (body: string, what: string, asked: ReadonlyArray<string> = []) => {
    for (const secret of secrets) {
      if (!asked.includes(secret)) expect(body, `${what} holds ${secret}`).not.toContain(secret)
    }
  }

  /** A fresh access cookie, as a reader gets it by entering the password. */
  const enter = async (next = "/p/internal/") => {
    const response = await postForm("/p/internal/access", { password, next })
    expect(response.status).toBe(303)
    const cookie = response.headers.getSetCookie().find((header) => header.startsWith(`page-access-${pageId}=`))
    expect(cookie).toBeDefined()
    return { response, cookie: cookie!.split(";")[0]! }
  }

  it("answers its password form, and 401 to its JSON, feeds, badge and widget, without access", async () => {
    for (let i = 0; i < 2; i++) {
      // Twice: a second read must not come from a cache the first filled (nor the fast path).
      const page = await get("/p/internal/")
      expect(page.status).toBe(401)
      expect(page.headers.get("cache-control")).toBe("no-store")
      const body = await page.text()
      expect(body).toMatch(/<form[^>]*method="post"[^>]*action="\/p\/internal\/access"/)
      expect(body).toMatch(/<input[^>]*type="password"/)
      expect(body).toContain("name=\"next\" value=\"/p/internal/\"")
      expectNothingOfThePage(body, "/p/internal/")
      for (const path of guarded) {
        const response = await get(path)
        const text = await response.text()
        expect(response.status, path).toBe(401)
        expect(response.headers.get("cache-control") ?? "", path).not.toContain("public")
        expectNothingOfThePage(text, path)
      }
      for (const path of [`/p/internal/incidents/${incidentId}`, "/p/internal/history"]) {
        const response = await get(path)
        expect(response.status, path).toBe(401)
        expectNothingOfThePage(await response.text(), path, [incidentId])
      }
      const detail = await get(`/p/internal/api/v1/status/incidents/${incidentId}`)
      expect(detail.status).toBe(401)
      expectNothingOfThePage(await detail.text(), "incident detail", [incidentId])
      const times = await get(`/p/internal/api/v1/status/components/${componentIds[0]}/response-times`)
      expect(times.status).toBe(401)
      expectNothingOfThePage(await times.text(), "response times", [componentIds[0]!])
      // At its own domain's root, the same.
      for (
        const path of [
          "/",
          "/api/v1/status",
          "/api/v1/status/rss",
          "/api/v1/status/uptime",
          "/badge.svg",
          "/widget.json"
        ]
      ) {
        const response = await getAtHost(path, "internal.test")
        expect(response.status, `internal.test${path}`).toBe(401)
        expectNothingOfThePage(response.body, `internal.test${path}`)
      }
    }
    const json = await (await get("/p/internal/api/v1/status")).json()
    expect(json._tag).toBe("Unauthorized")
    expect(json.message).toContain("/p/internal/access")
    // A forged or foreign cookie is no access.
    const forged = await get("/p/internal/api/v1/status", { cookie: `page-access-${pageId}=9999999999.AAAA` })
    expect(forged.status).toBe(401)
    expectNothingOfThePage(await forged.text(), "forged cookie")
    // Its components stay on the default page, which is public.
    expect(idsOf((await (await get("/api/v1/status")).json()).components)).toEqual(
      expect.arrayContaining(componentIds)
    )
  })

  it("gives access by its password: a 303 with an HttpOnly cookie, then the page and its JSON, private", async () => {
    const wrong = await postForm("/p/internal/access", { password: "wrong horse battery", next: "/p/internal/" })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.getSetCookie()).toEqual([])
    expect(await wrong.text()).toMatch(/<input[^>]*type="password"/)

    const { cookie, response } = await enter()
    expect(response.headers.get("location")).toBe("/p/internal/")
    const setCookie = response.headers.getSetCookie().find((header) => header.startsWith("page-access-"))!
    expect(setCookie).toContain("HttpOnly")
    expect(setCookie).toContain("Path=/")

    for (let i = 0; i < 2; i++) {
      const page = await get("/p/internal/", { cookie })
      expect(page.status).toBe(200)
      expect(page.headers.get("cache-control")).toBe("private, no-cache")
      const body = await page.text()
      expect(shownNames(body)).toEqual(["Payroll runner", "Ledger sync"])
      expect(body).toContain("Payroll delayed")
      const json = await get("/p/internal/api/v1/status", { cookie })
      expect(json.status).toBe(200)
      expect(json.headers.get("cache-control")).toBe("private, no-cache")
      expect(idsOf((await json.json()).components)).toEqual(componentIds)
      for (const path of guarded) {
        const answer = await get(path, { cookie })
        expect(answer.status, path).toBe(200)
        expect(answer.headers.get("cache-control"), path).toBe("private, no-cache")
        await answer.text()
      }
    }
    // Still nothing for a reader without the cookie, after a reader with it was served.
    const stranger = await get("/p/internal/api/v1/status")
    expect(stranger.status).toBe(401)
    expectNothingOfThePage(await stranger.text(), "after a reader with access")
    const strangerPage = await get("/p/internal/")
    expect(strangerPage.status).toBe(401)
    expectNothingOfThePage(await strangerPage.text(), "page after a reader with access")
  })

  it("revalidates a reader's copy only with access, and answers HEAD and the subscribe form 401 without it", async () => {
    const { cookie } = await enter()
    const first = await get("/p/internal/api/v1/status", { cookie })
    const etag = first.headers.get("etag")!
    await first.text()
    const again = await get("/p/internal/api/v1/status", { cookie, "if-none-match": etag })
    expect(again.status).toBe(304)
    expect(again.headers.get("cache-control")).toBe("private, no-cache")
    const stranger = await get("/p/internal/api/v1/status", { "if-none-match": etag })
    expect(stranger.status).toBe(401)
    await stranger.text()
    for (const path of ["/p/internal/", "/p/internal/api/v1/status", "/p/internal/widget.json"]) {
      const head = await fetch(`${stack.baseUrl}${path}`, { method: "HEAD" })
      expect(head.status, `HEAD ${path}`).toBe(401)
    }
    const subscribe = await postForm("/p/internal/subscribe", { email: "stranger@example.com" })
    expect(subscribe.status).toBe(401)
    expectNothingOfThePage(await subscribe.text(), "subscribe")
    const subscribers = await api((client) => client.subscribers.list({ query: {} }))
    expect(subscribers.map((subscriber) => subscriber.email)).not.toContain("stranger@example.com")
  })

  it("varies a protected page's answers with the cookie and, when it offers several languages, the language", async () => {
    await api((client) => client.statusPages.update({ params: { id: pageId }, payload: { languages: ["en", "de"] } }))
    const { cookie } = await enter()
    const page = await get("/p/internal/", { cookie, "accept-language": "de" })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("<html lang=\"de\"")
    const vary = (page.headers.get("vary") ?? "").toLowerCase()
    expect(vary).toContain("cookie")
    expect(vary).toContain("accept-language")
  })

  it("returns to the page's own paths only: no open redirect", async () => {
    // A page of its own: every entry, right or wrong, counts against the client's tries there.
    await api((client) =>
      client.statusPages.create({ payload: { slug: "redirects", audience: "protected", password } })
    )
    const location = async (next: string) => {
      const response = await postForm("/p/redirects/access", { password, next })
      expect(response.status, next).toBe(303)
      return response.headers.get("location")
    }
    for (
      const next of ["//evil.test/x", "https://evil.test/x", "/\\evil.test", "/p/internal/", "/p/redirects\\..\\x"]
    ) {
      expect(await location(next), next).toBe("/p/redirects/")
    }
    expect(await location("/p/redirects/history")).toBe("/p/redirects/history")
  })

  it("answers a `next` that no header can carry with the page, not a server error", async () => {
    await api((client) =>
      client.statusPages.create({ payload: { slug: "header-safe", audience: "protected", password } })
    )
    for (const next of ["/p/header-safe/\r\nset-cookie: planted=1", "/p/header-safe/€"]) {
      const response = await postForm("/p/header-safe/access", { password, next })
      // Soft: each value's answer is reported.
      expect.soft(response.status, JSON.stringify(next)).toBe(303)
      expect.soft(response.headers.get("location"), JSON.stringify(next)).toMatch(/^\/p\/header-safe\/[\x21-\x7e]*$/)
      expect(response.headers.getSetCookie().join("\n")).not.toContain("planted")
    }
  })

  it("returns to the page's own paths only at its domain's root too: no open redirect", async () => {
    // Browsers drop tabs and newlines from a URL before parsing it: "/\t/evil.test" is "//evil.test" to them.
    await api((client) =>
      client.statusPages.create({
        payload: { slug: "redirects-at-root", domain: "redirects.test", audience: "protected", password }
      })
    )
    for (const next of ["//evil.test/x", "/\\evil.test", "/\t/evil.test", "https://evil.test/"]) {
      const response = await postFormAtHost("/access", "redirects.test", { password, next })
      expect(response.status, JSON.stringify(next)).toBe(303)
      expect(response.headers.location, JSON.stringify(next)).toBe("/")
    }
    const home = await postFormAtHost("/access", "redirects.test", { password, next: "/history" })
    expect(home.headers.location).toBe("/history")
  })

  it("refuses a cross-site password post", async () => {
    const crossSite = await postForm("/p/internal/access", { password, next: "/p/internal/" }, {
      origin: "https://evil.example",
      "sec-fetch-site": "cross-site"
    })
    expect(crossSite.status).toBe(403)
    expect(crossSite.headers.getSetCookie()).toEqual([])
    await crossSite.text()
  })

  it("ends every reader's access when its password changes", async () => {
    const { cookie } = await enter()
    expect((await get("/p/internal/api/v1/status", { cookie })).status).toBe(200)
    await api((client) =>
      client.statusPages.update({ params: { id: pageId }, payload: { password: "a new staff password" } })
    )
    const json = await get("/p/internal/api/v1/status", { cookie })
    expect(json.status).toBe(401)
    expectNothingOfThePage(await json.text(), "old cookie")
    const page = await get("/p/internal/", { cookie })
    expect(page.status).toBe(401)
    await page.text()
    // The new password gives access again.
    const renewed = await postForm("/p/internal/access", { password: "a new staff password", next: "/p/internal/" })
    expect(renewed.status).toBe(303)
    const fresh = renewed.headers.getSetCookie()[0]!.split(";")[0]!
    expect((await get("/p/internal/api/v1/status", { cookie: fresh })).status).toBe(200)
  })

  it("limits password tries per client and page: the 11th wrong one is 429 with Retry-After", async () => {
    const vault = await api((client) =>
      client.statusPages.create({ payload: { slug: "vault", audience: "protected", password: "vault password 1" } })
    )
    for (let i = 1; i <= 10; i++) {
      const response = await postForm("/p/vault/access", { password: `guess number ${i}`, next: "/p/vault/" })
      expect(response.status, `try ${i}`).toBe(401)
      await response.text()
    }
    const eleventh = await postForm("/p/vault/access", { password: "guess number 11", next: "/p/vault/" })
    expect(eleventh.status).toBe(429)
    expect(Number(eleventh.headers.get("retry-after"))).toBeGreaterThan(0)
    await eleventh.text()
    // Even the right password waits now; another page's tries are its own.
    const right = await postForm("/p/vault/access", { password: "vault password 1", next: "/p/vault/" })
    expect(right.status).toBe(429)
    await right.text()
    expect(vault.audience).toBe("protected")
  })
})

describe("the default page", () => {
  it("cannot become protected, and /api/v1/status stays public", async () => {
    const list = await api((client) => client.statusPages.list({ query: {} }))
    const defaultPage = list.find((page) => page.isDefault)!
    const refused = await stack.run(
      sendJson("PUT", `/api/v1/admin/pages/${defaultPage.id}`, { audience: "protected", password: "a password here" })
    )
    expect(refused.status).toBe(409)
    expect(refused.body._tag).toBe("Conflict")
    const after = await api((client) => client.statusPages.get({ params: { id: defaultPage.id } }))
    expect(after.audience).toBe("public")
    // Nor can a new page be made a protected default.
    const created = await stack.run(
      sendJson("POST", "/api/v1/admin/pages", {
        slug: "locked-default",
        isDefault: true,
        audience: "protected",
        password: "a password here"
      })
    )
    expect(created.status).toBe(409)
    for (const path of ["/api/v1/status", "/api/v1/status/rss", "/badge.svg", "/widget.json", "/"]) {
      const response = await get(path)
      expect(response.status, path).toBe(200)
      expect(response.headers.get("cache-control") ?? "", path).not.toContain("private")
      await response.text()
    }
  })
})

describe("pages that change", () => {
  it("gives nothing without the password once a page readers had cached is made protected", async () => {
    const component = await api((client) => client.components.create({ payload: { name: "Warehouse scanner" } }))
    const page = await api((client) =>
      client.statusPages.create({
        payload: { slug: "switch", domain: "switch.test", items: [{ type: "component", id: component.id }] }
      })
    )
    const paths = ["/p/switch/", "/p/switch/api/v1/status", "/p/switch/api/v1/status/rss", "/p/switch/widget.json"]
    for (let i = 0; i < 2; i++) {
      // Twice: the second read is the fast path's.
      for (const path of paths) {
        const response = await get(path)
        expect(response.status, path).toBe(200)
        expect(await response.text(), path).toContain(path.endsWith("rss") ? "<rss" : "Warehouse scanner")
      }
      expect((await getAtHost("/", "switch.test")).body).toContain("Warehouse scanner")
    }
    await api((client) =>
      client.statusPages.update({
        params: { id: page.id },
        payload: { audience: "protected", password: "now it is locked" }
      })
    )
    for (const path of paths) {
      const response = await get(path)
      expect(response.status, path).toBe(401)
      expect(await response.text(), path).not.toContain("Warehouse scanner")
    }
    for (const path of ["/", "/api/v1/status", "/widget.json"]) {
      const response = await getAtHost(path, "switch.test")
      expect(response.status, `switch.test${path}`).toBe(401)
      expect(response.body).not.toContain("Warehouse scanner")
    }
  })

  it("forgets a deleted page's addresses, and a renamed page's old slug", async () => {
    const component = await api((client) => client.components.create({ payload: { name: "Loading dock" } }))
    const page = await api((client) =>
      client.statusPages.create({
        payload: { slug: "temporary", domain: "temporary.test", items: [{ type: "component", id: component.id }] }
      })
    )
    for (let i = 0; i < 2; i++) {
      expect(shownNames(await (await get("/p/temporary/")).text())).toEqual(["Loading dock"])
      expect((await get("/p/temporary/api/v1/status")).status).toBe(200)
      expect(shownNames((await getAtHost("/", "temporary.test")).body)).toEqual(["Loading dock"])
    }
    await api((client) => client.statusPages.update({ params: { id: page.id }, payload: { slug: "renamed" } }))
    for (const path of ["/p/temporary/", "/p/temporary/api/v1/status", "/p/temporary/widget.json"]) {
      const response = await get(path)
      expect(response.status, path).toBe(404)
      await response.text()
    }
    expect(shownNames(await (await get("/p/renamed/")).text())).toEqual(["Loading dock"])
    await api((client) => client.statusPages.remove({ params: { id: page.id } }))
    for (const path of ["/p/renamed/", "/p/renamed/api/v1/status", "/p/renamed/badge.svg"]) {
      const response = await get(path)
      expect(response.status, path).toBe(404)
      await response.text()
    }
    // Its domain now reads the default page, which shows every public component.
    const atDomain = await getAtHost("/", "temporary.test")
    expect(atDomain.status).toBe(200)
    expect(shownNames(atDomain.body)).toContain("Loading dock")
    expect(shownNames(atDomain.body)).toContain("API")
  })
})
